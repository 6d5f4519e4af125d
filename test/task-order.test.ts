import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { DEMO_DATASET } from '../src/cli/commands/demo-dataset.js';
import { inPaperOrder, TASK_NAMES } from '../src/core/question.js';
import { detectLayout } from '../src/dataset/layout.js';
import { readQuestions } from '../src/dataset/read-dataset.js';
import { consistencyReport } from '../src/score/consistency.js';
import { comparePaired } from '../src/score/paired.js';
import { studyResults } from '../src/study/results.js';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/records.js';

// Alphabetical and by-size orders both differ from the paper's (REFERENCE.md §1), so each would show here.
const PAPER = [...TASK_NAMES];
const SHUFFLED = ['Negation Assessment', 'Geometric Information Assessment', 'Differential Diagnosis', 'Presence Assessment', 'Location and Distribution Assessment'];

test("inPaperOrder: the paper's five in its order, then other names alphabetically, each once", () => {
  assert.deepEqual(inPaperOrder(['zeta', ...SHUFFLED, 'Alpha', 'Negation Assessment']), [...PAPER, 'Alpha', 'zeta']);
  assert.deepEqual(inPaperOrder(['Location and Distribution Assessment', 'Presence Assessment']), ['Presence Assessment', 'Location and Distribution Assessment']);
});

test("study results, the position-bias check and paired comparisons list tasks in the paper's order", () => {
  const items = SHUFFLED.map((task, i) => ({ questionId: `q${i}`, task, gold: 'A' }));
  const study = studyResults(items, [{ name: 'r', kind: 'reader', answers: new Map(items.map((i) => [i.questionId, 'A'])) }, { name: 's', kind: 'reader', answers: new Map(items.map((i) => [i.questionId, 'B'])) }]);
  assert.deepEqual(study.tasks, PAPER);
  assert.deepEqual(Object.keys(study.raters[0]!.byTask), PAPER);
  assert.deepEqual(Object.keys(study.agreementByTask), PAPER);
  const pairs = SHUFFLED.map((task, i) => ({ questionId: `q${i}`, task, original: 'x', shuffled: 'x', correctOriginal: true, correctShuffled: true }));
  assert.deepEqual(Object.keys(consistencyReport(pairs).byTask), PAPER);
  const paired = comparePaired(SHUFFLED.map((task, i) => ({ questionId: `q${i}`, studyId: `s${i}`, task, a: true, b: false })), 10, 0);
  assert.deepEqual(Object.keys(paired.byTask), PAPER);
});

test("CLI: data stats, agreement and compare list tasks in the paper's order", { timeout: 120_000 }, async () => {
  const stats = await runCli(['data', 'stats', DEMO_DATASET, '--format', 'json']);
  assert.equal(stats.code, 0, stats.stderr);
  const splits = (JSON.parse(stats.stdout) as { splits: Record<string, { byTask: Record<string, unknown> }> }).splits;
  for (const [split, s] of Object.entries(splits)) assert.deepEqual(Object.keys(s.byTask), inPaperOrder(Object.keys(s.byTask)), split);
  assert.deepEqual(Object.keys(splits.test!.byTask), PAPER);

  const questions = [];
  for await (const q of readQuestions(detectLayout(DEMO_DATASET), ['test'])) questions.push(q);
  const dir = tempDir();
  writeFileSync(join(dir, 'r1.jsonl'), questions.map((q) => JSON.stringify({ id: q.id, answer: q.answer })).join('\n'));
  writeFileSync(join(dir, 'r2.jsonl'), questions.map((q, i) => JSON.stringify({ id: q.id, answer: i % 2 ? q.answer : 'A' })).join('\n'));
  const agreement = await runCli(['agreement', join(dir, 'r1.jsonl'), join(dir, 'r2.jsonl'), '--gold', DEMO_DATASET, '--split', 'test']);
  assert.equal(agreement.code, 0, agreement.stderr);
  assert.deepEqual([...agreement.stdout.matchAll(/^Cohen's kappa, (?!all questions)(.+?) \(/gm)].map((m) => m[1]), PAPER);
  const json = JSON.parse((await runCli(['agreement', join(dir, 'r1.jsonl'), join(dir, 'r2.jsonl'), '--gold', DEMO_DATASET, '--split', 'test', '--format', 'json'])).stdout);
  assert.deepEqual(Object.keys(json.byTask), PAPER);

  for (const m of ['report-oracle', 'text-only']) assert.equal((await runCli(['eval', '--data', DEMO_DATASET, '--model', `baseline:${m}`, '--out', join(dir, m), '--quiet'])).code, 0);
  const compare = await runCli(['compare', join(dir, 'report-oracle'), join(dir, 'text-only'), '--resamples', '50']);
  assert.equal(compare.code, 0, compare.stderr);
  const rows = compare.stdout.split('\n').map((l) => l.split(/\s{2,}/)[0]!).filter((first) => first.endsWith('Assessment') || first.endsWith('Diagnosis'));
  assert.deepEqual(rows, PAPER);
});
