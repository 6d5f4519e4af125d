import { issue, type DatasetIssue, type IssueCode } from '../core/dataset-issue.js';
import { LETTERS, TASK_NAMES, isTaskName, type ImageRef, type Letter, type Question } from '../core/question.js';
import { NAN_SENTINEL, NONE_SENTINEL } from './bare-words.js';
import { cleanImagePath, describeType, readListValue } from './fields.js';

/** Fields that make a usable question: a record without one is an error and is left out. */
export const REQUIRED_FIELDS = ['question', 'options', 'correct_answer', 'task_name', 'study_id', 'ImagePath'] as const;

/** Fields the official records carry that a question can do without; absent ones are counted as repairs. */
export const OPTIONAL_FIELDS = [
  'StudyInstanceUid', 'ImageViewPosition', 'ImageModality', 'PatientID', 'PatientAge', 'PatientSex', 'StudyDate',
  'Indication', 'Findings', 'Impression', 'class', 'validation_code',
] as const;

/** Fields held in typed `Question` properties; all others are kept verbatim in `Question.meta`. */
const CORE_FIELDS = new Set<string>([
  ...REQUIRED_FIELDS, 'correct_answer_explanation', 'category', 'subcategory', 'ImageViewPosition',
]);

/** Explanations shorter than this are flagged (paper validator v3 requires a minimum length). */
export const MIN_EXPLANATION_LENGTH = 20;

/** Where a record came from, for issue locations. */
export interface RecordSource {
  file: string;
  key: string;
  split: string;
}

/** The outcome of normalising one record: a question, or null when an error made it unusable; and every issue found. */
export interface NormalizedRecord {
  question: Question | null;
  issues: DatasetIssue[];
}

/** Turns one parsed record into a {@link Question}, repairing what real files contain and reporting every problem. */
export function normalizeRecord(raw: unknown, source: RecordSource): NormalizedRecord {
  const ctx = new RecordIssues(source);
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    ctx.add('record-not-object', null, `record is ${describeType(raw)}, expected an object`);
    return { question: null, issues: ctx.issues };
  }
  const record = repairLiterals(raw as Record<string, unknown>, ctx);

  const text = requiredString(record, 'question', ctx, 'empty-question');
  const options = readOptions(record, ctx);
  const answer = readAnswer(record, options, ctx);
  const task = readTask(record, ctx);
  const studyId = requiredString(record, 'study_id', ctx, 'empty-field');
  const images = readImages(record, ctx);
  const explanation = readExplanation(record, ctx);
  const category = readLabel(record, 'category', 'missing-category', ctx);
  const subcategory = readLabel(record, 'subcategory', 'missing-subcategory', ctx);
  for (const field of OPTIONAL_FIELDS) {
    if (!(field in record)) ctx.add('optional-field-missing', field, `optional field ${field} is absent`);
  }

  const meta: Record<string, unknown> = {};
  for (const field in record) if (!CORE_FIELDS.has(field)) meta[field] = record[field];

  if (ctx.hasError || text === null || options === null || answer === null || task === null || studyId === null || images === null) {
    return { question: null, issues: ctx.issues };
  }
  const question: Question = {
    id: source.key, split: source.split, studyId, text, options, answer, task, category, subcategory, explanation, images, meta,
  };
  return { question, issues: ctx.issues };
}

/** Collects the issues of one record. */
class RecordIssues {
  readonly issues: DatasetIssue[] = [];
  hasError = false;
  constructor(private readonly source: RecordSource) {}
  add(code: IssueCode, field: string | null, message: string): void {
    const found = issue(code, this.source.file, this.source.key, field, message);
    if (found.severity === 'error') this.hasError = true;
    this.issues.push(found);
  }
}

/**
 * Replaces NaN/None sentinels (see bare-words.ts) and the string "None" by null, field by field, and counts
 * each. Works in place on the freshly parsed record (the caller owns it): copying a record per question was a
 * measurable part of reading a 573K-record file.
 */
function repairLiterals(record: Record<string, unknown>, ctx: RecordIssues): Record<string, unknown> {
  for (const field in record) {
    const value = record[field];
    if (typeof value === 'string') {
      if (value === 'None' || value.charCodeAt(0) === 0) record[field] = repairValue(value, field, ctx, true);
    } else if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        if (typeof item === 'string' && item.charCodeAt(0) === 0) value[i] = repairValue(item, field, ctx, false);
      }
    }
  }
  return record;
}

function repairValue(value: string, field: string, ctx: RecordIssues, topLevel: boolean): unknown {
  if (value === NAN_SENTINEL) {
    ctx.add('nan-literal', field, `bare NaN in ${field} read as null`);
    return null;
  }
  if (value === NONE_SENTINEL) {
    ctx.add('python-none-literal', field, `bare None in ${field} read as null`);
    return null;
  }
  // The string "None" is how pandas/Python write a missing value; in the question text it could be meant.
  if (topLevel && value === 'None' && field !== 'question') {
    ctx.add('none-string', field, `"None" in ${field} read as null`);
    return null;
  }
  return value;
}

