import { cohenKappa, fleissKappa } from './agreement.js';

/** One rater's answers by item: a letter, or null when the rater gave no readable answer. */
export interface RaterAnswers {
  name: string;
  answers: Map<string, string | null>;
}

/** How unanswered items enter agreement: as their own label (default), or the item is dropped for everyone. */
export type UnansweredPolicy = 'category' | 'drop';

/** Agreement of a group of raters on one set of items. */
export interface AgreementTable {
  n: number;
  /** kappa[i][j] between raters i and j (1 on the diagonal). */
  cohen: number[][];
  fleiss: number;
}

/** Pairwise Cohen's kappa and the group's Fleiss' kappa on `items`. */
export function agreementOn(raters: readonly RaterAnswers[], items: readonly string[], policy: UnansweredPolicy): AgreementTable {
  const kept = policy === 'drop' ? items.filter((id) => raters.every((r) => r.answers.get(id) != null)) : items;
  const labels = raters.map((r) => kept.map((id) => r.answers.get(id) ?? 'unanswered'));
  const cohen = raters.map((_, i) => raters.map((__, j) => (i === j ? 1 : cohenKappa(labels[i]!, labels[j]!))));
  const categories = [...new Set(labels.flat())].sort();
  const counts = kept.map((_, k) => categories.map((c) => labels.filter((l) => l[k] === c).length));
  return { n: kept.length, cohen, fleiss: raters.length >= 2 && kept.length > 0 ? fleissKappa(counts) : NaN };
}
