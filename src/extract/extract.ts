import type { Extraction, ExtractorInfo } from '../core/extraction.js';
import {
  answerRule, bareLetterRule, boldRule, boxedRule, finalAnswerRule, jsonRule, leadingLetterRule, optionRule, optionTextRule, REFUSAL, tagRule,
  type ExtractionRule,
} from './rules.js';

/** The ladder, most specific first (REFERENCE.md §2, tightened: see docs/extraction.md). */
const LENIENT_LADDER: readonly ExtractionRule[] = [jsonRule, tagRule, boxedRule, finalAnswerRule, answerRule, optionRule, boldRule, leadingLetterRule];
/** Rules tried only after the refusal check: they read weak signals that a refusal may contain by accident. */
const AFTER_REFUSAL_CHECK: readonly ExtractionRule[] = [bareLetterRule, optionTextRule];
const STRICT_LADDER: readonly ExtractionRule[] = [jsonRule, tagRule];

/** Name and version of the extractor; bump the version whenever any rule's behaviour changes. */
export const EXTRACTOR_NAME = 'cxrbench-ladder';
export const EXTRACTOR_VERSION = '1.0.0';

/** Options of {@link extractAnswer}. */
export interface ExtractOptions {
  /** JSON and answer tags only (no phrase, bold, letter or option-text rules). */
  strict?: boolean;
}

/** Describes the extractor for a run manifest. */
export function extractorInfo(options: ExtractOptions = {}): ExtractorInfo {
  const rules = options.strict ? STRICT_LADDER : [...LENIENT_LADDER, ...AFTER_REFUSAL_CHECK];
  return { name: EXTRACTOR_NAME, version: EXTRACTOR_VERSION, strict: options.strict === true, rules: rules.map((r) => ({ name: r.name, version: r.version })) };
}

/**
 * Normalises what models print around answers without changing its meaning: Unicode compatibility forms
 * (full-width "Ｂ", "："), zero-width characters, and reasoning blocks (`<think>…</think>`) whose letters are
 * deliberation, not the answer.
 */
export function normalizeOutput(output: string): string {
  let text = output.normalize('NFKC').replace(/[\u200b-\u200d\ufeff]/g, '');
  const thinkEnd = text.lastIndexOf('</think>');
  if (thinkEnd !== -1) text = text.slice(thinkEnd + '</think>'.length);
  else if (/^\s*<think>/.test(text)) return ''; // reasoning never finished: no answer given
  return text.trim();
}

/**
 * Reads the chosen option from a model's output by the first rule of the ladder that reaches a verdict (last
 * occurrence within that rule). Returns `letter: null` when no single answer can be read — never a guess.
 * `options` (the four option texts, without prefixes) enable matching an answer given as option text.
 */
export function extractAnswer(output: string | null | undefined, options?: readonly string[], settings: ExtractOptions = {}): Extraction {
  const text = normalizeOutput(output ?? '');
  if (text === '') return { letter: null, rule: 'empty' };
  const ladder = settings.strict ? STRICT_LADDER : LENIENT_LADDER;
  for (const rule of ladder) {
    const verdict = rule.apply(text, options);
    if (verdict) return verdict.letter ? { letter: verdict.letter, rule: rule.name, span: verdict.span } : { letter: null, rule: verdict.reason, ...(verdict.span ? { span: verdict.span } : {}) };
  }
  if (settings.strict) return { letter: null, rule: 'no-match' };
  if (REFUSAL.test(text) && !(options ?? []).some((o) => REFUSAL.test(o) && text.toLowerCase().includes(o.toLowerCase()))) {
    return { letter: null, rule: 'refusal' };
  }
  for (const rule of AFTER_REFUSAL_CHECK) {
    const verdict = rule.apply(text, options);
    if (verdict) return verdict.letter ? { letter: verdict.letter, rule: rule.name, span: verdict.span } : { letter: null, rule: verdict.reason, ...(verdict.span ? { span: verdict.span } : {}) };
  }
  return { letter: null, rule: 'no-match' };
}
