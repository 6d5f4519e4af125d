import { inPaperOrder } from '../core/question.js';
import { seededRandom } from '../core/seeded-random.js';
import { holm, mcnemarExact } from './compare.js';
import { quantile } from './intervals.js';

/** One question answered by two runs: whether each got it right. */
export interface PairedItem {
  questionId: string;
  studyId: string;
  task: string;
  a: boolean;
  b: boolean;
}

/** Run A versus run B on a set of shared items. */
export interface PairedComparison {
  n: number;
  accuracyA: number;
  accuracyB: number;
  /** accuracyA − accuracyB, with a 95% paired bootstrap interval over studies. */
  difference: number;
  lo: number;
  hi: number;
  /** Discordant pairs: only A right (b), only B right (c). */
  onlyA: number;
  onlyB: number;
  /** Exact McNemar p-value, and (per task) Holm-adjusted across tasks. */
  p: number;
  pHolm: number;
}

function compareItems(items: readonly PairedItem[], resamples: number, seed: number): Omit<PairedComparison, 'pHolm'> {
  const studies = new Map<string, [number, number, number]>(); // [A right, B right, n]
  let onlyA = 0;
  let onlyB = 0;
  let rightA = 0;
  let rightB = 0;
  for (const item of items) {
    const s = studies.get(item.studyId) ?? [0, 0, 0];
    if (item.a) (s[0]++, rightA++);
    if (item.b) (s[1]++, rightB++);
    s[2]++;
    studies.set(item.studyId, s);
    if (item.a && !item.b) onlyA++;
    if (item.b && !item.a) onlyB++;
  }
  const n = items.length;
  const list = [...studies.values()];
  const random = seededRandom(seed);
  const stats = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let a = 0;
    let b = 0;
    let t = 0;
    for (let i = 0; i < list.length; i++) {
      const s = list[(random() * list.length) | 0]!;
      a += s[0];
      b += s[1];
      t += s[2];
    }
    stats[r] = t === 0 ? 0 : (a - b) / t;
  }
  stats.sort();
  return {
    n,
    accuracyA: n ? rightA / n : 0,
    accuracyB: n ? rightB / n : 0,
    difference: n ? (rightA - rightB) / n : 0,
    lo: quantile(stats, 0.025),
    hi: quantile(stats, 0.975),
    onlyA,
    onlyB,
    p: mcnemarExact(onlyA, onlyB),
  };
}

/** Overall and per-task paired comparison; per-task p-values are Holm-adjusted across the tasks. */
export function comparePaired(items: readonly PairedItem[], resamples: number, seed: number): { overall: PairedComparison; byTask: Record<string, PairedComparison> } {
  const overall = compareItems(items, resamples, seed);
  // Seeds follow the alphabetical order (as they always have, so saved comparisons reproduce); the output, the paper's.
  const tasks = [...new Set(items.map((i) => i.task))].sort();
  const raw = tasks.map((t, k) => compareItems(items.filter((i) => i.task === t), resamples, seed + k + 1));
  const adjusted = holm(raw.map((r) => r.p));
  const byTask = new Map(tasks.map((t, k) => [t, { ...raw[k]!, pHolm: adjusted[k]! }]));
  return { overall: { ...overall, pHolm: overall.p }, byTask: Object.fromEntries(inPaperOrder(tasks).map((t) => [t, byTask.get(t)!])) };
}

/**
 * Ranks runs into tiers: the most accurate run leads tier 1, and every run whose difference from it is not
 * significant (exact McNemar on shared items, Holm-adjusted over the comparisons with the leader, α = 0.05)
 * shares that tier; the best of the rest leads tier 2, and so on.
 */
export function rankWithTiers(runs: { name: string; correct: Map<string, boolean> }[], alpha = 0.05): { name: string; accuracy: number; tier: number; pVsTierLeader: number | null }[] {
  const accuracy = (r: { correct: Map<string, boolean> }) => [...r.correct.values()].filter(Boolean).length / Math.max(1, r.correct.size);
  const remaining = [...runs].sort((x, y) => accuracy(y) - accuracy(x) || x.name.localeCompare(y.name));
  const out: { name: string; accuracy: number; tier: number; pVsTierLeader: number | null }[] = [];
  let tier = 0;
  while (remaining.length > 0) {
    tier++;
    const leader = remaining.shift()!;
    out.push({ name: leader.name, accuracy: accuracy(leader), tier, pVsTierLeader: null });
    const ps = remaining.map((r) => {
      let onlyLeader = 0;
      let onlyOther = 0;
      for (const [id, right] of leader.correct) {
        const other = r.correct.get(id);
        if (other === undefined) continue;
        if (right && !other) onlyLeader++;
        if (other && !right) onlyOther++;
      }
      return mcnemarExact(onlyLeader, onlyOther);
    });
    const adjusted = holm(ps);
    const tied = remaining.filter((_, i) => adjusted[i]! >= alpha);
    tied.forEach((r) => out.push({ name: r.name, accuracy: accuracy(r), tier, pVsTierLeader: adjusted[remaining.indexOf(r)]! }));
    for (const r of tied) remaining.splice(remaining.indexOf(r), 1);
  }
  return out;
}

/** Two or more runs compared on the questions they share: every pair (overall and per task) and the tiered ranking. */
export interface RunsComparison {
  pairs: { a: string; b: string; overall: PairedComparison; byTask: Record<string, PairedComparison> }[];
  ranking: ReturnType<typeof rankWithTiers>;
}

/**
 * Compares named runs on `shared` question ids (each run has an outcome for every one): the paired comparison of
 * each pair, in order, and the rank tiers. `cxrbench compare` and the HTML report both show this.
 */
export function compareRuns(runs: readonly { name: string; outcomes: ReadonlyMap<string, { studyId: string; task: string; status: string }> }[], shared: readonly string[], resamples: number, seed: number): RunsComparison {
  const right = (run: (typeof runs)[number], id: string) => run.outcomes.get(id)!.status === 'correct';
  const pairs: RunsComparison['pairs'] = [];
  for (let i = 0; i < runs.length; i++) {
    for (let j = i + 1; j < runs.length; j++) {
      const items: PairedItem[] = shared.map((id) => {
        const a = runs[i]!.outcomes.get(id)!;
        return { questionId: id, studyId: a.studyId, task: a.task, a: right(runs[i]!, id), b: right(runs[j]!, id) };
      });
      pairs.push({ a: runs[i]!.name, b: runs[j]!.name, ...comparePaired(items, resamples, seed) });
    }
  }
  const ranking = rankWithTiers(runs.map((run) => ({ name: run.name, correct: new Map(shared.map((id) => [id, right(run, id)])) })));
  return { pairs, ranking };
}
