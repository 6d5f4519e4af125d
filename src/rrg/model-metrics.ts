import { bagF1 } from './bag-f1.js';
/**
 * The arithmetic of ReXrank's model-based metrics, done here from what a model computes (token embeddings, a
 * report embedding, an extracted graph, error counts). Only the network's forward pass is external.
 */

function norm(v: readonly number[]): number {
  let s = 0;
  for (const x of v) s += x * x;
  return Math.sqrt(s);
}

/** Cosine similarity of two vectors (0 when either is all zeros). */
export function cosine(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) throw new Error(`cosine: vectors of ${a.length} and ${b.length} dimensions`);
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  const n = norm(a) * norm(b);
  return n === 0 ? 0 : dot / n;
}

/** BERTScore's baseline F for distilroberta-base cut to 5 layers (bert-score's rescale file), as ReXrank uses. */
export const BERTSCORE_BASELINE_F = 0.8473319;

/**
 * BERTScore F1 from contextual token embeddings (no IDF weighting, as ReXrank runs it): each token matched greedily
 * to its most similar token on the other side; precision over the candidate's tokens, recall over the
 * reference's, F1, then rescaled with the baseline: (F − b) / (1 − b). An empty side scores the rescaled 0.
 */
export function bertScoreF1(reference: readonly (readonly number[])[], candidate: readonly (readonly number[])[], baseline = BERTSCORE_BASELINE_F): number {
  const greedy = (from: readonly (readonly number[])[], to: readonly (readonly number[])[]) =>
    from.reduce((sum, v) => sum + Math.max(...to.map((w) => cosine(v, w))), 0) / from.length;
  const f = reference.length === 0 || candidate.length === 0 ? 0 : (() => {
    const p = greedy(candidate, reference);
    const r = greedy(reference, candidate);
    return p + r === 0 ? 0 : (2 * p * r) / (p + r);
  })();
  return (f - baseline) / (1 - baseline);
}

/** SembScore: cosine similarity of the CheXbert embeddings of the two reports. */
export function sembScore(reference: readonly number[], candidate: readonly number[]): number {
  return cosine(reference, candidate);
}

/** A report's RadGraph: entities (their text and label) and relations between them (by entity index). */
export interface RadGraph {
  entities: { text: string; label: string }[];
  relations: { source: number; target: number; type: string }[];
}

/**
 * RadGraph F1 as ReXrank combines it: the mean of the entity F1 (an entity matches when its text and label
 * match) and the relation F1 (a relation matches when both entities' texts and labels and its type match).
 */
export function radGraphCombined(reference: RadGraph, candidate: RadGraph): number {
  const entities = (g: RadGraph) => g.entities.map((e) => `${e.text.toLowerCase()}\u0000${e.label}`);
  // Each graph's entity keys made once: made per relation, a graph of n entities and relations took n² steps.
  const relations = (g: RadGraph, keys: readonly string[]) => g.relations.filter((r) => keys[r.source] !== undefined && keys[r.target] !== undefined)
    .map((r) => `${keys[r.source]}\u0001${keys[r.target]}\u0001${r.type}`);
  const [r, c] = [entities(reference), entities(candidate)];
  return (bagF1(r, c) + bagF1(relations(reference, r), relations(candidate, c))) / 2;
}

/** GREEN from the judge's counts: matched findings / (matched findings + clinically significant errors); 0 of 0 is 0. */
export function greenScore(counts: { matched: number; significantErrors: number }): number {
  const total = counts.matched + counts.significantErrors;
  return total === 0 ? 0 : counts.matched / total;
}
