import { parsePythonLiteral } from '../core/python-literal.js';
import type { Reading } from './commitments.js';

/** Reads a field's value as text (the whole reader, so "B. text", "B or C" and option texts are read alike). */
export type ValueReader = (value: string) => Reading;

/** Keys that hold the answer in the objects models print, folded (lower case, letters only), best first. */
const ANSWER_KEYS = [
  'finalanswer', 'finalchoice', 'finaloption', 'answer', 'answerletter', 'answerchoice', 'correctanswer', 'correctoption', 'choice', 'selectedoption',
  'selectedchoice', 'selectedanswer', 'chosenoption', 'chosenanswer', 'option', 'bestanswer', 'bestoption', 'predictedanswer', 'predictedoption',
  'prediction', 'pred', 'modelanswer', 'selection', 'letter', 'label', 'result', 'response', 'output',
];
const KEY_RANK = new Map(ANSWER_KEYS.map((k, i) => [k, i]));
const foldKey = (k: string) => k.toLowerCase().replace(/[^a-z]/g, '');
/** Placeholders a model copies from the prompt ("<A, B, C or D>"): not an answer. */
const TEMPLATE_VALUE = /^<[^>]*>$|^\[?A\s*[,/|]\s*B\s*[,/|]\s*C\s*(?:,?\s*or|[,/|])\s*D\]?$/i;

/** A structured answer found in the text, and where its value is. */
interface Found {
  rule: 'json' | 'python-dict' | 'tag' | 'boxed';
  value: unknown;
  span: [number, number];
}

/** The answer a JSON object, Python dict, answer tag or `\boxed{}` states; the last one in the text counts. */
export function readStructured(text: string, readValue: ValueReader, allowed?: readonly string[]): Reading | undefined {
  const found = [...objectAnswers(text), ...tagAnswers(text), ...boxedAnswers(text)].filter((f) => !allowed || allowed.includes(f.rule)).sort((a, b) => a.span[1] - b.span[1]);
  for (let i = found.length - 1; i >= 0; i--) {
    const f = found[i]!;
    if (typeof f.value === 'string' && TEMPLATE_VALUE.test(f.value.trim())) continue;
    const reading = readFieldValue(f.value, readValue, 0);
    return reading.letter !== null ? { letter: reading.letter, rule: f.rule, span: f.span } : { letter: null, reason: reading.reason, span: f.span };
  }
  return undefined;
}

/** Reads an answer field's value: a letter in any dress, an option's text, a list, null. Never guesses. */
function readFieldValue(value: unknown, readValue: ValueReader, depth: number): Reading {
  if (value === null || value === undefined) return { letter: null, reason: 'refusal' };
  if (typeof value === 'number' || typeof value === 'boolean') return { letter: null, reason: 'invalid-answer' }; // 2: counted from 0 or 1?
  if (Array.isArray(value)) {
    if (value.length === 0) return { letter: null, reason: 'empty' };
    if (value.length === 1 || depth > 2) return readFieldValue(value[0], readValue, depth + 1);
    return { letter: null, reason: 'multiple' };
  }
  if (typeof value === 'object') {
    const inner = answerOfObject(value as Record<string, unknown>, depth + 1);
    return inner === undefined ? { letter: null, reason: 'invalid-answer' } : readFieldValue(inner, readValue, depth + 1);
  }
  const v = String(value).trim().replace(/^[*_"'“`\s]+|[*_"'”`\s]+$/g, '');
  if (v === '') return { letter: null, reason: 'empty' };
  const letter = /^(?:option\s+|choice\s+)?[(\[]?([A-Da-d])[)\].:]?$/i.exec(v);
  if (letter) return { letter: letter[1]!.toUpperCase() as 'A', rule: 'value', span: [0, 0] };
  if (/^[(\[]?[E-Ze-z][)\].:]?$/.test(v) || /^\d+$/.test(v)) return { letter: null, reason: 'invalid-answer' };
  // Read as text first: an option may itself say "Cannot be determined".
  const reading = readValue(v);
  if (reading.letter !== null || reading.reason !== 'no-match') return reading;
  if (/^(?:n\/?a|none|null|unknown|undetermined|indeterminate|cannot\s+(?:be\s+)?determine[d]?|unable\s+to\s+determine|not\s+applicable|-+)\.?$/i.test(v)) return { letter: null, reason: 'refusal' };
  return { letter: null, reason: 'invalid-answer' };
}

/** The answer field of an object (searched one level into nested objects), by key preference. */
function answerOfObject(object: Record<string, unknown>, depth: number): unknown {
  let best: { rank: number; value: unknown } | undefined;
  for (const [key, value] of Object.entries(object)) {
    const rank = KEY_RANK.get(foldKey(key));
    if (rank !== undefined && (!best || rank < best.rank)) best = { rank, value };
  }
  if (best) return best.value;
  if (depth > 3) return undefined;
  for (const value of Object.values(object)) {
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      const inner = answerOfObject(value as Record<string, unknown>, depth + 1);
      if (inner !== undefined) return inner;
    }
  }
  return undefined;
}

/** Objects longer than this are not an answer a model prints (and are not parsed). */
const MAX_OBJECT = 20_000;
/** How many of the last candidates of each structured kind are read. */
const LAST_CANDIDATES = 16;

/** `{…}` regions that parse as JSON or a Python dict and hold an answer field; one linear pass over the braces. */
function* objectAnswers(text: string): Generator<Found> {
  if (!text.includes('{')) return;
  let depth = 0;
  let start = -1;
  const regions: [number, number][] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 123) {
      if (depth === 0) start = i;
      depth++;
    } else if (c === 125 && depth > 0 && --depth === 0) regions.push([start, i + 1]);
  }
  // The last objects are the ones that can decide (the last answer counts); parsing every one of a brace flood is wasted.
  for (const [a, b] of regions.slice(-LAST_CANDIDATES)) {
    if (b - a > MAX_OBJECT) continue;
    const body = text.slice(a, b);
    let value: unknown;
    let rule: Found['rule'] = 'json';
    try {
      value = JSON.parse(body);
    } catch {
      value = parsePythonLiteral(body);
      rule = 'python-dict';
    }
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      const answer = answerOfObject(value as Record<string, unknown>, 0);
      if (answer !== undefined) yield { rule, value: answer, span: [a, b] };
      continue;
    }
    const loose = looseField(body);
    if (loose !== undefined) yield { rule: 'json', value: loose, span: [a, b] };
  }
  // An object cut off before its closing brace: its answer field still counts if it was written in full.
  if (depth > 0 && text.length - start <= MAX_OBJECT) {
    const loose = looseField(text.slice(start));
    if (loose !== undefined) yield { rule: 'json', value: loose, span: [start, text.length] };
  }
}

