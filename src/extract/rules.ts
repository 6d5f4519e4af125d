import { LETTERS, type Letter } from '../core/question.js';

/**
 * The answer-extraction rules, most specific first. Each rule reads a model's output and returns either
 * nothing (it does not apply: try the next rule) or a verdict: one letter, or `null` with the reason when the
 * output is explicit but gives no single answer (a hedge between options, a refusal, an answer field that
 * is not an option). A verdict stops the ladder: a hedge is never turned into a guess by a weaker rule.
 *
 * Where a rule matches several times, the LAST match counts: models that correct themselves ("A… wait, C")
 * put their final choice last.
 */

/** What a rule concluded. */
export type RuleVerdict = { letter: Letter; span: [number, number] } | { letter: null; reason: NoAnswerReason; span?: [number, number] };

/** Why an output yields no answer. Stored as the extraction's rule, so reports can count each kind. */
export type NoAnswerReason = 'empty' | 'refusal' | 'hedge' | 'invalid-answer' | 'no-match';

/** One named, versioned extraction rule. */
export interface ExtractionRule {
  name: string;
  version: string;
  /** Returns undefined when the rule does not apply to this output. */
  apply(text: string, options: readonly string[] | undefined): RuleVerdict | undefined;
}

/** A letter token, uppercase, or lowercase only where brackets or the context make it unambiguous. */
const LETTER = '[A-Da-d]';
/** Between an answer cue and its letter: spaces, markdown emphasis, colons, "is", "option", an opening bracket. */
const CUE_GAP = String.raw`[\s*_:=\-–—>]*(?:is|was|would be|should be|will be|是|为)?[\s*_:=\-–—>]*(?:the\s+)?(?:option|choice|letter)?[\s*_:]*[(\[{"'“]?\s*`;
/** After the letter: it must not continue a word ("Answer: Bilateral" is not B). */
const LETTER_END = String.raw`(?![A-Za-z0-9])`;
/** A second option right after the first ("A or B", "B/C", "A and B") makes the statement a hedge. */
const HEDGE_TAIL = /^[\s*_)\]}"'”]*(?:or|Or|OR|and|And|AND|\/|&|,|vs\.?|versus)[\s*_]*(?:[Oo]ption\s+)?[(\[]?\s*([A-D])(?![A-Za-z0-9])/;
/** Words that, right after a capital "A ", show it is the letter ("A because…"), not the article ("A large effusion"). */
const AFTER_LETTER_A = /^\s+(?:because|since|as|is|was|seems|appears|fits|matches|describes|best|correctly|would|should|given|due|per|from|based)\b/;
/** A mention of an option that rejects it ("Option A is incorrect", "not B"): not an answer. */
const REJECTED_AFTER = /^[\s)*_\]:,-]*(?:\([^)]{0,60}\)\s*)?(?:is|are|would be|seems|appears)?\s*(?:incorrect|wrong|not\b|unlikely|less likely|ruled out|excluded|inconsistent|false|implausible)/i;
const REJECTED_BEFORE = /\b(?:not|exclude|excludes|excluding|rule out|rules out|ruling out|than|over)\s+(?:option\s+|choice\s+)?[(\[]?$/i;

function toLetter(raw: string): Letter {
  return raw.toUpperCase() as Letter;
}

interface CueMatchOptions {
  /** Accept a lowercase a–d (only when bracketed or closing the statement). */
  allowLowercase: boolean;
  /** Skip mentions that reject the option ("Option A is incorrect"), for rules that read mentions rather than statements. */
  skipRejected: boolean;
}

/**
 * The verdict of the last usable match of `pattern` (global, with a `letter` group). A match followed by a
 * second option ("A or B") is a hedge, and the option it names is not read again as a match of its own.
 */
function lastCueMatch(text: string, pattern: RegExp, settings: CueMatchOptions): RuleVerdict | undefined {
  let verdict: RuleVerdict | undefined;
  let skipUntil = -1;
  for (const match of text.matchAll(pattern)) {
    const raw = match.groups?.letter;
    if (!raw) continue;
    const start = match.indices?.groups?.letter?.[0] ?? match.index + match[0].length - raw.length;
    if (start < skipUntil) continue;
    const after = text.slice(start + 1);
    const hedge = raw === raw.toUpperCase() ? HEDGE_TAIL.exec(after) : null;
    if (hedge && hedge[1]! !== raw) {
      skipUntil = start + 1 + hedge[0].length;
      verdict = { letter: null, reason: 'hedge', span: [start, skipUntil] };
      continue;
    }
    if (raw === raw.toLowerCase()) {
      // "the answer is a small effusion": a lowercase letter is a word unless bracketed or closing the statement.
      if (!settings.allowLowercase && !(text[start - 1] === '(' || text[start - 1] === '[' || /^\s*(?:[).\]:]|$)/.test(after))) continue;
    } else if (raw === 'A' && /^\s+[a-z]/.test(after) && !AFTER_LETTER_A.test(after)) continue; // the article
    if (settings.skipRejected && (REJECTED_AFTER.test(after) || REJECTED_BEFORE.test(text.slice(Math.max(0, start - 30), start)))) continue;
    verdict = { letter: toLetter(raw), span: [start, start + 1] };
  }
  return verdict;
}

