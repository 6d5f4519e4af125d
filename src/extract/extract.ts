import type { Extraction, ExtractorInfo } from '../core/extraction.js';
import { readCommitments, type Reading } from './commitments.js';
import { REFUSAL } from './cues.js';
import { prepareOptions, type PreparedOptions } from './mentions.js';
import { normalizeOutput } from './normalize.js';
import { readStructured } from './structured.js';

/** Name and version of the extractor; bump the version whenever any rule's behaviour changes. */
export const EXTRACTOR_NAME = 'cxrbench-reader';
export const EXTRACTOR_VERSION = '2.1.0';

/**
 * The rules an extraction can name, in the order a reader weighs them, each versioned. Structured answers
 * (JSON, Python dicts, tags, `\boxed{}`) are read first; then the statements of the text: explicit answers
 * (`final-answer`, `answer`, `choice`, `leading-letter`, `letter-line`), then conclusions (`belief`,
 * `conclusion`, `evaluation`); an answer named by `option-text` or `ordinal`; and, when nothing commits,
 * a final `bare-letter`. `reasoning:*` marks an answer read from a reasoning block after an empty answer
 * (a `<think>` block of the output, or the reasoning the endpoint returned apart, since 2.1.0).
 */
const RULES = ['json', 'python-dict', 'tag', 'boxed', 'final-answer', 'answer', 'choice', 'leading-letter', 'letter-line', 'belief', 'conclusion', 'evidence', 'evaluation', 'statement', 'option-text', 'ordinal', 'bare-letter', 'paraphrase'] as const;
const RULE_VERSION = '2';
const STRICT_RULES = ['json', 'tag'] as const;

/** Options of {@link extractAnswer}. */
export interface ExtractOptions {
  /** JSON and answer tags only (no statement, letter or option-text reading). */
  strict?: boolean;
  /**
   * The reasoning the endpoint returned apart from the answer (`message.reasoning`): read only when the answer
   * is empty (content null or ""), and an answer found there is named `reasoning:<rule>`.
   */
  reasoning?: string;
}

/** Describes the extractor for a run manifest. */
export function extractorInfo(options: ExtractOptions = {}): ExtractorInfo {
  const rules = options.strict ? STRICT_RULES : RULES;
  return { name: EXTRACTOR_NAME, version: EXTRACTOR_VERSION, strict: options.strict === true, rules: rules.map((name) => ({ name, version: RULE_VERSION })) };
}

function read(text: string, options: PreparedOptions, strict: boolean, depth = 0): Reading {
  if (text.trim() === '') return { letter: null, reason: 'empty' };
  const readValue = (value: string): Reading => (depth >= 2 ? { letter: null, reason: 'no-match' } : read(value, options, false, depth + 1));
  const structured = readStructured(text, readValue, strict ? STRICT_RULES : undefined);
  if (structured) return structured;
  if (strict) return { letter: null, reason: 'no-match' };
  const reading = readCommitments(text, options);
  // A refusal outweighs a finding merely described ("X favours atelectasis"), not an answer given anyway.
  if ((reading.letter === null ? reading.reason === 'no-match' : reading.rule === 'evidence' || reading.rule === 'paraphrase') && REFUSAL.test(text)) return { letter: null, reason: 'refusal' };
  return reading;
}

/**
 * Reads the option a model's output committed to, as a careful reader does; `letter: null` with the reason
 * (`empty`, `refusal`, `hedge`, `multiple`, `invalid-answer`, `none-of-the-above`, `unfinished`, `no-match`)
 * when it committed to no single option — never a guess. `options` (the four option texts, without letters)
 * let answers given as option text be read. Time is linear in the output's length (long outputs are read as
 * head and tail, see `normalizeOutput`).
 */
export function extractAnswer(output: unknown, options?: readonly string[], settings: ExtractOptions = {}): Extraction {
  const normalized = normalizeOutput(typeof output === 'string' ? output : '');
  if (normalized.unfinished) return { letter: null, rule: 'unfinished' };
  const prepared = prepareOptions(options);
  const strict = settings.strict === true;
  let reading = read(normalized.answer, prepared, strict);
  // A reasoning field is read only after an empty answer; an inline block also after an answer no rule reads.
  const reasoning = reading.letter === null && reading.reason === 'empty' && settings.reasoning ? normalizeOutput(settings.reasoning).answer : normalized.reasoning;
  if (reading.letter === null && (reading.reason === 'empty' || reading.reason === 'no-match') && reasoning) {
    // Nothing after the reasoning: what the reasoning concluded is the answer it gave.
    const fromReasoning = read(reasoning, prepared, strict);
    if (fromReasoning.letter !== null) reading = { ...fromReasoning, rule: `reasoning:${fromReasoning.rule}`, span: [-1, -1] };
    else if (fromReasoning.reason !== 'no-match' && fromReasoning.reason !== 'empty') reading = fromReasoning;
  }
  if (reading.letter !== null) return { letter: reading.letter, rule: reading.rule, ...(reading.span[0] >= 0 ? { span: reading.span } : {}) };
  return { letter: null, rule: reading.reason, ...(reading.span ? { span: reading.span } : {}) };
}

export { normalizeOutput } from './normalize.js';
