import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ISSUE_KINDS, type IssueCode } from '../core/dataset-issue.js';
import { officialRecord } from '../../test/helpers/records.js';
import { normalizeRecord } from './normalize.js';
import { parseRecordText } from './sources/parse-record-text.js';

const source = { file: 'metadata/train_vqa_data.json', key: 'q1', split: 'train' };

function without(field: string): Record<string, unknown> {
  const record = officialRecord();
  delete record[field];
  return record;
}

/** Parses record text the way the file readers do (bare NaN/None replaced), then normalises it. */
function fromText(text: string) {
  const parsed = parseRecordText(text, true);
  assert.ok(parsed.ok);
  return normalizeRecord(parsed.value, source);
}

interface Case {
  name: string;
  record: unknown;
  /** Every issue expected, as [code, field]. */
  issues: [IssueCode, string | null][];
  /** Whether a usable question results (defaults: no errors among the issues). */
  usable?: boolean;
  /** Checks on the resulting question. */
  check?: (q: NonNullable<ReturnType<typeof normalizeRecord>['question']>) => void;
}

const cases: Case[] = [
  { name: 'a canonical record needs nothing', record: officialRecord(), issues: [],
    check: (q) => {
      assert.deepEqual(q.options, ['Yes, small', 'Yes, large', 'No effusion', 'Cannot be determined']);
      assert.equal(q.answer, 'C');
      assert.deepEqual(q.images.map((i) => i.view), ['PA', 'LATERAL']);
      assert.equal(q.meta.Findings, 'No pleural effusion. Heart size normal.');
      assert.equal('options' in q.meta, false);
    } },
  // --- repairs ---
  { name: 'repair: ImagePath as a Python-quoted list', record: officialRecord({ ImagePath: "['../a.png', '../b.png']" }), issues: [['stringified-list', 'ImagePath']],
    check: (q) => assert.deepEqual(q.images.map((i) => i.path), ['../a.png', '../b.png']) },
  { name: 'repair: ImageViewPosition as a JSON-quoted list', record: officialRecord({ ImageViewPosition: '["PA", "LATERAL"]' }), issues: [['stringified-list', 'ImageViewPosition']],
    check: (q) => assert.deepEqual(q.images.map((i) => i.view), ['PA', 'LATERAL']) },
  { name: 'repair: options as a stringified list', record: officialRecord({ options: "['A. x', 'B. y', 'C. z', 'D. w']" }), issues: [['stringified-list', 'options']],
    check: (q) => assert.deepEqual(q.options, ['x', 'y', 'z', 'w']) },
  { name: 'repair: bare NaN in a report field', record: '{"question":"Q?","options":["A. a","B. b","C. c","D. d"],"correct_answer":"A","correct_answer_explanation":"Because the report says so.","task_name":"Presence Assessment","category":"c","subcategory":"s","study_id":"s1","ImagePath":["../x.png"],"ImageViewPosition":["PA"],"StudyInstanceUid":"u","ImageModality":"CR","PatientID":"p","PatientAge":NaN,"PatientSex":"F","StudyDate":"d","Indication":"i","Findings":NaN,"Impression":"x","class":"c","validation_code":"v"}',
    issues: [['nan-literal', 'PatientAge'], ['nan-literal', 'Findings']], check: (q) => assert.equal(q.meta.Findings, null) },
  { name: 'repair: bare None', record: '{"question":"Q?","options":["A. a","B. b","C. c","D. d"],"correct_answer":"A","correct_answer_explanation":"Because the report says so.","task_name":"Presence Assessment","category":"c","subcategory":"s","study_id":"s1","ImagePath":["../x.png"],"ImageViewPosition":["PA"],"StudyInstanceUid":"u","ImageModality":"CR","PatientID":"p","PatientAge":"1","PatientSex":"F","StudyDate":"d","Indication":None,"Findings":"f","Impression":"x","class":"c","validation_code":"v"}',
    issues: [['python-none-literal', 'Indication']] },
  { name: 'repair: the string "None" in a report field', record: officialRecord({ Impression: 'None' }), issues: [['none-string', 'Impression']], check: (q) => assert.equal(q.meta.Impression, null) },
  { name: 'repair: option prefixes A) / B - / (C) / D:', record: officialRecord({ options: ['A) x', 'B - y', '(C) z', 'D: w'] }), issues: [['option-prefix', 'options'], ['option-prefix', 'options'], ['option-prefix', 'options'], ['option-prefix', 'options']],
    check: (q) => assert.deepEqual(q.options, ['x', 'y', 'z', 'w']) },
  { name: 'repair: lowercase option prefixes', record: officialRecord({ options: ['a. x', 'b. y', 'C. z', 'D. w'] }), issues: [['option-prefix', 'options'], ['option-prefix', 'options']] },
  { name: 'repair: options without prefix', record: officialRecord({ options: ['x', 'y', 'C. z', 'D. w'] }), issues: [['option-prefix-missing', 'options'], ['option-prefix-missing', 'options']],
    check: (q) => assert.deepEqual(q.options, ['x', 'y', 'z', 'w']) },
  { name: 'repair: lowercase answer letter', record: officialRecord({ correct_answer: 'c' }), issues: [['answer-lowercase', 'correct_answer']], check: (q) => assert.equal(q.answer, 'C') },
  { name: 'repair: answer "C." ', record: officialRecord({ correct_answer: 'C.' }), issues: [['answer-format', 'correct_answer']], check: (q) => assert.equal(q.answer, 'C') },
  { name: 'repair: answer "(b)"', record: officialRecord({ correct_answer: '(b)' }), issues: [['answer-format', 'correct_answer']], check: (q) => assert.equal(q.answer, 'B') },
  { name: 'repair: answer with its option text', record: officialRecord({ correct_answer: 'C. No effusion' }), issues: [['answer-format', 'correct_answer']], check: (q) => assert.equal(q.answer, 'C') },
  { name: 'repair: answer as the option text alone', record: officialRecord({ correct_answer: 'no effusion' }), issues: [['answer-format', 'correct_answer']], check: (q) => assert.equal(q.answer, 'C') },
  { name: 'repair: task name in another case', record: officialRecord({ task_name: 'negation_assessment' }), issues: [['task-name-case', 'task_name']], check: (q) => assert.equal(q.task, 'Negation Assessment') },
  { name: 'repair: numeric study_id', record: officialRecord({ study_id: 1234 }), issues: [['number-as-string', 'study_id']], check: (q) => assert.equal(q.studyId, '1234') },
  { name: 'repair: leading slash in an image path', record: officialRecord({ ImagePath: ['/mimic/p1.png'], ImageViewPosition: ['AP'] }), issues: [['path-leading-slash', 'ImagePath']],
    check: (q) => assert.equal(q.images[0]!.path, 'mimic/p1.png') },
  { name: 'repair: optional fields absent', record: (() => { const r = without('Findings'); delete r.PatientAge; return r; })(), issues: [['optional-field-missing', 'PatientAge'], ['optional-field-missing', 'Findings']],
    check: (q) => assert.equal('Findings' in q.meta, false) },
  { name: 'repair: ImageViewPosition absent', record: without('ImageViewPosition'), issues: [['optional-field-missing', 'ImageViewPosition']], check: (q) => assert.deepEqual(q.images.map((i) => i.view), [null, null]) },
  // --- v1 schema ---
  { name: 'v1: record is a list', record: [1, 2], issues: [['record-not-object', null]] },
  { name: 'v1: record is null', record: null, issues: [['record-not-object', null]] },
  ...(['question', 'options', 'correct_answer', 'task_name', 'study_id', 'ImagePath'] as const).map((field): Case => ({
    name: `v1: required field ${field} absent`, record: without(field), issues: [['missing-field', field]],
  })),
  // --- v2 types ---
  { name: 'v2: question is a number', record: officialRecord({ question: { text: 'x' } }), issues: [['wrong-type', 'question']] },
  { name: 'v2: options is an object', record: officialRecord({ options: { A: 'x' } }), issues: [['wrong-type', 'options']] },
  { name: 'v2: options is a string that is not a list', record: officialRecord({ options: 'A. x B. y' }), issues: [['wrong-type', 'options']] },
  { name: 'v2: an option is an object', record: officialRecord({ options: ['A. x', { t: 1 }, 'C. z', 'D. w'] }), issues: [['wrong-type', 'options']] },
  { name: 'v2: ImagePath holds a number', record: officialRecord({ ImagePath: [3], ImageViewPosition: ['PA'] }), issues: [['wrong-type', 'ImagePath']] },
  { name: 'v2: category is a list', record: officialRecord({ category: ['x'] }), issues: [['wrong-type', 'category']] },
  { name: 'v2: explanation is a number', record: officialRecord({ correct_answer_explanation: 5 }), issues: [['wrong-type', 'correct_answer_explanation']] },
  // --- v3 format ---
  { name: 'v3: three options', record: officialRecord({ options: ['A. x', 'B. y', 'C. z'] }), issues: [['option-count', 'options']] },
  { name: 'v3: five options', record: officialRecord({ options: ['A. x', 'B. y', 'C. z', 'D. w', 'E. v'] }), issues: [['option-count', 'options']] },
  { name: 'v3: an option with a letter but no text', record: officialRecord({ options: ['A. x', 'B. ', 'C. z', 'D. w'] }), issues: [['option-empty', 'options']] },
  { name: 'v3: an empty option', record: officialRecord({ options: ['A. x', '', 'C. z', 'D. w'] }), issues: [['option-empty', 'options']] },
  { name: 'v3: options out of letter order', record: officialRecord({ options: ['B. x', 'A. y', 'C. z', 'D. w'] }), issues: [['option-letter-order', 'options'], ['option-letter-order', 'options']] },
  { name: 'v3: duplicate options (case and inner spacing ignored)', record: officialRecord({ options: ['A. Yes  it is', 'B. No', 'C. YES it is', 'D. Maybe'] }), issues: [['duplicate-options', 'options']] },
  { name: 'v3: answer E', record: officialRecord({ correct_answer: 'E' }), issues: [['answer-invalid', 'correct_answer']] },
  { name: 'v3: answer AB', record: officialRecord({ correct_answer: 'A/B' }), issues: [['answer-invalid', 'correct_answer']] },
  { name: 'v3: answer with conflicting option text', record: officialRecord({ correct_answer: 'A. No effusion' }), issues: [['answer-invalid', 'correct_answer']] },
  { name: 'v3: short explanation', record: officialRecord({ correct_answer_explanation: 'See report.' }), issues: [['explanation-short', 'correct_answer_explanation']] },
  { name: 'v3: fewer view positions than images', record: officialRecord({ ImageViewPosition: ['PA'] }), issues: [['view-count-mismatch', 'ImageViewPosition']],
    check: (q) => assert.deepEqual(q.images.map((i) => i.view), ['PA', null]) },
  // --- v4 completeness ---
  { name: 'v4: empty question', record: officialRecord({ question: '   ' }), issues: [['empty-question', 'question']] },
  { name: 'v4: null answer', record: officialRecord({ correct_answer: null }), issues: [['empty-field', 'correct_answer']] },
  { name: 'v4: empty study_id', record: officialRecord({ study_id: '' }), issues: [['empty-field', 'study_id']] },
  { name: 'v4: no image', record: officialRecord({ ImagePath: [], ImageViewPosition: [] }), issues: [['empty-field', 'ImagePath']] },
  { name: 'v4: no explanation', record: without('correct_answer_explanation'), issues: [['missing-explanation', 'correct_answer_explanation']] },
  { name: 'v4: explanation "None"', record: officialRecord({ correct_answer_explanation: 'None' }), issues: [['none-string', 'correct_answer_explanation'], ['missing-explanation', 'correct_answer_explanation']] },
  // --- integrity (per record) ---
  { name: 'integrity: unknown task name', record: officialRecord({ task_name: 'Counting' }), issues: [['unknown-task', 'task_name']], check: (q) => assert.equal(q.task, 'Counting') },
  { name: 'integrity: missing category', record: without('category'), issues: [['missing-category', 'category']], check: (q) => assert.equal(q.category, null) },
  { name: 'integrity: empty subcategory', record: officialRecord({ subcategory: '' }), issues: [['missing-subcategory', 'subcategory']] },
  // --- several problems at once are all reported ---
  { name: 'every problem of a record is reported, not the first', record: officialRecord({ question: '', options: ['A. x'], correct_answer: 'Z', task_name: 'Other', category: null }),
    issues: [['empty-question', 'question'], ['option-count', 'options'], ['answer-invalid', 'correct_answer'], ['unknown-task', 'task_name'], ['missing-category', 'category']] },
];

