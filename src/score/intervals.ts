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
