import { fnv1a } from '../../core/fnv1a.js';

/** A question's text for the diversity filter: its stem and its options in a fixed order (option order is not content). */
export const diversityText = (question: string, options: readonly string[]) => `${question} ${[...options].sort().join(' ')}`;

export interface DiversityOptions {
  /** Drop a question whose cosine similarity to a kept one exceeds this (paper: 0.9). */
  threshold: number;
  /** Locality-sensitive hashing: bands × bits random hyperplanes (defaults 16 × 8: a pair at cosine 0.9 shares a bucket with probability 0.996; exact duplicates always found). */
  bands?: number;
  bits?: number;
  /** At most this many kept questions compared per bucket (the newest; default 32); bounds the work on templated text. */
  bucketCap?: number;
}

/**
 * Settings that compare every pair exactly (one bucket, no hyperplanes) for a small set — a report's few questions —
 * where hashing would cost more than it saves.
 */
export const allPairsIfSmall = (count: number): Partial<DiversityOptions> => (count <= 64 ? { bands: 1, bits: 0, bucketCap: Infinity } : {});

/** For each input, kept, or dropped as more similar than the threshold to the kept question `nearest` (the first found, not necessarily the closest). */
export type DiversityVerdict = { kept: true } | { kept: false; nearest: number; similarity: number };

/** All documents' sparse vectors in one compressed-row store: few objects, so 600K questions fit in memory. */
interface Vectors { offsets: Int32Array; terms: Int32Array; weights: Float32Array }

/** Lower-case word tokens (letters and digits); the filter needs speed here, not ICU's finer word boundaries. */
const tokensOf = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

