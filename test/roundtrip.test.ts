import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { collect } from './helpers/collect.js';
import type { Question } from '../src/core/question.js';
import { detectLayout } from '../src/dataset/layout.js';
import { readQuestions } from '../src/dataset/read-dataset.js';
import { validateDataset } from '../src/dataset/validate.js';
import { readJsonl, toJsonlLine, writeJsonl } from '../src/dataset/sources/jsonl.js';
import { writeRexvqaJson } from '../src/dataset/sources/rexvqa-json-write.js';
import { DEMO_DATASET } from '../src/cli/commands/demo-dataset.js';
import { officialRecord, tempDir, writeOfficialDataset } from './helpers/records.js';


test('round trip: official JSON → questions → JSONL → questions → official JSON is lossless', async () => {
  const records = {
    q1: officialRecord(),
    'q 2 "é"': officialRecord({ question: 'Where?\nMultiline "quoted"', study_id: 's2', extra_field: { nested: [1, null, 'x'] }, ImageViewPosition: ['AP', null] }),
    q3: (() => { const r = officialRecord({ study_id: 's3' }); delete r.category; delete r.correct_answer_explanation; delete r.ImageViewPosition; return r; })(),
  };
  const root = writeOfficialDataset({ train: records });
  const fromOfficial = await collect(readQuestions(detectLayout(root)));
  assert.equal(fromOfficial.length, 3);

  const dir = tempDir();
  await writeJsonl(fromOfficial, join(dir, 'train.jsonl'));
  const fromJsonl = await collect(readQuestions(detectLayout(dir)));
  assert.deepEqual(fromJsonl, fromOfficial);

  const back = join(dir, 'train_vqa_data.json');
  await writeRexvqaJson(fromJsonl, back);
  assert.deepEqual(JSON.parse(readFileSync(back, 'utf8')), records);
});

test('round trip: the bundled demo survives official → JSONL → official unchanged', async () => {
  const layout = detectLayout(DEMO_DATASET);
  const dir = tempDir();
  for (const file of layout.files) {
    const questions: Question[] = await collect(readQuestions(layout, [file.split]));
    await writeJsonl(questions, join(dir, `${file.split}.jsonl`));
    const again = await collect(readQuestions(detectLayout(join(dir, `${file.split}.jsonl`))));
    await writeRexvqaJson(again, join(dir, `${file.split}_vqa_data.json`));
    assert.deepEqual(JSON.parse(readFileSync(join(dir, `${file.split}_vqa_data.json`), 'utf8')), JSON.parse(readFileSync(file.path, 'utf8')), file.split);
  }
});

test('JSONL: each line carries the key in "id"; blank lines are skipped; bad lines are reported with their line number', async () => {
  const dir = tempDir();
  const good = { id: 'k1', ...officialRecord() };
  writeFileSync(join(dir, 'x.jsonl'), `${JSON.stringify(good)}\n\n{"question": oops}\n${JSON.stringify(officialRecord())}\n`);
  const records = await collect(readJsonl(join(dir, 'x.jsonl'), 'x'));
  assert.deepEqual(records.map((r) => [r.key, r.line, r.syntaxError === undefined, r.keyMissing === true]), [['k1', 1, true, false], ['line 3', 3, false, false], ['line 4', 4, true, true]]);
  assert.match(records[1]!.syntaxError!, /line 3, column \d+/);
  const report = await validateDataset(detectLayout(join(dir, 'x.jsonl')));
  assert.deepEqual(report.errors.map((e) => [e.code, e.key, e.field]), [['json-syntax', 'line 3', null], ['missing-field', 'line 4', 'id']]);
  assert.equal('id' in (records[0]!.value as object), false);
});

test('JSONL: a line is the key then the official record', async () => {
  const [q] = await collect(readQuestions(detectLayout(writeOfficialDataset({ train: { key1: officialRecord() } }))));
  assert.deepEqual(JSON.parse(toJsonlLine(q!)), { id: 'key1', ...officialRecord() });
});

test('writes are atomic: a failing source leaves no partial file and no temp file behind', async () => {
  const dir = tempDir();
  const target = join(dir, 'train.jsonl');
  writeFileSync(target, 'previous\n');
  async function* failing(): AsyncGenerator<Question> {
    const [q] = await collect(readQuestions(detectLayout(writeOfficialDataset({ train: { a: officialRecord() } }))));
    yield q!;
    throw new Error('source broke');
  }
  await assert.rejects(writeJsonl(failing(), target), /source broke/);
  assert.equal(readFileSync(target, 'utf8'), 'previous\n');
  const { readdirSync } = await import('node:fs');
  assert.deepEqual(readdirSync(dir), ['train.jsonl']);
});
