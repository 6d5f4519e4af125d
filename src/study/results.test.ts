import assert from 'node:assert/strict';
import { test } from 'node:test';
import { studyResults, timeSummary, type Rater } from './results.js';
import { exportNames } from './study-report.js';

const items = ['A', 'B', 'C', 'D', 'A', 'B'].map((gold, i) => ({ questionId: `q${i + 1}`, task: i < 3 ? 'T1' : 'T2', gold }));
const rater = (name: string, kind: Rater['kind'], letters: (string | null)[]): Rater => ({ name, kind, answers: new Map(letters.map((l, i) => [`q${i + 1}`, l])) });
const r1 = rater('R1', 'reader', ['A', 'B', 'C', 'D', 'A', 'B']);
const r2 = rater('R2', 'reader', ['A', 'B', 'A', null, 'A', 'C']);
const model = rater('M', 'model', ['A', 'C', 'C', 'D', 'B', 'B']);

test('study results by hand: accuracy over every case with Wilson intervals, answered counts, pairwise-complete kappa with n', () => {
  const r = studyResults(items, [r1, r2, model]);
  const [a1, a2, am] = r.raters;
  assert.deepEqual([a1!.overall.value, a2!.overall.value, am!.overall.value], [1, 0.5, 4 / 6]);
  assert.deepEqual([a1!.answered, a2!.answered], [6, 5], 'an unanswered case counts against accuracy, and is counted');
  // Wilson 3/6 at z = 1.96: centre 0.5, half-width 0.3124
  assert.equal(a2!.overall.lo.toFixed(4), '0.1876');
  assert.equal(a2!.overall.hi.toFixed(4), '0.8124');
  assert.deepEqual([a2!.byTask.T1!.value, a2!.byTask.T1!.n, a2!.byTask.T2!.value], [2 / 3, 3, 1 / 3]);
  // R1 vs R2 on the 5 cases both answered: agreement 3/5, chance (2·3 + 2·1 + 1·1)/25 = 0.36 → κ = 0.24/0.64
  assert.equal(r.agreement.pairN[0]![1], 5);
  assert.equal(r.agreement.cohen[0]![1]!.toFixed(4), '0.3750');
  assert.equal(r.agreement.pairN[1]![1], 5, 'a rater\'s own cell: the cases they answered');
  // per task T2: R1 vs R2 on q5, q6 (q4 unanswered): A,B vs A,C → po 1/2, pe (1·2)/4 · … = 0.25 → κ = 1/3
  assert.equal(r.agreementByTask.T2!.pairN[0]![1], 2);
  assert.equal(r.agreementByTask.T2!.cohen[0]![1]!.toFixed(4), '0.3333');
  assert.equal(r.agreement.fleissN, 5, "Fleiss' kappa on the cases everyone answered");
});

test('time per case: median, mean and total over the timed cases', () => {
  assert.deepEqual(timeSummary(new Map([[0, 1000], [1, 3000], [2, 8000]])), { cases: 3, medianS: 3, meanS: 4, totalS: 12 });
  assert.deepEqual(timeSummary(new Map([[0, 1000], [1, 3000]])).medianS, 2);
  assert.deepEqual(timeSummary(undefined), { cases: 0, medianS: null, meanS: null, totalS: 0 });
});

test('export names: one per rater, never two alike, something for names without Latin letters', () => {
  const names = exportNames([
    { name: 'Dr. A', kind: 'reader' }, { name: 'Dr A', kind: 'reader' }, { name: 'Ünal', kind: 'reader' }, { name: '日本', kind: 'reader' }, { name: 'Key', kind: 'model' }, { name: 'key', kind: 'model' },
  ]);
  assert.deepEqual(names, ['reader-dr-a.jsonl', 'reader-dr-a-2.jsonl', 'reader-unal.jsonl', 'reader-4.jsonl', 'model-key.jsonl', 'model-key-2.jsonl']);
});
