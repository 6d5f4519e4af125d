/**
 * RadCliQ-v1 (Yu et al., 2023) as ReXrank uses it: a linear combination of standardised metric values,
 * Σ cᵢ·(xᵢ − μᵢ)/σᵢ + b over x = (RadGraph, BERTScore, SembScore, BLEU), with the published constants. Lower is
 * better; the leaderboard shows 1 / (mean over studies). Being linear, the mean of per-study values is the value
 * at the means — which is how the published table can be checked from its own columns.
 */
export const RADCLIQ_V1 = {
  metrics: ['radgraph', 'bertscore', 'sembscore', 'bleu'] as const,
  mean: [0.5379231241355762, 0.6175725628125001, 0.7647942121140658, 0.44738335396242174],
  std: [0.3028258411486429, 0.22430938459304575, 0.2539439110169773, 0.2989271671041838],
  coef: [-0.37708368261038905, -0.37030009974480316, -0.25261621789593225, 4.315048405024756e-12],
  intercept: 2.466552561323256e-10,
} as const;

export interface RadcliqInputs {
  radgraph: number;
  bertscore: number;
  sembscore: number;
  bleu: number;
}

/** RadCliQ-v1 of one study (or of means: it is linear). */
export function radcliqV1(x: RadcliqInputs): number {
  let sum: number = RADCLIQ_V1.intercept;
  RADCLIQ_V1.metrics.forEach((name, i) => {
    sum += (RADCLIQ_V1.coef[i]! * (x[name] - RADCLIQ_V1.mean[i]!)) / RADCLIQ_V1.std[i]!;
  });
  return sum;
}

/**
 * What the leaderboard ranks by: 1 / mean RadCliQ-v1 when the mean is positive; when it is ≤ 0 the reciprocal is
 * meaningless (it would rank the best model last), so the mean itself, said so.
 */
export function rankingValue(meanRadcliq: number): { value: number; kind: 'inverse' | 'radcliq' } {
  return meanRadcliq > 0 ? { value: 1 / meanRadcliq, kind: 'inverse' } : { value: meanRadcliq, kind: 'radcliq' };
}