function requiredString(record: Record<string, unknown>, field: string, ctx: RecordIssues, emptyCode: IssueCode): string | null {
  if (!(field in record)) {
    ctx.add('missing-field', field, `required field ${field} is absent`);
    return null;
  }
  let value = record[field];
  if (typeof value === 'number' && Number.isFinite(value)) {
    ctx.add('number-as-string', field, `${field} is the number ${value}; read as the string "${value}"`);
    value = String(value);
  }
  if (value === null || (typeof value === 'string' && value.trim() === '')) {
    ctx.add(emptyCode, field, `${field} is empty`);
    return null;
  }
  if (typeof value !== 'string') {
    ctx.add('wrong-type', field, `${field} is ${describeType(value)}, expected a string`);
    return null;
  }
  return value;
}

/** Reads a list field that may arrive as a stringified JSON/Python list. Returns undefined when absent. */
function readList(record: Record<string, unknown>, field: string, ctx: RecordIssues): unknown[] | null | undefined {
  if (!(field in record)) return undefined;
  return readListValue(record[field], field, ctx.add.bind(ctx));
}

// "A. x" (canonical), "A) x", "A: x", "A - x", "(A) x", lowercase letters too.
const OPTION_PREFIX = /^\s*(?:\(([A-Da-d])\)|([A-Da-d])\s*(?:[.):]|-\s))\s*/;

function readOptions(record: Record<string, unknown>, ctx: RecordIssues): Question['options'] | null {
  const list = readList(record, 'options', ctx);
  if (list === undefined) {
    ctx.add('missing-field', 'options', 'required field options is absent');
    return null;
  }
  if (list === null) {
    if (record.options === null) ctx.add('empty-field', 'options', 'options is empty');
    return null;
  }
  if (list.length !== 4) {
    ctx.add('option-count', 'options', `expected 4 options, found ${list.length}`);
    return null;
  }
  const texts: string[] = [];
  let ok = true;
  list.forEach((item, index) => {
    const letter = LETTERS[index]!;
    const text = readOption(item, letter, ctx);
    if (text === null) ok = false;
    else texts.push(text);
  });
  if (!ok) return null;
  const seen = new Map<string, Letter>();
  texts.forEach((text, index) => {
    const norm = text.trim().replace(/\s+/g, ' ').toLowerCase();
    const earlier = seen.get(norm);
    if (earlier) {
      ok = false;
      ctx.add('duplicate-options', 'options', `options ${earlier} and ${LETTERS[index]} have the same text "${text.slice(0, 60)}"`);
    } else seen.set(norm, LETTERS[index]!);
  });
  return ok ? (texts as Question['options']) : null;
}

function readOption(item: unknown, letter: Letter, ctx: RecordIssues): string | null {
  if (typeof item === 'number') {
    ctx.add('number-as-string', 'options', `option ${letter} is the number ${item}; read as text`);
    item = String(item);
  }
  if (item === null || (typeof item === 'string' && item.trim() === '')) {
    ctx.add('option-empty', 'options', `option ${letter} is empty`);
    return null;
  }
  if (typeof item !== 'string') {
    ctx.add('wrong-type', 'options', `option ${letter} is ${describeType(item)}, expected a string`);
    return null;
  }
  const match = OPTION_PREFIX.exec(item);
  if (!match) {
    ctx.add('option-prefix-missing', 'options', `option ${letter} has no letter prefix: "${item.slice(0, 40)}"`);
    return item.trim();
  }
  const found = (match[1] ?? match[2]!).toUpperCase();
  if (found !== letter) {
    ctx.add('option-letter-order', 'options', `option in position ${letter} is prefixed ${found}: "${item.slice(0, 40)}"`);
    return null;
  }
  const text = item.slice(match[0].length).trim();
  if (text === '') {
    ctx.add('option-empty', 'options', `option ${letter} has a letter but no text`);
    return null;
  }
  if (!item.startsWith(`${letter}. `) || item.slice(3) !== text) {
    ctx.add('option-prefix', 'options', `option ${letter} written "${item.slice(0, match[0].length).trim()}"; normalised to "${letter}."`);
  }
  return text;
}

// "B.", "(B)", "B)", "B:", "B. Left lower lobe", "Option B"
const ANSWER_WITH_DECORATION = /^(?:option\s+)?\(?([A-Da-d])\)?(?:[.):]|\s|$)/i;

