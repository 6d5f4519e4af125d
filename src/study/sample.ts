import { CxrError } from '../core/errors.js';
import { keyedSeed, seededRandom } from '../core/seeded-random.js';

/** How a study's cases are drawn from a question set. */
export interface SamplingPlan {
  /** `random`: a simple random sample; `stratified`: each task in proportion to its share of the pool. */
  mode: 'random' | 'stratified';
  /** Cases to draw (the whole pool when it is smaller: said in the result). */
  n: number;
  /** Only questions of this task (the paper's per-task reader studies). */
  task: string | null;
  seed: number;
}

/** A seeded Fisher–Yates permutation of 0..n-1. */
export function seededPermutation(n: number, seed: number): number[] {
  const order = Array.from({ length: n }, (_, i) => i);
  const random = seededRandom(seed);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

/**
 * Draws the cases of a study: indexes into `tasks` (the task of each question in the pool, in pool order),
 * returned in pool order. Stratified sampling gives each task its proportional share by largest remainder, so
 * the counts add up to n exactly; within a task the draw is a seeded shuffle. Same plan, same cases.
 */
export function sampleCases(tasks: readonly string[], plan: SamplingPlan): number[] {
  if (!Number.isInteger(plan.n) || plan.n < 1) throw new CxrError('bad-option', `a study needs at least one case (n = ${plan.n})`);
  const pool = tasks.map((task, index) => ({ task, index })).filter((c) => plan.task === null || c.task === plan.task);
  if (pool.length === 0) throw new CxrError('bad-option', plan.task ? `no question of the task "${plan.task}" in the set (tasks: ${[...new Set(tasks)].join(', ')})` : 'the question set is empty');
  const n = Math.min(plan.n, pool.length);
  if (plan.mode === 'random') return seededPermutation(pool.length, plan.seed).slice(0, n).map((i) => pool[i]!.index).sort((a, b) => a - b);
  const byTask = new Map<string, number[]>();
  for (const c of pool) {
    const members = byTask.get(c.task);
    if (members) members.push(c.index);
    else byTask.set(c.task, [c.index]);
  }
  const strata = [...byTask.entries()].sort(([a], [b]) => a.localeCompare(b));
  const quotas = strata.map(([, members]) => (n * members.length) / pool.length);
  const counts = quotas.map(Math.floor);
  const byRemainder = quotas.map((q, i) => ({ i, r: q - Math.floor(q) })).sort((a, b) => b.r - a.r || a.i - b.i);
  const leftover = n - counts.reduce((sum, c) => sum + c, 0);
  for (let k = 0; k < leftover; k++) counts[byRemainder[k]!.i]!++;
  const chosen: number[] = [];
  strata.forEach(([task, members], s) => {
    const order = seededPermutation(members.length, keyedSeed(plan.seed, task));
    chosen.push(...order.slice(0, counts[s]).map((i) => members[i]!));
  });
  return chosen.sort((a, b) => a - b);
}

/** A reader's own order of a study's cases (positions), seeded per reader so no two readers share a sequence effect. */
export function readerOrder(caseCount: number, orderSeed: number): number[] {
  return seededPermutation(caseCount, orderSeed);
}
