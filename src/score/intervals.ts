import { seededRandom } from '../core/seeded-random.js';

/** z for a two-sided 95% interval. */
export const Z95 = 1.959963984540054;

/** An estimate with its 95% interval and the number of observations behind it. */
export interface Estimate {
  value: number;
  lo: number;
  hi: number;
  n: number;
}

/**
 * How an interval was computed: the percentile bootstrap over studies; Wilson's score interval (where the
 * bootstrap has no spread); the mean of the task Wilson intervals (ReXrank overall where its bootstrap has none).
 */
export type IntervalMethod = 'study-bootstrap' | 'wilson' | 'task-wilson-mean';

/** An estimate that says how its interval was computed, so a table that mixes methods can mark the odd ones. */
export interface MethodEstimate extends Estimate {
  method: IntervalMethod;
}

/** What every output says where it shows a study-bootstrap interval that fell back (marked †). */
export const NO_SPREAD_NOTE = "† the study bootstrap has no spread here (every question right, every one wrong, or a single study) and would claim certainty: Wilson's interval is shown instead";

/** The same for ReXrank overall, added where a table shows it. */
export const NO_SPREAD_OVERALL_NOTE = 'for ReXrank overall, the mean of the task Wilson intervals';

/**
 * Wilson score interval for a proportion k/n: unlike the normal (Wald) interval it stays inside [0, 1] and is
 * honest for the small cells of per-category tables (0/3 is not "0% ± 0").
 */
export function wilson(k: number, n: number, z = Z95): Estimate {
  if (n === 0) return { value: 0, lo: 0, hi: 1, n: 0 };
  const p = k / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return { value: p, lo: Math.max(0, centre - half), hi: Math.min(1, centre + half), n };
}

/** The q-quantile of sorted values, linear between order statistics (type 7, numpy's default). */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return NaN;
  const position = (sorted.length - 1) * q;
  const below = Math.floor(position);
  const above = Math.min(below + 1, sorted.length - 1);
  return sorted[below]! + (sorted[above]! - sorted[below]!) * (position - below);
}

/**
 * Percentile bootstrap interval of accuracy that resamples clusters (studies), not questions: a study's
 * questions share its images, so resampling questions would understate the uncertainty. Seeded: the same
 * seed gives the same interval.
 *
 * @param clusters per cluster, [correct, total]
 */
export function clusterBootstrap(clusters: readonly (readonly [number, number])[], resamples: number, seed: number): Estimate {
  const m = clusters.length;
  const correct = new Float64Array(m);
  const total = new Float64Array(m);
  let totalCorrect = 0;
  let n = 0;
  clusters.forEach(([c, t], i) => {
    correct[i] = c;
    total[i] = t;
    totalCorrect += c;
    n += t;
  });
  if (n === 0) return { value: 0, lo: 0, hi: 1, n: 0 };
  const random = seededRandom(seed);
  const stats = new Float64Array(resamples);
  for (let b = 0; b < resamples; b++) {
    let c = 0;
    let t = 0;
    for (let i = 0; i < m; i++) {
      const pick = (random() * m) | 0;
      c += correct[pick]!;
      t += total[pick]!;
    }
    stats[b] = t === 0 ? 0 : c / t;
  }
  stats.sort();
  return { value: totalCorrect / n, lo: quantile(stats, 0.025), hi: quantile(stats, 0.975), n };
}

/**
 * A study-bootstrap estimate, unless it has no spread (lo = hi on some items: every question right, every one
 * wrong, or a single study) — a "100.0 (100.0–100.0)" that claims a certainty the data do not give. There the
 * fallback is used instead (Wilson's), and `method` says so. An estimate that states its method already (scored
 * after methods were recorded) is returned as it is; one without (a board entry stored before) is judged here.
 */
export function withSpread(bootstrap: Estimate & { method?: IntervalMethod }, fallback: () => MethodEstimate): MethodEstimate {
  if (bootstrap.method) return bootstrap as MethodEstimate;
  if (bootstrap.n > 0 && bootstrap.lo === bootstrap.hi) return fallback();
  return { ...bootstrap, method: 'study-bootstrap' };
}

/** The 95% interval of accuracy over studies: the cluster bootstrap, or Wilson's where that has no spread. */
export function studyInterval(clusters: readonly (readonly [number, number])[], resamples: number, seed: number): MethodEstimate {
  const boot = clusterBootstrap(clusters, resamples, seed);
  return withSpread(boot, () => ({ ...wilson(clusters.reduce((k, [c]) => k + c, 0), boot.n), method: 'wilson' }));
}

/** The mean of the task Wilson intervals around `value` (ReXrank overall, where its bootstrap has no spread). */
export function taskWilsonMean(value: number, n: number, tasks: readonly Estimate[]): MethodEstimate {
  const mean = (pick: (e: Estimate) => number) => tasks.reduce((s, e) => s + pick(e), 0) / Math.max(1, tasks.length);
  return { value, lo: mean((e) => e.lo), hi: mean((e) => e.hi), n, method: 'task-wilson-mean' };
}
