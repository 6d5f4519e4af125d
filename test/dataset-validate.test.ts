import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { detectLayout } from '../src/dataset/layout.js';
import { validateDataset } from '../src/dataset/validate.js';
import { computeStats } from '../src/dataset/stats.js';
import { officialRecord, tempDir, writeOfficialDataset } from './helpers/records.js';

const codes = (issues: { code: string; key: string | null }[]) => issues.map((i) => [i.code, i.key]);

test('validate: a clean two-split dataset is valid and counts every question', async () => {
  const root = writeOfficialDataset({
    train: { t1: officialRecord(), t2: officialRecord({ question: 'Is the heart enlarged?', study_id: 's2' }) },
    test: { x1: officialRecord({ study_id: 's3', question: 'Is there a pneumothorax?' }) },
  });
  const report = await validateDataset(detectLayout(root));
  assert.deepEqual(report.errors, []);
  assert.deepEqual(report.warnings, []);
  assert.deepEqual(report.repaired, []);
  assert.deepEqual(report.counts, {
    files: 2, records: 3, questions: 3, excluded: 0, errors: 0, warnings: 0, repaired: 0, byCode: {}, bySplit: { train: 2, test: 1 },
    byTask: { train: { 'Negation Assessment': 2 }, test: { 'Negation Assessment': 1 } },
  });
});

test('validate: the same study in two splits is a leakage error, reported once per study and pair of splits', async () => {
  const root = writeOfficialDataset({
    train: { t1: officialRecord({ study_id: 'S' }), t2: officialRecord({ study_id: 'S', question: 'Other?' }) },
    valid: { v1: officialRecord({ study_id: 'S', question: 'Third?' }), v2: officialRecord({ study_id: 'S', question: 'Fourth?' }) },
  });
  const report = await validateDataset(detectLayout(root));
  assert.equal(report.errors.length, 1);
  assert.equal(report.errors[0]!.code, 'study-in-two-splits');
  assert.equal(report.errors[0]!.field, 'study_id');
  assert.equal(report.errors[0]!.key, 'v1');
  assert.match(report.errors[0]!.file, /valid_vqa_data\.json$/);
  assert.equal(report.errors[0]!.message, 'study S has questions in train (e.g. "t1") and in valid');
  assert.deepEqual(report.counts.bySplit, { train: 0, valid: 0 }, 'every question of a leaking study is unusable, in both splits');
  assert.equal(report.counts.excluded, 4);
});

test('validate: the same question text and options in two splits is a warning naming both keys', async () => {
  const same = { question: 'Is there an effusion?' };
  const root = writeOfficialDataset({
    train: { t1: officialRecord({ ...same, study_id: 'a' }), t2: officialRecord({ study_id: 'b', question: 'Unrelated?' }) },
    test: { x1: officialRecord({ ...same, question: '  is there an EFFUSION? ', study_id: 'c' }) },
  });
  const report = await validateDataset(detectLayout(root));
  assert.deepEqual(codes(report.warnings), [['question-in-two-splits', report.warnings[0]!.key]]);
  const w = report.warnings[0]!;
  const pair = new Set([w.key, /"(\w+)"/.exec(w.message)![1]]);
  assert.deepEqual(pair, new Set(['t1', 'x1']));
});

test('validate: the same question twice inside one split is not flagged', async () => {
  const root = writeOfficialDataset({ train: { t1: officialRecord({ study_id: 'a' }), t2: officialRecord({ study_id: 'b' }) }, test: { x: officialRecord({ study_id: 'c', question: 'Different?' }) } });
  const report = await validateDataset(detectLayout(root));
  assert.deepEqual(report.warnings, []);
});

