import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TASK_NAMES } from '../core/question.js';
import { clusterBootstrap, wilson } from './intervals.js';
import { cellInterval, overallInterval, scoreOutcomes, type ScoredOutcome } from './results.js';

/** Outcomes of `perTask` questions per task, two per study, answered right when `right(i)` (i over the whole run). */
function outcomes(perTask: readonly number[], right: (i: number) => boolean): ScoredOutcome[] {
  const out: ScoredOutcome[] = [];
  perTask.forEach((count, t) => {
    for (let k = 0; k < count; k++) {
      const i = out.length;
      const correct = right(i);
      out.push({ questionId: `q${i}`, studyId: `s${t}-${k >> 1}`, task: TASK_NAMES[t]!, category: null, subcategory: null, status: correct ? 'correct' : 'wrong', expected: 'A', predicted: correct ? 'A' : 'B', extraction: null, views: 1 });
    }
  });
  return out;
}

const settings = { resamples: 500, seed: 3, smallCell: 30 };
const PER_TASK = [20, 20, 10, 6, 4];

for (const [name, right, k] of [['every answer right (100%)', () => true, 1], ['every answer wrong (0%)', () => false, 0]] as const) {
  test(`intervals at ${name}: Wilson's where the study bootstrap has no spread, marked; ReXrank overall the mean of the task Wilson intervals`, () => {
    const r = scoreOutcomes(outcomes(PER_TASK, right), 60, settings);
    assert.deepEqual(r.overall.bootstrap, { ...wilson(60 * k, 60), method: 'wilson' });
    for (const [t, n] of PER_TASK.map((n, t) => [TASK_NAMES[t]!, n] as const)) assert.deepEqual(r.byTask[t]!.bootstrap, { ...wilson(n * k, n), method: 'wilson' }, t);
    const tasks = PER_TASK.map((n) => wilson(n * k, n));
    const mean = (pick: (e: { lo: number; hi: number }) => number) => tasks.reduce((s, e) => s + pick(e), 0) / tasks.length;
    assert.deepEqual(r.rexrankOverall, { value: k, lo: mean((e) => e.lo), hi: mean((e) => e.hi), n: 60, method: 'task-wilson-mean', tasks: [...TASK_NAMES] });
    assert.ok(r.overall.bootstrap.hi - r.overall.bootstrap.lo > 0.05, 'not "100.0 (100.0–100.0)"');
  });
}

test('intervals in between: the study bootstrap, said so', () => {
  const r = scoreOutcomes(outcomes(PER_TASK, (i) => i % 3 !== 0), 60, settings);
  assert.equal(r.overall.bootstrap.method, 'study-bootstrap');
  assert.ok(r.overall.bootstrap.lo < r.overall.bootstrap.hi);
  assert.equal(r.rexrankOverall.method, 'study-bootstrap');
  // The interval of the whole run is the cluster bootstrap itself (seed offset 0 for the overall cell).
  const byStudy = new Map<string, [number, number]>();
  for (const o of outcomes(PER_TASK, (i) => i % 3 !== 0)) {
    const c = byStudy.get(o.studyId) ?? [0, 0];
    byStudy.set(o.studyId, [c[0] + (o.status === 'correct' ? 1 : 0), c[1] + 1]);
  }
  assert.deepEqual(r.overall.bootstrap, { ...clusterBootstrap([...byStudy.values()], settings.resamples, settings.seed), method: 'study-bootstrap' });
});

test('a board entry stored before intervals said their method: read through cellInterval/overallInterval, the degenerate ones fall back', () => {
  const accuracy = wilson(8, 8);
  const stored = { accuracy, bootstrap: { value: 1, lo: 1, hi: 1, n: 8 } };
  assert.deepEqual(cellInterval(stored), { ...accuracy, method: 'wilson' });
  const spread = { accuracy: wilson(6, 8), bootstrap: { value: 0.75, lo: 0.5, hi: 0.95, n: 8 } };
  assert.deepEqual(cellInterval(spread), { ...spread.bootstrap, method: 'study-bootstrap' });
  const byTask = { 'Presence Assessment': { accuracy: wilson(5, 5) }, 'Negation Assessment': { accuracy: wilson(3, 3) } };
  assert.deepEqual(overallInterval({ value: 1, lo: 1, hi: 1, n: 8, tasks: ['Presence Assessment', 'Negation Assessment'] }, byTask), {
    value: 1, lo: (wilson(5, 5).lo + wilson(3, 3).lo) / 2, hi: 1, n: 8, method: 'task-wilson-mean',
  });
});
