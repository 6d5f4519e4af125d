import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { DEMO_DATASET } from '../src/cli/commands/demo-dataset.js';
import { detectLayout } from '../src/dataset/layout.js';
import { readQuestions } from '../src/dataset/read-dataset.js';
import { cohenKappa } from '../src/score/agreement.js';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/records.js';

async function demoTest() {
  const questions = [];
  for await (const q of readQuestions(detectLayout(DEMO_DATASET), ['test'])) questions.push(q);
  return questions;
}
const jsonl = (rows: object[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';

test('agreement: pairwise by default (n per cell), unanswered counted wrong over all gold items; category and drop on request; bad ids named', async () => {
  const questions = await demoTest();
  const dir = tempDir();
  const reader1 = questions.map((q, i) => ({ id: q.id, answer: i % 3 === 0 ? 'A' : q.answer }));
  const reader2 = questions.map((q, i) => ({ id: q.id, answer: i === 5 ? null : i % 4 === 0 ? 'B' : q.answer }));
  const f1 = join(dir, 'resident1.jsonl');
  const f2 = join(dir, 'resident2.jsonl');
  writeFileSync(f1, jsonl(reader1));
  writeFileSync(f2, jsonl(reader2.slice(0, -1))); // resident2 also skips the last item
  const run = await runCli(['agreement', f1, f2, '--gold', DEMO_DATASET, '--split', 'test', '--format', 'json']);
  assert.equal(run.code, 0, run.stderr);
  const result = JSON.parse(run.stdout);
  const n = questions.length;
  assert.equal(result.goldItems, n);
  assert.equal(result.unanswered, 'pairwise');
  const both = questions.map((_, i) => i).filter((i) => i !== 5 && i !== n - 1);
  assert.equal(result.overall.pairN[0][1], both.length);
  assert.equal(result.overall.cohen[0][1], cohenKappa(both.map((i) => reader1[i]!.answer), both.map((i) => reader2[i]!.answer!)));
  assert.equal(result.overall.fleissN, both.length);
  assert.equal(result.accuracy[1].n, n);
  assert.equal(result.accuracy[1].unanswered, 2);
  assert.equal(result.accuracy[1].correct, both.filter((i) => reader2[i]!.answer === questions[i]!.answer).length);
  assert.match(result.convention, /both raters answered/);
  const table = await runCli(['agreement', f1, f2, '--gold', DEMO_DATASET, '--split', 'test']);
  assert.match(table.stdout, new RegExp(`${n} gold items; each Cohen's kappa uses the items both raters answered`));
  assert.match(table.stdout, new RegExp(`\\(${both.length}\\)`));

  const category = JSON.parse((await runCli(['agreement', f1, f2, '--gold', DEMO_DATASET, '--split', 'test', '--format', 'json', '--unanswered', 'category'])).stdout);
  assert.equal(category.overall.pairN[0][1], n);
  assert.equal(category.overall.cohen[0][1], cohenKappa(reader1.map((r) => r.answer), questions.map((_, i) => (i === 5 || i === n - 1 ? 'unanswered' : reader2[i]!.answer!))));
  const dropped = JSON.parse((await runCli(['agreement', f1, f2, '--gold', DEMO_DATASET, '--split', 'test', '--format', 'json', '--unanswered', 'drop'])).stdout);
  assert.equal(dropped.overall.pairN[0][1], both.length);
  const badPolicy = await runCli(['agreement', f1, f2, '--gold', DEMO_DATASET, '--unanswered', 'ignore']);
  assert.equal(badPolicy.code, 2);
  assert.match(badPolicy.stderr, /--unanswered ignore: expected one of pairwise, category, drop/);

  writeFileSync(f2, jsonl(reader2.slice(0, 10)) + JSON.stringify({ id: 'nope', answer: 'A' }) + '\n');
  const bad = await runCli(['agreement', f1, f2, '--gold', DEMO_DATASET, '--split', 'test']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /resident2\.jsonl: 1 id\(s\) not in the gold set, e\.g\. nope/);
});

test('agreement: --gold takes an answer key (JSONL, CSV or JSON array, with tasks); a key that is not one letter is named by line and field', async () => {
  const questions = (await demoTest()).slice(0, 8);
  const dir = tempDir();
  const key = questions.map((q) => ({ id: q.id, answer: q.answer, task: q.task }));
  const reader = questions.map((q, i) => ({ id: q.id, answer: i < 2 ? 'D' : q.answer }));
  const model = questions.map((q, i) => ({ id: q.id, answer: i === 7 ? null : q.answer }));
  writeFileSync(join(dir, 'reader.jsonl'), jsonl(reader));
  writeFileSync(join(dir, 'model.jsonl'), jsonl(model));
  const forms = {
    'key.jsonl': '\uFEFF' + jsonl(key).replace(/\n/g, '\r\n'),
    'key.csv': `id,answer,task\n${key.map((k) => `${k.id},${k.answer},"${k.task}"`).join('\n')}\n`,
    'key.json': JSON.stringify(key),
  };
  let first: unknown;
  for (const [name, content] of Object.entries(forms)) {
    writeFileSync(join(dir, name), content);
    const run = await runCli(['agreement', join(dir, 'reader.jsonl'), join(dir, 'model.jsonl'), '--gold', join(dir, name), '--format', 'json']);
    assert.equal(run.code, 0, `${name}: ${run.stderr}`);
    const result = JSON.parse(run.stdout);
    assert.equal(result.goldItems, 8, name);
    assert.deepEqual(Object.keys(result.byTask).sort(), [...new Set(key.map((k) => k.task))].sort(), name);
    assert.equal(result.accuracy[0].correct, reader.filter((r, i) => r.answer === questions[i]!.answer).length);
    assert.equal(result.accuracy[1].correct, 7);
    if (first === undefined) first = result;
    else assert.deepEqual(result, first, `${name} reads like the JSONL key`);
  }
  writeFileSync(join(dir, 'bad-key.jsonl'), jsonl([...key.slice(0, 3), { id: key[3]!.id, answer: 'E' }, ...key.slice(4)]));
  const bad = await runCli(['agreement', join(dir, 'reader.jsonl'), join(dir, 'model.jsonl'), '--gold', join(dir, 'bad-key.jsonl')]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /bad-key\.jsonl: 1 gold answer\(s\) unusable:\n {2}line 4: field "answer" of ".*" must be one letter A–D, found "E"/);
});

test('agreement: two raters sharing one case on which they agree — kappa undefined, "—" in the table and null in JSON, never 1.00', async () => {
  const questions = (await demoTest()).slice(0, 4).map((q) => ({ ...q, task: 'Presence Assessment' }));
  const dir = tempDir();
  const key = questions.map((q, i) => ({ id: q.id, answer: 'ABCD'[i]!, task: q.task }));
  writeFileSync(join(dir, 'key.jsonl'), jsonl(key));
  writeFileSync(join(dir, 'r1.jsonl'), jsonl(key.map(({ id, answer }) => ({ id, answer }))));
  writeFileSync(join(dir, 'r2.jsonl'), jsonl([{ id: key[0]!.id, answer: 'A' }]));
  const json = await runCli(['agreement', join(dir, 'r1.jsonl'), join(dir, 'r2.jsonl'), '--gold', join(dir, 'key.jsonl'), '--format', 'json']);
  assert.equal(json.code, 0, json.stderr);
  const result = JSON.parse(json.stdout);
  assert.deepEqual(result.overall.cohen, [[1, null], [null, null]]);
  assert.deepEqual(result.overall.pairN, [[4, 1], [1, 1]]);
  assert.equal(result.overall.fleiss, null);
  const table = await runCli(['agreement', join(dir, 'r1.jsonl'), join(dir, 'r2.jsonl'), '--gold', join(dir, 'key.jsonl')]);
  assert.equal(table.code, 0, table.stderr);
  const overall = table.stdout.split('\n');
  const at = overall.findIndex((l) => l.startsWith("Cohen's kappa, all questions"));
  assert.equal(overall[at], "Cohen's kappa, all questions (4 items; cells: kappa (n items both answered); Fleiss' kappa — on 1 items every rater answered)");
  assert.deepEqual(overall.slice(at + 3, at + 5).map((l) => l.split(/\s{2,}/)), [['R1 r1', '1.000 (4)', '— (1)'], ['R2 r2', '— (1)', '— (1)']]);
  assert.match(table.stdout, /— where kappa is undefined: no items in common, or one same answer throughout/);
  assert.doesNotMatch(table.stdout, /1\.000 \(1\)/);
});