test('validate: a repeated key in one file is an error; neither copy is usable', async () => {
  const text = `{"k": ${JSON.stringify(officialRecord())},\n"other": ${JSON.stringify(officialRecord({ question: 'fine', study_id: 's2' }))},\n"k": ${JSON.stringify(officialRecord({ question: 'second' }))}}`;
  const root = writeOfficialDataset({ train: text });
  const report = await validateDataset(detectLayout(root));
  assert.deepEqual(codes(report.errors), [['duplicate-key', 'k']]);
  assert.match(report.errors[0]!.message, /line 3/);
  assert.equal(report.counts.questions, 1);
  assert.equal(report.counts.excluded, 2);
});

test('validate: missing image files are errors only when images are checked, once per image', async () => {
  const root = writeOfficialDataset({ train: { a: officialRecord(), b: officialRecord({ question: 'Again?' }) } });
  const present = join(root, 'deid_png/P1/A1/studies/S1/series/R1/instances');
  mkdirSync(present, { recursive: true });
  writeFileSync(join(present, 'I1.png'), 'png');
  assert.deepEqual((await validateDataset(detectLayout(root))).errors, []);
  const report = await validateDataset(detectLayout(root), { images: 'default' });
  assert.deepEqual(codes(report.errors), [['image-missing', 'a']]);
  assert.match(report.errors[0]!.message, /I2\.png/);
  // An explicit image root: paths are joined to it after dropping the leading ../
  const elsewhere = tempDir();
  mkdirSync(join(elsewhere, 'deid_png/P1/A1/studies/S1/series/R1/instances'), { recursive: true });
  for (const f of ['I1.png', 'I2.png']) writeFileSync(join(elsewhere, 'deid_png/P1/A1/studies/S1/series/R1/instances', f), 'png');
  assert.deepEqual((await validateDataset(detectLayout(root), { images: elsewhere })).errors, []);
});

test('validate: a broken file structure is reported with line and column; other files are still read', async () => {
  const good = JSON.stringify({ a: officialRecord({ study_id: 'other', question: 'Other?' }) });
  const root = writeOfficialDataset({ train: `{\n"a": ${JSON.stringify(officialRecord())}\n"b": {}}`, test: good.replace('"a"', '"z"') });
  const report = await validateDataset(detectLayout(root));
  assert.equal(report.errors.length, 1);
  const e = report.errors[0]!;
  assert.equal(e.code, 'json-syntax');
  assert.equal(e.key, null);
  assert.match(e.file, /train_vqa_data\.json$/);
  assert.match(e.message, /expected ',' or '}' after the value of key "a", found '"' at line 3, column 1/);
  assert.match(e.message, /1 record\(s\) before it were read/);
  assert.deepEqual(report.counts.bySplit, { train: 1, test: 1 });
});

test('validate: a record that is not JSON inside a good structure is reported and skipped; the scan goes on', async () => {
  const text = `{\n"a": {"question": tru},\n"b": ${JSON.stringify(officialRecord())}\n}`;
  const report = await validateDataset(detectLayout(writeOfficialDataset({ train: text })));
  assert.deepEqual(codes(report.errors), [['json-syntax', 'a']]);
  assert.match(report.errors[0]!.message, /line 2/);
  assert.equal(report.counts.questions, 1);
});

test('validate: errors are listed in split order, records in file order, whatever order files were read in', async () => {
  const bad = (q: string) => officialRecord({ correct_answer: 'X', question: q });
  const big: Record<string, unknown> = {};
  for (let i = 0; i < 30; i++) big[`t${i}`] = officialRecord({ study_id: `s${i}`, question: `Q${i}?` });
  big.tbad = bad('train bad');
  const root = writeOfficialDataset({ train: big, valid: { v: bad('valid bad') }, test: { x: bad('test bad') } });
  const report = await validateDataset(detectLayout(root));
  assert.deepEqual(report.errors.map((e) => e.key), ['tbad', 'v', 'x']);
});

