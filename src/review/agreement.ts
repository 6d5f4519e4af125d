import { cohenKappa } from '../score/agreement.js';
import type { ReviewDecision } from '../store/review-decisions.js';
import type { ReviewAssignment } from '../store/reviews.js';
import { RATINGS, type RatingName } from './decision.js';

/**
 * Agreement of two reviewers on one categorical label (decision, difficulty), over the `n` items both gave it (a
 * rejection may leave the difficulty out).
 */
export interface LabelAgreement {
  n: number;
  /** Null where undefined: no item given it by both, or expected agreement of 1 (both gave one same label throughout): see {@link cohenKappa}. */
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
  /** Items both decided: the decision's figures are over these, the difficulty's and each rating's over those of them both rated (their own n). */
  n: number;
  decision: LabelAgreement;
  difficulty: LabelAgreement;
  ratings: Record<RatingName, RatingAgreement>;
}

/** The pairs in which both values are given: a rejection may leave a rating or the difficulty out. */
function given<T>(a: readonly (T | null)[], b: readonly (T | null)[]): [T[], T[]] {
  const keep = a.flatMap((x, i) => (x !== null && b[i] !== null && b[i] !== undefined ? [i] : []));
  return [keep.map((i) => a[i]!), keep.map((i) => b[i]!)];
}

function label(a: readonly (string | null)[], b: readonly (string | null)[]): LabelAgreement {
  const [x, y] = given(a, b);
  if (x.length === 0) return { n: 0, kappa: null, exact: null };
  return { n: x.length, kappa: cohenKappa(x, y), exact: x.filter((v, i) => v === y[i]).length / x.length };
}

function ratingOf(a: readonly (number | null)[], b: readonly (number | null)[]): RatingAgreement {
  const [x, y] = given(a, b);
  const base = label(x.map(String), y.map(String));
  return { ...base, meanAbsDiff: x.length === 0 ? null : x.reduce((s, v, i) => s + Math.abs(v - y[i]!), 0) / x.length };
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