/** `answer: B` / `"answer": "B"` inside braces that are not valid JSON or Python. */
function looseField(body: string): string | undefined {
  const field = /["']?([A-Za-z_ ]{3,24})["']?\s*[:=]\s*(?:"([^"\n]{0,200})"|'([^'\n]{0,200})'|([A-Za-z0-9()]{1,3})(?=\s*[,}\n]|\s*$))/g;
  let best: { rank: number; value: string } | undefined;
  for (const m of body.matchAll(field)) {
    const rank = KEY_RANK.get(foldKey(m[1]!));
    if (rank !== undefined && (!best || rank < best.rank)) best = { rank, value: m[2] ?? m[3] ?? m[4]! };
  }
  return best?.value;
}

const TAG = /<\s*(\/?)\s*(final[_\s-]?answer|answer|choice|selected[_\s-]?option|option)\s*>/gi;

/** `<answer>B</answer>` (and final_answer, choice, option); an opened tag at the very end holds what follows it. */
function* tagAnswers(text: string): Generator<Found> {
  if (!text.includes('<')) return;
  let open: { name: string; end: number; start: number } | null = null;
  for (const m of text.matchAll(TAG)) {
    const name = m[2]!.toLowerCase().replace(/[_\s-]/g, '');
    if (!m[1]) open = { name, end: m.index + m[0].length, start: m.index };
    else if (open && open.name === name) {
      yield { rule: 'tag', value: text.slice(open.end, m.index), span: [open.start, m.index + m[0].length] };
      open = null;
    }
  }
  if (open && text.length - open.end <= 200) yield { rule: 'tag', value: text.slice(open.end), span: [open.start, text.length] };
}

/** `\boxed{B}`, `$\boxed{\text{B}}$`, `\boxed{B \text{ or } C}` (brace-matched within a short reach). */
function* boxedAnswers(text: string): Generator<Found> {
  if (!text.includes('\\')) return;
  for (const m of [...text.matchAll(/\\(?:boxed|fbox)\s*\{/g)].slice(-LAST_CANDIDATES)) {
    let depth = 1;
    let i = m.index + m[0].length;
    const limit = Math.min(text.length, i + 300);
    for (; i < limit && depth > 0; i++) {
      if (text[i] === '{') depth++;
      else if (text[i] === '}') depth--;
    }
    const inner = text.slice(m.index + m[0].length, depth === 0 ? i - 1 : i);
    const value = inner.replace(/\\(?:text|textbf|mathrm|mathbf|mathit|textrm|mbox)\s*\{([^{}]*)\}/g, '$1').replace(/[$\\]/g, ' ').replace(/\s+/g, ' ');
    yield { rule: 'boxed', value: depth === 0 ? value : '', span: [m.index, depth === 0 ? i : text.length] };
  }
}
