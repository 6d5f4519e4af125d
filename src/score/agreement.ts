/**
 * Cohen's kappa between two raters over the same items: (observed − expected agreement) / (1 − expected),
 * expected from each rater's own label frequencies. Labels are any strings (answer letters, "unanswered").
 *
 * Null when kappa is undefined: no items, or expected agreement 1 — both raters gave one and the same label
 * throughout (one shared case on which they agree is the common way to get there). Agreeing there says nothing
 * beyond chance, so it is not reported as 1.
 */
export function cohenKappa(a: readonly string[], b: readonly string[]): number | null {
  if (a.length !== b.length) throw new Error(`cohenKappa: ${a.length} and ${b.length} labels; the raters must label the same items`);
  const n = a.length;
  if (n === 0) return null;
  const countA = new Map<string, number>();
  const countB = new Map<string, number>();
  let agree = 0;
  for (let i = 0; i < n; i++) {
    if (a[i] === b[i]) agree++;
    countA.set(a[i]!, (countA.get(a[i]!) ?? 0) + 1);
    countB.set(b[i]!, (countB.get(b[i]!) ?? 0) + 1);
  }
  const po = agree / n;
  let pe = 0;
  for (const [label, ca] of countA) pe += (ca / n) * ((countB.get(label) ?? 0) / n);
  return pe === 1 ? null : (po - pe) / (1 - pe);
}

/**
 * Fleiss' kappa for a group of raters: `counts[i][j]` is how many raters put item i in category j; every item
 * must have the same number of ratings. Null when it is undefined: no items, fewer than two ratings per item, or
 * expected agreement 1 (every rating in one category).
 */
export function fleissKappa(counts: readonly (readonly number[])[]): number | null {
  const items = counts.length;
  if (items === 0) return null;
  const raters = counts[0]!.reduce((s, x) => s + x, 0);
  const categories = counts[0]!.length;
  const totals = new Array<number>(categories).fill(0);
  let meanAgreement = 0;
  for (const row of counts) {
    const r = row.reduce((s, x) => s + x, 0);
    if (r !== raters) throw new Error(`fleissKappa: every item needs ${raters} ratings, one has ${r}`);
    row.forEach((x, j) => (totals[j]! += x));
    meanAgreement += (row.reduce((s, x) => s + x * x, 0) - raters) / (raters * (raters - 1));
  }
  if (raters < 2) return null;
  meanAgreement /= items;
  const expected = totals.reduce((s, t) => s + (t / (items * raters)) ** 2, 0);
  return expected === 1 ? null : (meanAgreement - expected) / (1 - expected);
}
