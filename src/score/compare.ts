/**
 * Exact (binomial) McNemar test on the discordant pairs: b = items only run A got right, c = only run B.
 * Two-sided p = min(1, 2·P(X ≤ min(b, c))), X ~ Binomial(b + c, ½). Exact for any count, unlike the χ² form.
 */
export function mcnemarExact(b: number, c: number): number {
  const n = b + c;
  if (n === 0) return 1;
  const k = Math.min(b, c);
  // log P(X = i) built up term by term (C(n, i+1) = C(n, i)·(n−i)/(i+1)) and summed in log space: O(k), and no
  // underflow when n is in the tens of thousands (two leaderboard entries can differ on that many items).
  let logTerm = -n * Math.LN2;
  let logTail = logTerm;
  for (let i = 0; i < k; i++) {
    logTerm += Math.log(n - i) - Math.log(i + 1);
    const high = Math.max(logTail, logTerm);
    logTail = high + Math.log(Math.exp(logTail - high) + Math.exp(logTerm - high));
  }
  return Math.min(1, 2 * Math.exp(logTail));
}

/** Holm's step-down adjustment of p-values (family-wise error across tasks), returned in the input order. */
export function holm(pValues: readonly number[]): number[] {
  const order = pValues.map((p, i) => ({ p, i })).sort((a, b) => a.p - b.p);
  const adjusted = new Array<number>(pValues.length);
  let running = 0;
  order.forEach(({ p, i }, rank) => {
    running = Math.max(running, Math.min(1, (pValues.length - rank) * p));
    adjusted[i] = running;
  });
  return adjusted;
}
