import { cosine } from './model-metrics.js';

/**
 * RaTEScore (Zhao et al., 2024) from what its two networks compute: the medical entities of each report (text and
 * type, from the RaTE-NER model) with one embedding each (BioLORD-2023-C's [CLS] vector). The arithmetic follows
 * MAGIC-AI4Med/RaTEScore (RaTEScore/utils.py `compute`, RaTEScore/scorer.py `compute_score`); this is our own code.
 */

/** The entity types of RaTE-NER, as its labels name them (`B-ABNORMALITY` → `ABNORMALITY`). */
export const RATESCORE_TYPES = ['ABNORMALITY', 'NON-ABNORMALITY', 'DISEASE', 'NON-DISEASE', 'ANATOMY'] as const;
export type RateEntityType = (typeof RATESCORE_TYPES)[number];

/** One entity of a report: its text (for people reading the output), its type and its embedding. */
export interface RateEntity {
  text: string;
  type: RateEntityType;
  embedding: readonly number[];
}

/**
 * RaTEScore's published constants. `weights` is the default type-pair weight matrix, keyed `<type of the entity
 * being matched>_<type of its best match>` as published: DEFAULT_MATRIX in RaTEScore/scorer.py, the same numbers
 * as affinity_matrix/long_weight.json (MAGIC-AI4Med/RaTEScore). `contradictionPenalty` multiplies a match between a
 * finding and its negation (`neg_weight` and `neg_class` in RaTEScore/utils.py `compute`).
 * `emptySideScore` is a study's score when either report has no entity: 0.5 in RaTEScore/scorer.py at commit
 * 2ab44986; the same file at commit 5c510d71 gives 0 — which of the two is later could not be told (docs/rrg.md).
 */
export const RATESCORE = {
  weights: {
    'abnormality_abnormality': 0.4276119164393705, 'abnormality_anatomy': 0.6240929990607657, 'abnormality_disease': 0.0034478181112993847,
    'abnormality_non-abnormality': 0.5431049700217344, 'abnormality_non-disease': 0.27005425386213877,
    'anatomy_abnormality': 0.7487824274337533, 'anatomy_anatomy': 0.2856134859160784, 'anatomy_disease': 0.4592143222158069,
    'anatomy_non-abnormality': 0.02097055139911715, 'anatomy_non-disease': 0.00013736314126696204,
    'disease_abnormality': 0.8396510075734789, 'disease_anatomy': 0.9950209388542061, 'disease_disease': 0.8460555030578727,
    'disease_non-abnormality': 0.9820689020512646, 'disease_non-disease': 0.3789136708096537,
    'non-abnormality_abnormality': 0.16546764653692908, 'non-abnormality_anatomy': 0.018670610691852826, 'non-abnormality_disease': 0.719397354576018,
    'non-abnormality_non-abnormality': 0.0009357166071730684, 'non-abnormality_non-disease': 0.0927333564267591,
    'non-disease_abnormality': 0.7759420231214385, 'non-disease_anatomy': 0.1839139293714062, 'non-disease_disease': 0.10073046076318157,
    'non-disease_non-abnormality': 0.03860183811876373, 'non-disease_non-disease': 0.34065681486566446,
  } as Readonly<Record<string, number>>,
  contradictionPenalty: 0.3612,
  /** Pairs (entity type, its match's type) that contradict: a finding and a negated finding. The list is symmetric. */
  contradictions: [
    ['NON-DISEASE', 'DISEASE'], ['NON-ABNORMALITY', 'ABNORMALITY'], ['DISEASE', 'NON-DISEASE'], ['ABNORMALITY', 'NON-ABNORMALITY'],
    ['NON-DISEASE', 'ABNORMALITY'], ['NON-ABNORMALITY', 'DISEASE'], ['DISEASE', 'NON-ABNORMALITY'], ['ABNORMALITY', 'NON-DISEASE'],
  ] as readonly (readonly [RateEntityType, RateEntityType])[],
  emptySideScore: 0.5,
} as const;

/** The published weight of matching an entity of type `from` to one of type `to`. */
export function typePairWeight(from: RateEntityType, to: RateEntityType): number {
  const w = RATESCORE.weights[`${from.toLowerCase()}_${to.toLowerCase()}`];
  if (w === undefined) throw new Error(`RaTEScore: no weight for the type pair ${from}, ${to}`);
  return w;
}

const contradicts = (a: RateEntityType, b: RateEntityType) => RATESCORE.contradictions.some(([x, y]) => x === a && y === b);

/**
 * One direction of RaTEScore: every entity of `from` is matched to its most similar entity of `to` (cosine of the
 * embeddings; the first on a tie); its similarity counts with the weight of the type pair, times the penalty when
 * the pair contradicts; the result is Σ similarity·weight·penalty / Σ weight (the penalty is not in the
 * denominator, as published), 0 when the weights sum to 0. Both sides must be non-empty.
 */
export function rateDirection(from: readonly RateEntity[], to: readonly RateEntity[]): number {
  let numerator = 0;
  let denominator = 0;
  for (const e of from) {
    let best = -Infinity;
    let match = to[0]!;
    for (const f of to) {
      const s = cosine(e.embedding, f.embedding);
      if (s > best) [best, match] = [s, f];
    }
    const weight = typePairWeight(e.type, match.type);
    numerator += best * weight * (contradicts(e.type, match.type) ? RATESCORE.contradictionPenalty : 1);
    denominator += weight;
  }
  return denominator === 0 ? 0 : numerator / denominator;
}

/**
 * RaTEScore of a candidate report against its reference: the harmonic mean of the two directions (reference
 * entities matched into the candidate's, and the other way round), 0 when both are 0, and
 * RATESCORE.emptySideScore when either report has no entity.
 */
export function rateScore(reference: readonly RateEntity[], candidate: readonly RateEntity[]): number {
  if (reference.length === 0 || candidate.length === 0) return RATESCORE.emptySideScore;
  const a = rateDirection(reference, candidate);
  const b = rateDirection(candidate, reference);
  return a + b === 0 ? 0 : (2 * a * b) / (a + b);
}