function readAnswer(record: Record<string, unknown>, options: Question['options'] | null, ctx: RecordIssues): Letter | null {
  const raw = requiredString(record, 'correct_answer', ctx, 'empty-field');
  if (raw === null) return null;
  const value = raw.trim();
  if (/^[A-D]$/.test(value)) return value as Letter;
  if (/^[a-d]$/.test(value)) {
    ctx.add('answer-lowercase', 'correct_answer', `answer "${value}" upper-cased`);
    return value.toUpperCase() as Letter;
  }
  const decorated = ANSWER_WITH_DECORATION.exec(value);
  if (decorated && value.length <= 3 + (options ? Math.max(...options.map((o) => o.length)) : 200)) {
    const letter = decorated[1]!.toUpperCase() as Letter;
    const rest = value.slice(decorated[0].length).trim();
    const optionText = options?.[LETTERS.indexOf(letter)];
    if (rest === '' || optionText === undefined || sameText(rest, optionText)) {
      ctx.add('answer-format', 'correct_answer', `answer "${value.slice(0, 60)}" read as ${letter}`);
      return letter;
    }
  }
  if (options) {
    const byText = options.findIndex((o) => sameText(o, value));
    if (byText !== -1) {
      const letter = LETTERS[byText]!;
      ctx.add('answer-format', 'correct_answer', `answer given as option text; read as ${letter}`);
      return letter;
    }
  }
  ctx.add('answer-invalid', 'correct_answer', `answer "${value.slice(0, 60)}" is not one of A, B, C, D`);
  return null;
}

function sameText(a: string, b: string): boolean {
  const norm = (s: string) => s.trim().replace(/\s+/g, ' ').replace(/[.\s]+$/, '').toLowerCase();
  return norm(a) === norm(b);
}

const TASK_BY_FOLDED_NAME = new Map<string, string>(TASK_NAMES.map((t) => [foldTaskName(t), t]));

function foldTaskName(name: string): string {
  return name.toLowerCase().replace(/[\s_-]+/g, ' ').trim();
}

function readTask(record: Record<string, unknown>, ctx: RecordIssues): string | null {
  const value = requiredString(record, 'task_name', ctx, 'empty-field');
  if (value === null) return null;
  if (isTaskName(value)) return value;
  const known = TASK_BY_FOLDED_NAME.get(foldTaskName(value));
  if (known) {
    ctx.add('task-name-case', 'task_name', `task "${value}" read as "${known}"`);
    return known;
  }
  ctx.add('unknown-task', 'task_name', `task "${value}" is not one of: ${TASK_NAMES.join(', ')}`);
  return value;
}

function readImages(record: Record<string, unknown>, ctx: RecordIssues): ImageRef[] | null {
  const paths = readList(record, 'ImagePath', ctx);
  if (paths === undefined) {
    ctx.add('missing-field', 'ImagePath', 'required field ImagePath is absent');
    return null;
  }
  if (paths === null || paths.length === 0) {
    ctx.add('empty-field', 'ImagePath', 'ImagePath lists no image');
    return null;
  }
  const views = readList(record, 'ImageViewPosition', ctx) ?? null;
  if (views && views.length !== paths.length) {
    ctx.add('view-count-mismatch', 'ImageViewPosition', `${paths.length} image path(s) but ${views.length} view position(s)`);
  }
  const images: ImageRef[] = [];
  for (const [index, path] of paths.entries()) {
    if (typeof path !== 'string' || path.trim() === '') {
      ctx.add('wrong-type', 'ImagePath', `image path ${index + 1} is ${typeof path === 'string' ? 'empty' : describeType(path)}, expected a path`);
      return null;
    }
    const clean = cleanImagePath(path, ctx.add.bind(ctx));
    const view = views?.[index];
    images.push({ path: clean, view: typeof view === 'string' && view.trim() !== '' ? view.trim() : null });
  }
  return images;
}

function readExplanation(record: Record<string, unknown>, ctx: RecordIssues): string | null {
  const value = record.correct_answer_explanation;
  if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) {
    ctx.add('missing-explanation', 'correct_answer_explanation', 'no explanation for the correct answer');
    return null;
  }
  if (typeof value !== 'string') {
    ctx.add('wrong-type', 'correct_answer_explanation', `correct_answer_explanation is ${describeType(value)}, expected a string`);
    return null;
  }
  if (value.trim().length < MIN_EXPLANATION_LENGTH) {
    ctx.add('explanation-short', 'correct_answer_explanation', `explanation is ${value.trim().length} characters: "${value.trim()}"`);
  }
  return value;
}

function readLabel(record: Record<string, unknown>, field: 'category' | 'subcategory', missingCode: IssueCode, ctx: RecordIssues): string | null {
  let value = record[field];
  if (typeof value === 'number') {
    ctx.add('number-as-string', field, `${field} is the number ${value}; read as text`);
    value = String(value);
  }
  if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) {
    ctx.add(missingCode, field, `no ${field}`);
    return null;
  }
  if (typeof value !== 'string') {
    ctx.add('wrong-type', field, `${field} is ${describeType(value)}, expected a string`);
    return null;
  }
  return value;
}