test('validate: repairs are summarised by kind with examples and exact totals', async () => {
  const records: Record<string, unknown> = {};
  for (let i = 0; i < 8; i++) records[`k${i}`] = officialRecord({ correct_answer: 'c', study_id: `s${i}`, question: `Q${i}?`, ImagePath: "['../a.png', '../b.png']" });
  const report = await validateDataset(detectLayout(writeOfficialDataset({ train: records })));
  assert.deepEqual(report.repaired.map((r) => [r.code, r.field, r.count, r.examples.length]), [
    ['answer-lowercase', 'correct_answer', 8, 5],
    ['stringified-list', 'ImagePath', 8, 5],
  ]);
  assert.equal(report.counts.repaired, 16);
  assert.equal(report.counts.errors, 0);
});

test('validate: an empty file is a warning', async () => {
  const report = await validateDataset(detectLayout(writeOfficialDataset({ train: '{}', test: { a: officialRecord() } })));
  assert.deepEqual(codes(report.warnings), [['file-empty', null]]);
});

test('usable: validate and stats (with --images) agree per split and task — neither copy of a repeated key, no question of a leaking study, none with a missing image, no record with an error', async () => {
  const root = tempDir();
  const imageDir = join(root, 'deid_png/P1/A1/studies/S1/series/R1/instances');
  mkdirSync(imageDir, { recursive: true });
  for (const f of ['I1.png', 'I2.png']) writeFileSync(join(imageDir, f), 'png');
  const withImage = (study: string, extra: Record<string, unknown>) => officialRecord({ study_id: study, ...extra });
  const presence = { task_name: 'Presence Assessment' };
  const location = { task_name: 'Location and Distribution Assessment' };
  const train = [
    `"t1": ${JSON.stringify(withImage('a', { question: 'Q1?' }))}`,
    `"dup": ${JSON.stringify(withImage('b', { question: 'Q2?', ...presence }))}`, // repeated below: neither copy counts
    `"t3": ${JSON.stringify(withImage('leak', { question: 'Q3?', ...location }))}`, // study also in test
    `"t4": ${JSON.stringify(withImage('c', { question: 'Q4?', ...presence }))}`,
    `"bad": ${JSON.stringify(withImage('d', { question: 'Q5?', correct_answer: 'E' }))}`,
    `"dup": ${JSON.stringify(withImage('b', { question: 'Q6?', ...presence }))}`,
    `"t7": ${JSON.stringify(withImage('e', { question: 'Q7?', ImagePath: ['../deid_png/P1/A1/studies/S1/series/R1/instances/I1.png', '../deid_png/missing.png'] }))}`,
  ];
  writeOfficialDataset({
    train: `{${train.join(',\n')}}`,
    test: { x1: withImage('leak', { question: 'Q8?' }), x2: withImage('f', { question: 'Q9?', ...location }), x3: withImage('g', { question: 'Q10?' }) },
  }, root);
  const layout = detectLayout(root);
  const report = await validateDataset(layout, { images: 'default' });
  const stats = await computeStats(layout, { images: 'default' });
  const expected = {
    train: { 'Negation Assessment': 1, 'Presence Assessment': 1 }, // t1, t4
    test: { 'Location and Distribution Assessment': 1, 'Negation Assessment': 1 }, // x2, x3
  };
  assert.deepEqual(report.counts.byTask, expected);
  assert.deepEqual(report.counts.bySplit, { train: 2, test: 2 });
  assert.equal(report.counts.records, 10);
  assert.equal(report.counts.excluded, 6);
  for (const [split, tasks] of Object.entries(expected)) {
    const s = stats.splits[split]!;
    assert.deepEqual(Object.fromEntries(Object.entries(s.byTask).map(([t, c]) => [t, c.count])), tasks, split);
    assert.equal(s.total, (report.counts.bySplit as Record<string, number>)[split]);
  }
  assert.equal(stats.splits.train!.excluded + stats.splits.test!.excluded, report.counts.excluded);
  // Without --images the question with a missing image is usable again, in both.
  const plain = await validateDataset(layout);
  assert.equal(plain.counts.bySplit.train, 3);
  assert.equal((await computeStats(layout)).splits.train!.total, 3);
});