for (const c of cases) {
  test(`normalize: ${c.name}`, () => {
    const result = typeof c.record === 'string' ? fromText(c.record) : normalizeRecord(c.record, source);
    assert.deepEqual(result.issues.map((i) => [i.code, i.field]), c.issues);
    for (const found of result.issues) {
      assert.equal(found.severity, ISSUE_KINDS[found.code].severity);
      assert.equal(found.file, source.file);
      assert.equal(found.key, source.key);
      assert.ok(found.message.length > 0);
    }
    const usable = c.usable ?? !c.issues.some(([code]) => ISSUE_KINDS[code].severity === 'error');
    assert.equal(result.question !== null, usable);
    if (result.question && c.check) c.check(result.question);
  });
}

test('normalize: every issue code of the catalogue except cross-record and file ones is exercised above', () => {
  const exercised = new Set(cases.flatMap((c) => c.issues.map(([code]) => code)));
  const elsewhere = new Set<IssueCode>(['json-syntax', 'file-unreadable', 'file-empty', 'duplicate-key', 'image-missing', 'study-in-two-splits', 'question-in-two-splits']);
  const missing = Object.keys(ISSUE_KINDS).filter((code) => !exercised.has(code as IssueCode) && !elsewhere.has(code as IssueCode));
  assert.deepEqual(missing, []);
});
