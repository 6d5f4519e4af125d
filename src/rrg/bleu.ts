/** Counts of the n-grams of a token list, keyed by the tokens joined with a separator no token holds. */
function ngramCounts(tokens: readonly string[], n: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (let i = 0; i + n <= tokens.length; i++) {
    // Bigrams (BLEU-2, the common case) without building an array per n-gram.
    const key = n === 1 ? tokens[i]! : n === 2 ? `${tokens[i]!}\u0000${tokens[i + 1]!}` : tokens.slice(i, i + n).join('\u0000');
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** The reference length closest to the hypothesis length (the shorter one on a tie), as NLTK and fast_bleu pick it. */
function closestReferenceLength(references: readonly (readonly string[])[], hypothesisLength: number): number {
  let best = references[0]!.length;
  for (const r of references) {
    const d = Math.abs(r.length - hypothesisLength);
    const bestD = Math.abs(best - hypothesisLength);
    if (d < bestD || (d === bestD && r.length < best)) best = r.length;
  }
  return best;
}

/**
 * Sentence BLEU as NLTK's sentence_bleu and fast_bleu compute it, which ReXrank uses with weights (½, ½) (BLEU-2):
 * clipped n-gram precisions against the references (each n-gram counted at most as often as the reference that
 * holds it most), NLTK "method1" smoothing (a precision with no match becomes 0.1 / its denominator), a score of
 * 0 when no unigram matches, and the brevity penalty exp(1 − r/h) with r the closest reference length when the
 * hypothesis is not longer. An empty hypothesis scores 0.
 */
export function sentenceBleu(references: readonly (readonly string[])[], hypothesis: readonly string[], weights: readonly number[] = [0.5, 0.5]): number {
  if (hypothesis.length === 0 || references.length === 0) return 0;
  let logSum = 0;
  for (let k = 0; k < weights.length; k++) {
    const n = k + 1;
    const hyp = ngramCounts(hypothesis, n);
    let maxRef = ngramCounts(references[0]!, n);
    if (references.length > 1) {
      maxRef = new Map(maxRef);
      for (const reference of references.slice(1)) for (const [gram, c] of ngramCounts(reference, n)) if (c > (maxRef.get(gram) ?? 0)) maxRef.set(gram, c);
    }
    let matches = 0;
    for (const [gram, c] of hyp) matches += Math.min(c, maxRef.get(gram) ?? 0);
    const denominator = Math.max(1, hypothesis.length - n + 1);
    if (n === 1 && matches === 0) return 0;
    const precision = matches === 0 ? 0.1 / denominator : matches / denominator;
    logSum += weights[k]! * Math.log(precision);
  }
  const h = hypothesis.length;
  const r = closestReferenceLength(references, h);
  const brevity = h > r ? 1 : Math.exp(1 - r / h);
  return brevity * Math.exp(logSum);
}
