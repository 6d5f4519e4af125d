import { fnv1a } from '../../models/baselines/tokens.js';
import { words } from '../words.js';

/** A question's text for the diversity filter: its stem and its options in a fixed order (option order is not content). */
export const diversityText = (question: string, options: readonly string[]) => `${question} ${[...options].sort().join(' ')}`;

export interface DiversityOptions {
  /** Drop a question whose cosine similarity to a kept one exceeds this (paper: 0.9). */
  threshold: number;
  /** Locality-sensitive hashing: bands × bits random hyperplanes (defaults 8 × 8: ~94% recall of pairs at cosine 0.9, all at 1.0). */
  bands?: number;
  bits?: number;
  /** At most this many kept questions compared per bucket (the newest); bounds the work on templated text. */
  bucketCap?: number;
}

/** For each input, kept, or dropped as too similar to the kept question `nearest` (index) with that similarity. */
export type DiversityVerdict = { kept: true } | { kept: false; nearest: number; similarity: number };

interface Vector { terms: Int32Array; weights: Float64Array }

function vectorise(docs: string[]): Vector[] {
  const vocabulary = new Map<string, number>();
  const counts = docs.map((d) => {
    const c = new Map<number, number>();
    for (const w of words(d)) {
      if (!/\w/.test(w.lower)) continue;
      let id = vocabulary.get(w.lower);
      if (id === undefined) vocabulary.set(w.lower, (id = vocabulary.size));
      c.set(id, (c.get(id) ?? 0) + 1);
    }
    return c;
  });
  const df = new Float64Array(vocabulary.size);
  for (const c of counts) for (const id of c.keys()) df[id]!++;
  return counts.map((c) => {
    const terms = Int32Array.from(c.keys());
    const weights = Float64Array.from(terms, (id) => (1 + Math.log(c.get(id)!)) * Math.log((1 + docs.length) / (1 + df[id]!)) + 1e-9);
    const norm = Math.hypot(...weights) || 1;
    for (let i = 0; i < weights.length; i++) weights[i]! /= norm;
    return { terms, weights };
  });
}

function cosine(a: Vector, b: Vector): number {
  let dot = 0;
  // Terms are in first-seen order, not sorted: use a small map for the shorter vector.
  if (a.terms.length > b.terms.length) [a, b] = [b, a];
  const index = new Map<number, number>();
  a.terms.forEach((t, k) => index.set(t, a.weights[k]!));
  for (let j = 0; j < b.terms.length; j++) {
    const w = index.get(b.terms[j]!);
    if (w !== undefined) dot += w * b.weights[j]!;
  }
  return dot;
}

/**
 * The paper's diversity filter: keeps questions in order and drops one whose TF-IDF cosine similarity to a kept
 * question exceeds the threshold. Candidates come from random-hyperplane LSH buckets (sign of hashed ±1
 * projections), so the work grows with the number of questions, not its square; every candidate is verified
 * with the exact cosine. Deterministic.
 */
export function diversityFilter(texts: string[], options: DiversityOptions): DiversityVerdict[] {
  const bands = options.bands ?? 8;
  const bits = options.bits ?? 8;
  const cap = options.bucketCap ?? 64;
  const vectors = vectorise(texts);
  const planeSigns = new Map<number, Int8Array>();
  const signsOf = (term: number) => {
    let s = planeSigns.get(term);
    if (!s) {
      s = new Int8Array(bands * bits);
      for (let p = 0; p < s.length; p++) s[p] = fnv1a(`${term}:${p}`) & 1 ? 1 : -1;
      planeSigns.set(term, s);
    }
    return s;
  };
  const buckets = new Map<string, number[]>();
  const verdicts: DiversityVerdict[] = [];
  // Exact duplicates (same words, any case or spacing) are found by hash, whatever the buckets hold.
  const exact = new Map<string, number>();
  const exactKey = (text: string) => words(text).map((w) => w.lower).filter((w) => /\w/.test(w)).join(' ');
  const sums = new Float64Array(bands * bits);
  vectors.forEach((v, index) => {
    const key = exactKey(texts[index]!);
    const twin = exact.get(key);
    if (twin !== undefined) {
      verdicts.push({ kept: false, nearest: twin, similarity: 1 });
      return;
    }
    sums.fill(0);
    for (let k = 0; k < v.terms.length; k++) {
      const s = signsOf(v.terms[k]!);
      const w = v.weights[k]!;
      for (let p = 0; p < s.length; p++) sums[p]! += s[p]! * w;
    }
    const keys: string[] = [];
    for (let b = 0; b < bands; b++) {
      let code = 0;
      for (let r = 0; r < bits; r++) code = (code << 1) | (sums[b * bits + r]! >= 0 ? 1 : 0);
      keys.push(`${b}:${code}`);
    }
    let best = -1;
    let bestSimilarity = -Infinity;
    const seen = new Set<number>();
    for (const bucket of keys) {
      const members = buckets.get(bucket);
      if (!members) continue;
      for (let m = members.length - 1; m >= Math.max(0, members.length - cap); m--) {
        const other = members[m]!;
        if (seen.has(other)) continue;
        seen.add(other);
        const similarity = cosine(v, vectors[other]!);
        if (similarity > bestSimilarity) [best, bestSimilarity] = [other, similarity];
      }
    }
    if (best >= 0 && bestSimilarity > options.threshold) {
      verdicts.push({ kept: false, nearest: best, similarity: bestSimilarity });
      return;
    }
    verdicts.push({ kept: true });
    exact.set(key, index);
    for (const bucket of keys) {
      const members = buckets.get(bucket);
      if (members) members.push(index);
      else buckets.set(bucket, [index]);
    }
  });
  return verdicts;
}
