/**
 * Length of the longest common subsequence of two token lists, bit-parallel (Allison & Dix 1986; Hyyrö 2004): one
 * row of the LCS table is kept as a bit vector over `b` (a 0 bit where the row's value steps up), and a token of `a`
 * updates a whole 32-bit word of it at once — V ← (V + (V & M)) | (V & ~M), with M the positions of that token in
 * `b` — so the time is |a| × ⌈|b|/32⌉ word steps and the LCS is the count of 0 bits. Memory is linear: the vector,
 * and a mask per token of `b` seen at least 32 times (at most ⌈|b|/32⌉ of them); a rarer token's mask is set and
 * cleared in place for its row. Tokens of `a` absent from `b` change nothing and are skipped.
 */
export function lcsLength(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 || b.length === 0) return 0;
  // The LCS is symmetric: the shorter list goes along the bits, to keep the vector and the masks small.
  if (b.length > a.length) [a, b] = [b, a];
  const words = Math.ceil(b.length / 32);
  const positions = new Map<string, number[]>();
  b.forEach((token, j) => {
    const list = positions.get(token);
    if (list) list.push(j);
    else positions.set(token, [j]);
  });
  const frequent = new Map<string, Uint32Array>();
  for (const [token, list] of positions) {
    if (list.length < 32) continue;
    const mask = new Uint32Array(words);
    for (const j of list) mask[j >>> 5]! |= 1 << (j & 31);
    frequent.set(token, mask);
  }
  const scratch = new Uint32Array(words);
  const v = new Uint32Array(words).fill(0xffffffff);
  for (const token of a) {
    const list = positions.get(token);
    if (!list) continue;
    let mask = frequent.get(token);
    if (!mask) {
      mask = scratch;
      for (const j of list) mask[j >>> 5]! |= 1 << (j & 31);
    }
    let carry = 0;
    for (let k = 0; k < words; k++) {
      const x = v[k]!;
      const m = mask[k]!;
      const sum = x + ((x & m) >>> 0) + carry;
      carry = sum > 0xffffffff ? 1 : 0;
      v[k] = sum | (x & ~m);
    }
    if (mask === scratch) for (const j of list) scratch[j >>> 5] = 0;
  }
  // Bits past |b| in the last word start at 1 and stay 1 (their mask bits are 0), so every 0 bit counts.
  let zeros = 0;
  for (let k = 0; k < words; k++) zeros += 32 - popcount(v[k]!);
  return zeros;
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** ROUGE-L F-measure (β = 1) of a hypothesis against one reference: 2PR / (P + R) over the LCS; 0 when either is empty. */
export function rougeL(reference: readonly string[], hypothesis: readonly string[]): number {
  const lcs = lcsLength(reference, hypothesis);
  if (lcs === 0) return 0;
  const precision = lcs / hypothesis.length;
  const recall = lcs / reference.length;
  return (2 * precision * recall) / (precision + recall);
}
