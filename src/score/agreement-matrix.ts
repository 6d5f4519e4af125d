import { cohenKappa, fleissKappa } from './agreement.js';

/** One rater's answers by item: a letter, or null when the rater gave no readable answer. An absent item is unanswered too. */
export interface RaterAnswers {
  name: string;
  answers: Map<string, string | null>;
}

/**
 * How items a rater left unanswered (absent, or no readable answer) enter agreement:
 * - `pairwise` (default): each Cohen cell uses the items both raters of the pair answered; Fleiss' kappa the
 *   items every rater answered. Nothing is invented, and each cell says on how many items it rests.
 * - `category`: every item counts, and "unanswered" is a label of its own (two raters who both skip agree).
 * - `drop`: only the items every rater answered, for every cell and for Fleiss.
 */
export type UnansweredPolicy = 'pairwise' | 'category' | 'drop';

/** The policies, in the order the CLI lists them (the default first). */
export const UNANSWERED_POLICIES = ['pairwise', 'category', 'drop'] as const satisfies readonly UnansweredPolicy[];

/** Agreement of a group of raters on one set of items. */
export interface AgreementTable {
  policy: UnansweredPolicy;
  /** Items in scope (before unanswered items are set aside). */
  items: number;
  /**
   * kappa[i][j] between raters i and j; null where it is undefined (no items, or expected agreement 1: both gave
   * one same answer throughout). The diagonal is a rater with themself: 1, or null on the same grounds.
   */
  cohen: (number | null)[][];
  /** The number of items each Cohen cell rests on (on the diagonal: items the rater answered, or all under `category`). */
  pairN: number[][];
  /** Null where undefined: fewer than two raters, no item every rater answered, or one answer throughout. */
  fleiss: number | null;
  /** The number of items Fleiss' kappa rests on. */
  fleissN: number;
}

const UNANSWERED = 'unanswered';

/** Kappa cells resting on fewer items than this are greyed wherever agreement is shown: so few items say little. */
export const FEW_KAPPA_ITEMS = 10;

function answerOf(rater: RaterAnswers, id: string): string | null {
  return rater.answers.get(id) ?? null;
}

/** Pairwise Cohen's kappa and the group's Fleiss' kappa on `items`, under an unanswered-item policy. */
export function agreementOn(raters: readonly RaterAnswers[], items: readonly string[], policy: UnansweredPolicy = 'pairwise'): AgreementTable {
  const everyoneAnswered = items.filter((id) => raters.every((r) => answerOf(r, id) !== null));
  const cellItems = (i: number, j: number): readonly string[] => {
    if (policy === 'category') return items;
    if (policy === 'drop') return everyoneAnswered;
    return items.filter((id) => answerOf(raters[i]!, id) !== null && answerOf(raters[j]!, id) !== null);
  };
  const label = (r: RaterAnswers, id: string) => answerOf(r, id) ?? UNANSWERED;
  const cohen: (number | null)[][] = [];
  const pairN: number[][] = [];
  raters.forEach((a, i) => {
    cohen.push([]);
    pairN.push([]);
    raters.forEach((b, j) => {
      const on = cellItems(i, j);
      pairN[i]!.push(on.length);
      cohen[i]!.push(cohenKappa(on.map((id) => label(a, id)), on.map((id) => label(b, id))));
    });
  });
  const fleissItems = policy === 'category' ? items : everyoneAnswered;
  const labels = raters.map((r) => fleissItems.map((id) => label(r, id)));
  const categories = [...new Set(labels.flat())].sort();
  const counts = fleissItems.map((_, k) => categories.map((c) => labels.filter((l) => l[k] === c).length));
  return {
    policy,
    items: items.length,
    cohen,
    pairN,
    fleiss: raters.length >= 2 ? fleissKappa(counts) : null,
    fleissN: fleissItems.length,
  };
}

/** One sentence on what an agreement table's numbers rest on, for every output that shows them. */
export function describePolicy(policy: UnansweredPolicy): string {
  if (policy === 'pairwise') return "each Cohen's kappa uses the items both raters answered (n per cell); Fleiss' kappa the items every rater answered";
  if (policy === 'category') return 'every item counts; an unanswered item is a label of its own';
  return 'only items every rater answered are used';
}

/** What "—" in a kappa cell means, for every output that shows one. */
export const UNDEFINED_KAPPA_NOTE = '— where kappa is undefined: no items in common, or one same answer throughout (expected agreement 1, where agreeing says nothing)';

/** Why one kappa cell on `n` items is undefined, for a tooltip. */
export function undefinedKappaReason(n: number): string {
  return n === 0 ? 'undefined: no item in common' : `undefined: one same answer on all ${n} item(s) (expected agreement 1)`;
}
