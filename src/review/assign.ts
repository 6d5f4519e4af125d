import { CxrError } from '../core/errors.js';
import { seededPermutation } from '../study/sample.js';

/**
 * Hands items to reviewers: `perItem` distinct reviewers each, round-robin over a seeded order of the reviewers,
 * so loads differ by at most one item and, with three or more reviewers and two per item, the pairs rotate. Same
 * reviewers, count and seed: same assignment.
 */
export function assignReviewers<T>(itemCount: number, reviewers: readonly T[], perItem: 1 | 2, seed = 0): T[][] {
  if (reviewers.length < perItem) throw new CxrError('bad-option', `${perItem} reviewers per item needs at least ${perItem} reviewers; ${reviewers.length} given`);
  const order = seededPermutation(reviewers.length, seed).map((i) => reviewers[i]!);
  return Array.from({ length: itemCount }, (_, i) => Array.from({ length: perItem }, (_, j) => order[(i * perItem + j) % order.length]!));
}
