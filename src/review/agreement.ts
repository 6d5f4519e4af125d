import { cohenKappa } from '../score/agreement.js';
import type { ReviewDecision } from '../store/review-decisions.js';
import type { ReviewAssignment } from '../store/reviews.js';
import { RATINGS, type RatingName } from './decision.js';

/** Agreement of two reviewers on one categorical label (decision, difficulty). Null where undefined: no item decided by both. */
export interface LabelAgreement {
  /** Null also when expected agreement is 1 (both gave one same label throughout): see {@link cohenKappa}. */
  kappa: number | null;
  /** Share of items given the same label. */
  exact: number | null;
}

/** Agreement on a 1–5 rating: Cohen's kappa on the ratings as categories, exact agreement, mean absolute difference. */
export interface RatingAgreement extends LabelAgreement {
  meanAbsDiff: number | null;
}

/** Two reviewers who share items: how often and how much they agreed, on the items both decided. */
export interface PairAgreement {
  /** User ids, sorted. */
  reviewers: [string, string];
  /** Items assigned to both. */
  shared: number;
  /** Items both decided: every figure is over these. */
  n: number;
  decision: LabelAgreement;
  difficulty: LabelAgreement;
  ratings: Record<RatingName, RatingAgreement>;
}

function label(a: readonly string[], b: readonly string[]): LabelAgreement {
  if (a.length === 0) return { kappa: null, exact: null };
  return { kappa: cohenKappa(a, b), exact: a.filter((x, i) => x === b[i]).length / a.length };
}

function ratingOf(a: readonly number[], b: readonly number[]): RatingAgreement {
  const base = label(a.map(String), b.map(String));
  return { ...base, meanAbsDiff: a.length === 0 ? null : a.reduce((s, x, i) => s + Math.abs(x - b[i]!), 0) / a.length };
}

/**
 * Agreement between the two reviewers of doubly-reviewed items, per pair of reviewers (round-robin gives several
 * pairs when there are more than two reviewers; kappa compares two fixed raters, so pairs are not pooled).
 * Adjudications are not a reviewer's opinion and are left out.
 */
export function reviewerAgreement(assignments: readonly ReviewAssignment[], decisions: readonly ReviewDecision[]): PairAgreement[] {
  const byPosition = new Map<number, string[]>();
  for (const a of assignments) byPosition.set(a.position, [...(byPosition.get(a.position) ?? []), a.user_id]);
  const decisionOf = new Map(decisions.filter((d) => d.adjudication === 0).map((d) => [`${d.position}\u0000${d.user_id}`, d]));
  const pairs = new Map<string, { reviewers: [string, string]; shared: number; both: [ReviewDecision, ReviewDecision][] }>();
  for (const [position, users] of byPosition) {
    if (users.length !== 2) continue;
    const reviewers = [...users].sort() as [string, string];
    const key = reviewers.join('\u0000');
    const pair = pairs.get(key) ?? { reviewers, shared: 0, both: [] };
    pair.shared++;
    const a = decisionOf.get(`${position}\u0000${reviewers[0]}`);
    const b = decisionOf.get(`${position}\u0000${reviewers[1]}`);
    if (a && b) pair.both.push([a, b]);
    pairs.set(key, pair);
  }
  return [...pairs.values()].map(({ reviewers, shared, both }) => ({
    reviewers,
    shared,
    n: both.length,
    decision: label(both.map(([a]) => a.decision), both.map(([, b]) => b.decision)),
    difficulty: label(both.map(([a]) => a.difficulty), both.map(([, b]) => b.difficulty)),
    ratings: Object.fromEntries((Object.keys(RATINGS) as RatingName[]).map((r) => [r, ratingOf(both.map(([a]) => a[r]), both.map(([, b]) => b[r]))])) as Record<RatingName, RatingAgreement>,
  }));
}
