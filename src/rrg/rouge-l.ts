/** Length of the longest common subsequence of two token lists (two rows of the table: linear memory). */
export function lcsLength(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 || b.length === 0) return 0;
  let previous = new Uint32Array(b.length + 1);
  let current = new Uint32Array(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    const x = a[i - 1];
    for (let j = 1; j <= b.length; j++) current[j] = x === b[j - 1] ? previous[j - 1]! + 1 : Math.max(previous[j]!, current[j - 1]!);
    [previous, current] = [current, previous];
  }
  return previous[b.length]!;
}

/** ROUGE-L F-measure (β = 1) of a hypothesis against one reference: 2PR / (P + R) over the LCS; 0 when either is empty. */
export function rougeL(reference: readonly string[], hypothesis: readonly string[]): number {
  const lcs = lcsLength(reference, hypothesis);
  if (lcs === 0) return 0;
  const precision = lcs / hypothesis.length;
  const recall = lcs / reference.length;
  return (2 * precision * recall) / (precision + recall);
}