/** Reads an answer value found in a structured field (JSON "answer", <answer> tag, \boxed{}): letter, "B.", "(B)", "B) text", or an option's text. */
export function answerFromValue(value: string, options: readonly string[] | undefined): Letter | NoAnswerReason {
  const v = value.trim().replace(/^[*_"'“`]+|[*_"'”`]+$/g, '').trim();
  if (v === '') return 'empty';
  const letterOnly = /^(?:option\s+|choice\s+)?[(\[]?([A-Da-d])[)\].:]?$/i.exec(v);
  if (letterOnly) return toLetter(letterOnly[1]!);
  if (HEDGE_TAIL.test(v.replace(/^[(\[]?[A-Da-d][)\]]?/, '')) && /^[(\[]?[A-Da-d][)\]]?\s*(?:or|\/|and|&|,)/i.test(v)) return 'hedge';
  const withText = /^(?:option\s+)?[(\[]?([A-D])(?:[)\].:]|\s+-)\s*(.+)$/.exec(v);
  if (withText) {
    const letter = toLetter(withText[1]!);
    const claimed = optionIndex(withText[2]!, options);
    return claimed === -1 || LETTERS[claimed] === letter ? letter : 'invalid-answer';
  }
  const byText = optionIndex(v, options);
  return byText === -1 ? 'invalid-answer' : LETTERS[byText]!;
}

function fold(s: string): string {
  return s.toLowerCase().replace(/[*_`"'“”]/g, '').replace(/\s+/g, ' ').replace(/[\s.]+$/, '').trim();
}

/** Index of the option whose text equals `text` (case, spacing and a final period ignored), or -1. */
function optionIndex(text: string, options: readonly string[] | undefined): number {
  if (!options) return -1;
  const folded = fold(text);
  return options.findIndex((o) => fold(o) === folded);
}

function verdictFromValue(value: string, options: readonly string[] | undefined, span: [number, number]): RuleVerdict {
  const answer = answerFromValue(value, options);
  return answer.length === 1 ? { letter: answer as Letter, span } : { letter: null, reason: answer as NoAnswerReason, span };
}

/** `{"answer": "B", ...}` anywhere in the output (fenced or not); the last such object counts. */
export const jsonRule: ExtractionRule = {
  name: 'json',
  version: '1',
  apply(text, options) {
    let verdict: RuleVerdict | undefined;
    // Candidate objects: every {...} that parses, found by scanning for balanced braces.
    for (const { value, start, end } of jsonObjects(text)) {
      const key = Object.keys(value).find((k) => /^(?:final_?)?answer$|^choice$|^selected_?option$|^option$/i.test(k));
      if (key === undefined) continue;
      const raw = value[key];
      if (typeof raw === 'number' && Number.isInteger(raw)) {
        // {"answer": 2} is ambiguous (index from 0 or 1?): no single readable answer.
        verdict = { letter: null, reason: 'invalid-answer', span: [start, end] };
      } else if (typeof raw === 'string') verdict = verdictFromValue(raw, options, [start, end]);
      else if (raw === null) verdict = { letter: null, reason: 'refusal', span: [start, end] };
      else verdict = { letter: null, reason: 'invalid-answer', span: [start, end] };
    }
    return verdict;
  },
};

/** Every top-level `{...}` substring that parses as a JSON object, in order. */
function* jsonObjects(text: string): Generator<{ value: Record<string, unknown>; start: number; end: number }> {
  let i = text.indexOf('{');
  while (i !== -1) {
    let depth = 0;
    let inString = false;
    let end = -1;
    for (let j = i; j < text.length; j++) {
      const c = text[j];
      if (inString) {
        if (c === '\\') j++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === '{') depth++;
      else if (c === '}' && --depth === 0) {
        end = j + 1;
        break;
      }
    }
    if (end === -1) return;
    try {
      const value: unknown = JSON.parse(text.slice(i, end));
      if (value && typeof value === 'object' && !Array.isArray(value)) {
        yield { value: value as Record<string, unknown>, start: i, end };
        i = text.indexOf('{', end);
        continue;
      }
    } catch {
      // not JSON: look for an object starting further on
    }
    i = text.indexOf('{', i + 1);
  }
}

function structuredRule(name: string, pattern: RegExp): ExtractionRule {
  return {
    name,
    version: '1',
    apply(text, options) {
      let verdict: RuleVerdict | undefined;
      for (const m of text.matchAll(pattern)) verdict = verdictFromValue(m[1]!, options, [m.index, m.index + m[0].length]);
      return verdict;
    },
  };
}

/** `<answer>B</answer>` (also `<final_answer>`, `<choice>`). */
export const tagRule = structuredRule('tag', /<(?:final_?)?(?:answer|choice)>\s*([\s\S]*?)\s*<\/(?:final_?)?(?:answer|choice)>/gi);

/** `\boxed{B}`, `\boxed{\text{B}}`. */
export const boxedRule = structuredRule('boxed', /\\boxed\s*\{\s*(?:\\text(?:bf)?\s*\{)?\s*([^{}]*?)\s*\}?\s*\}/g);

function cueRule(name: string, cue: string, skipRejected: boolean): ExtractionRule {
  const pattern = new RegExp(String.raw`(?:${cue})${CUE_GAP}(?<letter>${LETTER})${LETTER_END}`, 'gid');
  return { name, version: '1', apply: (text) => lastCueMatch(text, pattern, { allowLowercase: false, skipRejected }) };
}

/** "Final answer: B", "the final answer is (C)". */
export const finalAnswerRule = cueRule('final-answer', String.raw`final\s+answer|最终答案`, false);

/** "Answer: B", "The correct answer is C", "答案：B". */
export const answerRule = cueRule('answer', String.raw`(?:correct|right|best|most\s+(?:likely|appropriate|accurate))?\s*answer|答案`, false);

/** "Option C", "I choose B", "I would select D", "the correct option is A". */
export const optionRule = cueRule('option', String.raw`\b(?:option|choice)|\b(?:I\s+(?:would\s+)?(?:choose|select|pick|go\s+with))`, true);

/** `**B**`, `**B.** text`, `**(C)**`: a bold letter. */
export const boldRule: ExtractionRule = {
  name: 'bold',
  version: '1',
  apply(text) {
    const pattern = /\*\*\s*[(\[]?(?<letter>[A-D])[)\]]?(?:[.:)]|\s*\*\*|\s+-)/dg;
    return lastCueMatch(text, pattern, { allowLowercase: false, skipRejected: true });
  },
};

/** Letters used as labels at line or sentence starts ("A: … B: …"): an option-by-option analysis, not an answer. */
function labelledLetters(text: string): Set<string> {
  return new Set([...text.matchAll(/(?:^|\n|[.!?]\s+)[\s*_#>-]*[(\[]?([A-D])[)\]:]/g)].map((m) => m[1]!));
}

/** The output opens with the letter: "B", "B.", "(B) Left lower lobe", "C: …" — the "letter then explanation" format. */
export const leadingLetterRule: ExtractionRule = {
  name: 'leading-letter',
  version: '1',
  apply(text) {
    const m = /^[\s*_]*[(\[]?([A-Da-d])(?![A-Za-z0-9])/.exec(text);
    if (!m) return undefined;
    const raw = m[1]!;
    const start = m[0].length - 1;
    const rest = text.slice(start + 1).replace(/^[)\]*_]+/, '');
    const hedge = raw === raw.toUpperCase() ? HEDGE_TAIL.exec(rest) : null;
    if (hedge && hedge[1] !== raw) return { letter: null, reason: 'hedge', span: [start, start + 1 + hedge[0].length] };
    const isLabel = raw === raw.toUpperCase() ? /^(?:[).\]:,]|\s+-|\s*$|\s*\n)/.test(text.slice(start + 1)) : /^[).\]:]?\s*$/.test(text.slice(start + 1));
    if (!isLabel) return undefined;
    if (labelledLetters(text).size > 1) return undefined; // "A: … B: …" lists options, it does not answer
    return { letter: toLetter(raw), span: [start, start + 1] };
  },
};

/**
 * A stand-alone capital letter elsewhere: "(C)", "C)", "C.", "C:" or the output's last word — never the article
 * "A" in a sentence, never a rejected option. Applies only when all such letters agree; otherwise a hedge.
 */
export const bareLetterRule: ExtractionRule = {
  name: 'bare-letter',
  version: '1',
  apply(text) {
    const letters = new Set<string>();
    let last: [number, number] | undefined;
    const pattern = /(?<![A-Za-z0-9])(?:\(([A-D])\)|([A-D])(?:[):]|\.(?=\s|$)|(?=[\s*_]*$)))/g;
    for (const m of text.matchAll(pattern)) {
      const raw = m[1] ?? m[2]!;
      const start = m.index + m[0].indexOf(raw);
      const after = text.slice(start + 1);
      if (REJECTED_AFTER.test(after.replace(/^\)/, '')) || REJECTED_BEFORE.test(text.slice(Math.max(0, start - 30), start))) continue;
      letters.add(raw);
      last = [start, start + 1];
    }
    if (!last) return undefined;
    if (letters.size > 1) return { letter: null, reason: 'hedge', span: last };
    return { letter: toLetter([...letters][0]!), span: last };
  },
};

/** The output names exactly one option's text (whole words, case-insensitive), e.g. "Left lower lobe consolidation." */
export const optionTextRule: ExtractionRule = {
  name: 'option-text',
  version: '1',
  apply(text, options) {
    if (!options) return undefined;
    const haystack = ` ${fold(text).replace(/[^\p{L}\p{N}]+/gu, ' ')} `;
    const hits: { index: number; needle: string; at: number }[] = [];
    options.forEach((option, index) => {
      const needle = fold(option).replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
      if (needle.length < 2) return;
      const at = haystack.lastIndexOf(` ${needle} `);
      if (at !== -1) hits.push({ index, needle, at });
    });
    // Drop hits that are part of a longer hit ("Yes" inside "Yes, small" when both are options).
    const kept = hits.filter((h) => !hits.some((o) => o !== h && o.needle.length > h.needle.length && o.needle.includes(h.needle)));
    if (kept.length === 0) return undefined;
    if (kept.length > 1) return { letter: null, reason: 'hedge' };
    return { letter: LETTERS[kept[0]!.index]!, span: [0, text.length] };
  },
};

/** Refusals and "none of the above": checked before the weak rules, so a stray letter in a refusal is not read as an answer. */
export const REFUSAL = /\b(?:I\s*(?:am|'m)\s+(?:not\s+able|unable)|I\s+(?:can(?:not|'t)|could\s+not|won't)\s+(?:determine|answer|provide|tell|say|see|view|access|interpret|assess|make|help|assist)|unable\s+to\s+(?:determine|answer|view|see|access|interpret|assess)|none\s+of\s+the\s+(?:above|options|choices)|cannot\s+be\s+determined\s+from|not\s+possible\s+to\s+(?:determine|answer)|as\s+an\s+AI)\b/i;
