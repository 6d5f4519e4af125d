import type { Outcome } from '../core/model-io.js';
import { TASK_NAMES } from '../core/question.js';
import { seededRandom } from '../core/seeded-random.js';
import { quantile, studyInterval, taskWilsonMean, wilson, withSpread, type Estimate, type IntervalMethod, type MethodEstimate } from './intervals.js';

/** One cell of a results table: counts, accuracy with its Wilson interval and its study-bootstrap interval. */
export interface CellResult {
  n: number;
  correct: number;
  wrong: number;
  unparseable: number;
  /** Not read, and cut at the token limit (`finish_reason: length`). Absent from board entries scored before it was counted. */
  truncated: number;
  error: number;
  /** Answers read by the extraction rules, and by the judge (correct + wrong = readByRule + readByJudge). */
  readByRule: number;
  readByJudge: number;
  accuracy: Estimate;
  /**
   * The study-bootstrap interval, or Wilson's where the bootstrap has no spread (`method` says which). Entries a
   * board stored before the method was recorded lack it: read them through {@link cellInterval}.
   */
  bootstrap: Estimate & { method?: IntervalMethod };
  /** Fewer questions than the small-cell threshold: shown, but marked (the paper's 0%/100% categories). */
  small: boolean;
}

/** An outcome with the number of views its question was asked with. */
export type ScoredOutcome = Outcome & { views: number };

/** Everything `cxrbench score` reports. The JSON form is documented in docs/scoring.md. */
export interface Results {
  selected: number;
  notRun: number;
  overall: CellResult;
  /** ReXrank's overall (mean of the task accuracies) with a study-bootstrap interval (or, without spread, the mean of the task Wilson intervals). */
  rexrankOverall: Estimate & { tasks: string[]; method?: IntervalMethod };
  byTask: Record<string, CellResult>;
  byCategory: Record<string, CellResult>;
  bySubcategory: Record<string, CellResult>;
  byViews: Record<string, CellResult>;
  /** How answers were read: the extractor, and the judge model when one read what the rules could not. */
  reading: AnswerReading;
  settings: { resamples: number; seed: number; smallCell: number; interval: '95% Wilson; 95% percentile bootstrap over studies' };
}

/** How a run's answers were read, stated in every report. */
export interface AnswerReading {
  extractor: string;
  /** The judge model, or null when only the rules read answers. */
  judge: string | null;
}

export interface ScoreOptions {
  /** Stated in the results (default: an unnamed rules-only extractor). */
  reading?: AnswerReading;
  resamples: number;
  seed: number;
  smallCell: number;
  /** Which breakdowns beyond overall and task to compute (default all); a leaderboard needs only categories. */
  groups?: readonly ('category' | 'subcategory' | 'views')[];
}

function cell(outcomes: readonly ScoredOutcome[], options: ScoreOptions, seedOffset: number): CellResult {
  const counts = { correct: 0, wrong: 0, unparseable: 0, truncated: 0, error: 0, readByRule: 0, readByJudge: 0 };
  const byStudy = new Map<string, [number, number]>();
  for (const o of outcomes) {
    counts[o.status]++;
    if (o.predicted !== null) counts[o.extraction?.rule === 'judge' ? 'readByJudge' : 'readByRule']++;
    const s = byStudy.get(o.studyId) ?? [0, 0];
    if (o.status === 'correct') s[0]++;
    s[1]++;
    byStudy.set(o.studyId, s);
  }
  const n = outcomes.length;
  return {
    n, ...counts,
    accuracy: wilson(counts.correct, n),
    bootstrap: studyInterval([...byStudy.values()], options.resamples, options.seed + seedOffset),
    small: n < options.smallCell,
  };
}

function groups(outcomes: readonly ScoredOutcome[], key: (o: ScoredOutcome) => string): Map<string, ScoredOutcome[]> {
  const out = new Map<string, ScoredOutcome[]>();
  for (const o of outcomes) {
    const k = key(o);
    let list = out.get(k);
    if (!list) out.set(k, (list = []));
    list.push(o);
  }
  return out;
}

function table(outcomes: readonly ScoredOutcome[], key: (o: ScoredOutcome) => string, options: ScoreOptions, order?: readonly string[]): Record<string, CellResult> {
  const g = groups(outcomes, key);
  const names = [...g.keys()].sort((a, b) => {
    const rank = (x: string) => (order?.includes(x) ? order.indexOf(x) : Infinity);
    return rank(a) - rank(b) || g.get(b)!.length - g.get(a)!.length || a.localeCompare(b);
  });
  return Object.fromEntries(names.map((name, i) => [name, cell(g.get(name)!, options, i + 1)]));
}