class Growable {
  data: Int32Array | Float32Array;
  length = 0;
  constructor(private readonly make: (n: number) => Int32Array | Float32Array, capacity: number) {
    this.data = make(Math.max(64, capacity));
  }
  push(x: number): void {
    if (this.length === this.data.length) {
      const bigger = this.make(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = x;
  }
}

/**
 * A 53-bit hash of a word sequence: two FNV-1a passes (different starting states) over the words and the spaces
 * between them, as over the joined text but without building it — on 600K questions those strings were most of
 * the filter's garbage, and so of its peak memory.
 */
function sequenceHash(tokens: readonly string[]): number {
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (let t = 0; t < tokens.length; t++) {
    const word = tokens[t]!;
    if (t > 0) {
      a = Math.imul(a ^ 32, 0x01000193);
      b = Math.imul(b ^ 32, 0x01000193);
    }
    for (let i = 0; i < word.length; i++) {
      const c = word.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x01000193);
    }
  }
  return (a >>> 0) * 2 ** 21 + ((b >>> 0) >>> 11);
}

/** TF-IDF vectors (sublinear tf, smoothed idf, L2-normalised) and a 53-bit hash of each text's word sequence. */
function vectorise(docs: string[]): { vectors: Vectors; exactHashes: Float64Array } {
  const vocabulary = new Map<string, number>();
  const offsets = new Int32Array(docs.length + 1);
  // About 24 distinct words per question: sized for that, so the few questions of one report allocate little.
  const terms = new Growable((n) => new Int32Array(n), docs.length * 24);
  const weights = new Growable((n) => new Float32Array(n), docs.length * 24);
  const exactHashes = new Float64Array(docs.length);
  const df: number[] = [];
  const local = new Map<number, number>();
  docs.forEach((d, index) => {
    local.clear();
    const tokens = tokensOf(d);
    exactHashes[index] = sequenceHash(tokens);
    for (const t of tokens) {
      let id = vocabulary.get(t);
      if (id === undefined) {
        vocabulary.set(t, (id = vocabulary.size));
        df.push(0);
      }
      local.set(id, (local.get(id) ?? 0) + 1);
    }
    for (const [id, count] of local) {
      terms.push(id);
      weights.push(count);
      df[id]!++;
    }
    offsets[index + 1] = terms.length;
  });
  const t = terms.data as Int32Array;
  const w = weights.data as Float32Array;
  for (let doc = 0; doc < docs.length; doc++) {
    let norm = 0;
    for (let k = offsets[doc]!; k < offsets[doc + 1]!; k++) {
      w[k] = (1 + Math.log(w[k]!)) * Math.log((1 + docs.length) / (1 + df[t[k]!]!)) + 1e-9;
      norm += w[k]! * w[k]!;
    }
    norm = Math.sqrt(norm) || 1;
    for (let k = offsets[doc]!; k < offsets[doc + 1]!; k++) w[k]! /= norm;
  }
  return { vectors: { offsets, terms: t.subarray(0, terms.length), weights: w.subarray(0, weights.length) }, exactHashes };
}

/** Dot product of stored vector `b` with the vector loaded in `loaded` (term → weight); both are L2-normalised. */
function dotWithLoaded(v: Vectors, loaded: Map<number, number>, b: number): number {
  let dot = 0;
  for (let k = v.offsets[b]!; k < v.offsets[b + 1]!; k++) {
    const x = loaded.get(v.terms[k]!);
    if (x !== undefined) dot += x * v.weights[k]!;
  }
  return dot;
}

/** A sign (±1) per (feature, hyperplane), from a mixed hash: FNV-1a's low bit is only the parity of the characters. */
function planeSign(feature: number, plane: number): 1 | -1 {
  let h = fnv1a(`${feature}:${plane}`);
  h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
  h ^= h >>> 12;
  return h >>> 31 ? 1 : -1;
}

/**
 * The vectors the filter compares, whatever made them: `project` fills the random-hyperplane sums of one vector;
 * `load` then `similarityTo` give its cosine with another; `exactKey` groups exact duplicates.
 */
interface VectorSource {
  count: number;
  project(index: number, sums: Float64Array): void;
  load(index: number): void;
  similarityTo(other: number): number;
  exactKey(index: number): number;
  sameText(a: number, b: number): boolean;
}

function sparseSource(texts: string[], planes: number): VectorSource {
  const { vectors, exactHashes } = vectorise(texts);
  const signs = new Map<number, Int8Array>();
  const signsOf = (term: number) => {
    let row = signs.get(term);
    if (!row) {
      row = Int8Array.from({ length: planes }, (_, p) => planeSign(term, p));
      signs.set(term, row);
    }
    return row;
  };
  const loaded = new Map<number, number>();
  return {
    count: texts.length,
    project(index, sums) {
      sums.fill(0);
      for (let k = vectors.offsets[index]!; k < vectors.offsets[index + 1]!; k++) {
        const row = signsOf(vectors.terms[k]!);
        const w = vectors.weights[k]!;
        for (let p = 0; p < planes; p++) sums[p]! += row[p]! * w;
      }
    },
    load(index) {
      loaded.clear();
      for (let k = vectors.offsets[index]!; k < vectors.offsets[index + 1]!; k++) loaded.set(vectors.terms[k]!, vectors.weights[k]!);
    },
    similarityTo: (other) => dotWithLoaded(vectors, loaded, other),
    exactKey: (index) => exactHashes[index]!,
    sameText: (a, b) => tokensOf(texts[a]!).join(' ') === tokensOf(texts[b]!).join(' '),
  };
}

/** Dense vectors (embeddings from a model), L2-normalised here; exact duplicates by their text. */
function denseSource(texts: string[], embeddings: Float32Array[], planes: number): VectorSource {
  const dims = embeddings[0]?.length ?? 0;
  const normalised = embeddings.map((e) => {
    const norm = Math.hypot(...e) || 1;
    return Float32Array.from(e, (x) => x / norm);
  });
  const signs = Array.from({ length: dims }, (_, d) => Int8Array.from({ length: planes }, (_, p) => planeSign(d, p)));
  const keys = texts.map((t) => tokensOf(t).join(' '));
  const keyIds = new Map<string, number>();
  let loaded: Float32Array = new Float32Array(0);
  return {
    count: texts.length,
    project(index, sums) {
      sums.fill(0);
      const v = normalised[index]!;
      for (let d = 0; d < dims; d++) for (let p = 0; p < planes; p++) sums[p]! += signs[d]![p]! * v[d]!;
    },
    load(index) {
      loaded = normalised[index]!;
    },
    similarityTo(other) {
      const v = normalised[other]!;
      let dot = 0;
      for (let d = 0; d < dims; d++) dot += loaded[d]! * v[d]!;
      return dot;
    },
    exactKey(index) {
      const key = keys[index]!;
      let id = keyIds.get(key);
      if (id === undefined) keyIds.set(key, (id = keyIds.size));
      return id;
    },
    sameText: (a, b) => keys[a] === keys[b],
  };
}

/**
 * The paper's diversity filter: keeps questions in order and drops one whose cosine similarity to a kept
 * question exceeds the threshold — TF-IDF vectors of the question and its options by default, or embeddings from
 * a model when given (one per text). Candidates come from random-hyperplane LSH buckets (sign of hashed ±1
 * projections), so the work grows with the number of questions, not its square; every candidate is verified
 * with the exact cosine. Deterministic.
 */
export function diversityFilter(texts: string[], options: DiversityOptions, embeddings?: Float32Array[]): DiversityVerdict[] {
  const bands = options.bands ?? 16;
  const bits = options.bits ?? 8;
  const cap = options.bucketCap ?? 32;
  const planes = bands * bits;
  if (embeddings && embeddings.length !== texts.length) throw new Error(`diversity filter: ${embeddings.length} embeddings for ${texts.length} texts`);
  const source = embeddings ? denseSource(texts, embeddings, planes) : sparseSource(texts, planes);
  const seen = new Set<number>();
  // Buckets as linked lists in two fixed arrays (newest first): no per-bucket array growth on 600K questions.
  const head = new Int32Array(bands * 2 ** bits).fill(-1);
  const next = new Int32Array(Math.max(1, texts.length * bands));
  const keys = new Float64Array(bands);
  // Each question's full signature (one bit per hyperplane), to skip candidates whose Hamming distance rules out
  // the threshold before the exact cosine: the angle is about π·(distance/planes).
  const wordsPer = Math.ceil(planes / 32);
  const signatures = new Uint32Array(Math.max(1, texts.length * wordsPer));
  // At the threshold each bit differs with probability q = angle/π; allow five standard deviations above the mean.
  const q = Math.acos(Math.max(-1, Math.min(1, options.threshold))) / Math.PI;
  const maxDistance = Math.ceil(planes * q + 5 * Math.sqrt(planes * q * (1 - q)));
  const popcount = (x: number) => {
    x -= (x >>> 1) & 0x55555555;
    x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
    return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
  };
  const exact = new Map<number, number>();
  const sums = new Float64Array(planes);
  const verdicts: DiversityVerdict[] = [];
  for (let index = 0; index < source.count; index++) {
    // Exact duplicates (same words, any case or spacing) are found directly, whatever the buckets hold; a hash
    // match is checked word for word, so a collision never drops a question.
    const key = source.exactKey(index);
    const twin = exact.get(key);
    if (twin !== undefined && options.threshold < 1 && source.sameText(twin, index)) {
      verdicts.push({ kept: false, nearest: twin, similarity: 1 });
      continue;
    }
    source.project(index, sums);
    for (let p = 0; p < planes; p++) if (sums[p]! >= 0) signatures[index * wordsPer + (p >>> 5)]! |= 1 << (p & 31);
    for (let b = 0; b < bands; b++) {
      let code = 0;
      for (let r = 0; r < bits; r++) code = code * 2 + (sums[b * bits + r]! >= 0 ? 1 : 0);
      keys[b] = b * 2 ** bits + code;
    }
    // The first kept question above the threshold decides (any one is reason enough to drop this one).
    source.load(index);
    seen.clear();
    let dropped: DiversityVerdict | null = null;
    for (const bucket of keys) {
      let looked = 0;
      for (let entry = head[bucket]!; entry >= 0 && looked < cap && !dropped; entry = next[entry]!, looked++) {
        const other = Math.floor(entry / bands);
        if (seen.has(other)) continue;
        seen.add(other);
        let distance = 0;
        for (let w = 0; w < wordsPer; w++) distance += popcount((signatures[index * wordsPer + w]! ^ signatures[other * wordsPer + w]!) >>> 0);
        if (distance > maxDistance) continue;
        const similarity = source.similarityTo(other);
        if (similarity > options.threshold) dropped = { kept: false, nearest: other, similarity };
      }
      if (dropped) break;
    }
    if (dropped) {
      verdicts.push(dropped);
      continue;
    }
    verdicts.push({ kept: true });
    if (!exact.has(key)) exact.set(key, index);
    keys.forEach((bucket, b) => {
      const entry = index * bands + b;
      next[entry] = head[bucket]!;
      head[bucket] = entry;
    });
  }
  return verdicts;
}
