/**
 * F1 of two bags of items (tokens, entities, relations): matches counted with multiplicity. 1 when both are empty,
 * 0 when only one is or nothing matches.
 */
export function bagF1(reference: readonly string[], candidate: readonly string[]): number {
  if (reference.length === 0 && candidate.length === 0) return 1;
  if (reference.length === 0 || candidate.length === 0) return 0;
  const left = new Map<string, number>();
  for (const r of reference) left.set(r, (left.get(r) ?? 0) + 1);
  let matched = 0;
  for (const c of candidate) {
    const n = left.get(c) ?? 0;
    if (n > 0) {
      matched++;
      left.set(c, n - 1);
    }
  }
  const p = matched / candidate.length;
  const r = matched / reference.length;
  return p + r === 0 ? 0 : (2 * p * r) / (p + r);
}