/** Bootstrap over studies of the mean of the task accuracies. */
function rexrankOverall(outcomes: readonly ScoredOutcome[], options: ScoreOptions): MethodEstimate & { tasks: string[] } {
  const known = TASK_NAMES.filter((t) => outcomes.some((o) => o.task === t));
  const tasks: string[] = known.length > 0 ? [...known] : [...new Set(outcomes.map((o) => o.task))];
  const index = new Map(tasks.map((t, i) => [t, i]));
  // Per study and task: correct and total counts, flat, so each resample is a tight loop.
  const studyLists = [...groups(outcomes, (o) => o.studyId).values()];
  const T = tasks.length;
  const correct = new Float64Array(studyLists.length * T);
  const total = new Float64Array(studyLists.length * T);
  studyLists.forEach((list, s) => {
    for (const o of list) {
      const t = index.get(o.task);
      if (t === undefined) continue;
      total[s * T + t]!++;
      if (o.status === 'correct') correct[s * T + t]!++;
    }
  });
  const c = new Float64Array(T);
  const n = new Float64Array(T);
  const meanOfTasks = () => {
    let sum = 0;
    let present = 0;
    for (let t = 0; t < T; t++) if (n[t]! > 0) (sum += c[t]! / n[t]!), present++;
    return present === 0 ? 0 : sum / present;
  };
  const S = studyLists.length;
  for (let s = 0; s < S; s++) for (let t = 0; t < T; t++) (c[t]! += correct[s * T + t]!), (n[t]! += total[s * T + t]!);
  const value = meanOfTasks();
  const taskWilson = [...c].map((k, t) => wilson(k, n[t]!)).filter((e) => e.n > 0);
  const random = seededRandom(options.seed);
  const stats = new Float64Array(options.resamples);
  for (let b = 0; b < options.resamples; b++) {
    c.fill(0);
    n.fill(0);
    for (let i = 0; i < S; i++) {
      const s = ((random() * S) | 0) * T;
      for (let t = 0; t < T; t++) (c[t]! += correct[s + t]!), (n[t]! += total[s + t]!);
    }
    stats[b] = meanOfTasks();
  }
  stats.sort();
  const interval = withSpread({ value, lo: quantile(stats, 0.025), hi: quantile(stats, 0.975), n: outcomes.length }, () => taskWilsonMean(value, outcomes.length, taskWilson));
  return { ...interval, tasks };
}

/** A cell's interval as every table shows it: the study bootstrap, or Wilson's where that has no spread (method says). */
export function cellInterval(cell: Pick<CellResult, 'accuracy' | 'bootstrap'>): MethodEstimate {
  return withSpread(cell.bootstrap, () => ({ ...cell.accuracy, method: 'wilson' }));
}

/** ReXrank overall's interval as every table shows it: the study bootstrap, or the mean of the task Wilson intervals. */
export function overallInterval(overall: Results['rexrankOverall'], byTask: Readonly<Record<string, Pick<CellResult, 'accuracy'>>>): MethodEstimate {
  return withSpread(overall, () => taskWilsonMean(overall.value, overall.n, overall.tasks.flatMap((t) => (byTask[t] ? [byTask[t].accuracy] : []))));
}

/** Scores a run's outcomes: overall, per task, category, subcategory and number of views, every cell with n and intervals. */
export function scoreOutcomes(outcomes: readonly ScoredOutcome[], selected: number, options: ScoreOptions): Results {
  const wanted = (group: 'category' | 'subcategory' | 'views') => !options.groups || options.groups.includes(group);
  return {
    selected,
    notRun: selected - outcomes.length,
    overall: cell(outcomes, options, 0),
    rexrankOverall: rexrankOverall(outcomes, options),
    byTask: table(outcomes, (o) => o.task, options, TASK_NAMES),
    byCategory: wanted('category') ? table(outcomes, (o) => o.category ?? '(none)', options) : {},
    bySubcategory: wanted('subcategory') ? table(outcomes, (o) => `${o.category ?? '(none)'} / ${o.subcategory ?? '(none)'}`, options) : {},
    byViews: wanted('views') ? table(outcomes, (o) => `${o.views} view${o.views === 1 ? '' : 's'}`, options) : {},
    reading: options.reading ?? { extractor: 'rules', judge: null },
    settings: { resamples: options.resamples, seed: options.seed, smallCell: options.smallCell, interval: '95% Wilson; 95% percentile bootstrap over studies' },
  };
}
