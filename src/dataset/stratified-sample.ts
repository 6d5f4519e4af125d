import { CxrError } from '../core/errors.js';
import type { Question } from '../core/question.js';
import { keyedSeed } from '../core/seeded-random.js';

/** What a stratified sample groups questions by. */
export const STRATIFY_KEYS = ['task', 'category', 'subcategory'] as const;

/** One of {@link STRATIFY_KEYS}. */
export type StratifyKey = (typeof STRATIFY_KEYS)[number];

/** How large a sample is: a number of questions, or a share of the split. */
export type SampleSize = { kind: 'count'; n: number } | { kind: 'share'; share: number };

/** The request for a sample: its size, what to stratify by (null: one stratum, the whole split) and the seed. */
export interface SampleSpec {
  size: SampleSize;
  stratify: StratifyKey | null;
  seed: number;
}

/** How many questions one stratum holds and how many were taken from it. */
export interface StratumCount {
  selected: number;
  of: number;
}

/** A drawn sample: the ids taken, the target size and the count per stratum (stratum names sorted). */
export interface StratifiedSample {
  ids: Set<string>;
  size: number;
  strata: Record<string, StratumCount>;
}

/** The stratum name of a question whose field is empty. */
export const NO_STRATUM = '(none)';

/**
 * Parses `--sample`: a whole number of questions (`200`), a percentage (`1%`, `2.5%`) or a share below 1 (`0.01`).
 * Zero, more than 100%, and anything not a number are refused by name (exit 2).
 */
export function parseSampleSize(text: string, option = '--sample'): SampleSize {
  const trimmed = text.trim();
  const percent = /^(\d+(?:\.\d+)?|\.\d+)\s*%$/.exec(trimmed);
  const bad = (why: string) => new CxrError('bad-option', `${option} ${text}: ${why}; expected a number of questions (e.g. 200), a percentage (e.g. 1%) or a share below 1 (e.g. 0.01)`);
  if (percent) {
    const share = Number(percent[1]) / 100;
    if (share <= 0) throw bad('a sample of 0% is empty');
    if (share > 1) throw bad('more than 100% of the split');
    return { kind: 'share', share };
  }
  if (!/^(\d+(?:\.\d+)?|\.\d+)$/.test(trimmed)) throw bad('not a number');
  const value = Number(trimmed);
  if (value === 0) throw bad('a sample of 0 questions is empty');
  if (Number.isInteger(value)) return { kind: 'count', n: value };
  if (value < 1) return { kind: 'share', share: value };
  throw bad('a count must be a whole number');
}

/** Parses `--stratify`: one of {@link STRATIFY_KEYS}, else a bad option (exit 2). */
export function parseStratifyKey(text: string, option = '--stratify'): StratifyKey {
  if ((STRATIFY_KEYS as readonly string[]).includes(text)) return text as StratifyKey;
  throw new CxrError('bad-option', `${option} ${text}: unknown stratify key; expected one of ${STRATIFY_KEYS.join(', ')}`);
}

/** The stratum a question belongs to under `key` (null: the single stratum `all`). */
export function stratumOf(question: Pick<Question, StratifyKey>, key: StratifyKey | null): string {
  if (key === null) return 'all';
  const value = question[key];
  return value === null || value.trim() === '' ? NO_STRATUM : value;
}

/**
 * The number of questions a size asks for out of `total`: a count as given (at most `total`), a share rounded to
 * the nearest whole question and at least one (a 1% sample of 57 questions is 1, not 0).
 */
export function sampleTarget(size: SampleSize, total: number): number {
  if (total === 0) return 0;
  if (size.kind === 'count') return Math.min(size.n, total);
  return Math.min(total, Math.max(1, Math.round(size.share * total)));
}

/**
 * Splits `target` units over strata in proportion to their sizes, exactly, by the largest-remainder (Hamilton)
 * method: each stratum gets the floor of its quota target × size / total, and the units left over go one each to
 * the strata with the largest remainders, ties to the stratum whose name sorts first. Integer arithmetic only, so
 * every machine gives the same split. Each stratum ends within 1 of its exact quota and never above its size.
 */
export function allocateLargestRemainder(sizes: ReadonlyMap<string, number>, target: number): Map<string, number> {
  const names = [...sizes.keys()].sort(compareNames);
  const total = names.reduce((sum, name) => sum + sizes.get(name)!, 0);
  if (!Number.isInteger(target) || target < 0 || target > total) throw new RangeError(`cannot allocate ${target} of ${total}`);
  const allocation = new Map<string, number>();
  const remainders: { name: string; remainder: number }[] = [];
  let given = 0;
  for (const name of names) {
    const product = target * sizes.get(name)!; // exact below 2^53 for any real split
    const floor = total === 0 ? 0 : Math.floor(product / total);
    allocation.set(name, floor);
    remainders.push({ name, remainder: total === 0 ? 0 : product - floor * total });
    given += floor;
  }
  remainders.sort((a, b) => b.remainder - a.remainder || compareNames(a.name, b.name));
  for (let i = 0; i < target - given; i++) allocation.set(remainders[i]!.name, allocation.get(remainders[i]!.name)! + 1);
  return allocation;
}

/** Code-unit order, the same under any locale. */
function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Draws a stratified sample of questions: sizes per stratum by {@link allocateLargestRemainder}, then within each
 * stratum the questions whose seeded FNV-1a hash of (seed, id) is smallest (ties by id). The choice depends only on
 * the seed and the ids in each stratum — not on file order or the machine — so `eval --sample` on a split and
 * `data subset` of it take the same questions.
 */
export function stratifiedSample(questions: Iterable<Pick<Question, 'id' | StratifyKey>>, spec: SampleSpec): StratifiedSample {
  const byStratum = new Map<string, string[]>();
  for (const q of questions) {
    const name = stratumOf(q, spec.stratify);
    const ids = byStratum.get(name);
    if (ids) ids.push(q.id);
    else byStratum.set(name, [q.id]);
  }
  const total = [...byStratum.values()].reduce((sum, ids) => sum + ids.length, 0);
  const size = sampleTarget(spec.size, total);
  const allocation = allocateLargestRemainder(new Map([...byStratum].map(([name, ids]) => [name, ids.length])), size);
  const ids = new Set<string>();
  const strata: Record<string, StratumCount> = {};
  for (const name of [...byStratum.keys()].sort(compareNames)) {
    const members = byStratum.get(name)!;
    const take = allocation.get(name)!;
    const ranked = members.map((id) => ({ id, rank: keyedSeed(spec.seed, id) })).sort((a, b) => a.rank - b.rank || compareNames(a.id, b.id));
    for (const { id } of ranked.slice(0, take)) ids.add(id);
    strata[name] = { selected: take, of: members.length };
  }
  return { ids, size, strata };
}

/**
 * {@link stratifiedSample} over a stream of questions (a split read from disk), keeping only the fields strata need;
 * also returns how many questions the stream held.
 */
export async function drawStratifiedSample(questions: AsyncIterable<Pick<Question, 'id' | StratifyKey>>, spec: SampleSpec): Promise<{ count: number; sample: StratifiedSample }> {
  const keys: Pick<Question, 'id' | StratifyKey>[] = [];
  for await (const q of questions) keys.push({ id: q.id, task: q.task, category: q.category, subcategory: q.subcategory });
  return { count: keys.length, sample: stratifiedSample(keys, spec) };
}
