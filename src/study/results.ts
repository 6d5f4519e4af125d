import { inPaperOrder } from '../core/question.js';
import { agreementOn, type AgreementTable } from '../score/agreement-matrix.js';
import { wilson, type Estimate } from '../score/intervals.js';

/** A case as results need it: its id, task and gold. */
export interface ResultItem {
  questionId: string;
  task: string;
  gold: string;
}

/** Someone who answered the study's items: a reader (human) or a model. */
export interface Rater {
  name: string;
  kind: 'reader' | 'model';
  /** A model's source: a leaderboard entry of the study's benchmark (public), or a run the host added (not public). */
  origin?: 'entry' | 'run';
  /** Letter by question id; absent or null: not answered. */
  answers: ReadonlyMap<string, string | null>;
}

/** A rater's accuracy: correct over every case of the study (an unanswered case is not correct), with the count answered. */
export interface RaterAccuracy {
  name: string;
  kind: Rater['kind'];
  origin: Rater['origin'];
  answered: number;
  overall: Estimate;
  byTask: Record<string, Estimate>;
}

export interface StudyResults {
  items: number;
  tasks: string[];
  raters: RaterAccuracy[];
  /** Cohen's kappa of every pair (pairwise-complete items, n per cell) over all items, and per task. */
  agreement: AgreementTable;
  agreementByTask: Record<string, AgreementTable>;
}

function accuracyOn(items: readonly ResultItem[], rater: Rater): Estimate {
  const correct = items.filter((i) => rater.answers.get(i.questionId) === i.gold).length;
  return wilson(correct, items.length);
}

/** Accuracy with Wilson intervals, overall and per task, and the kappa matrices of readers and models (Figure 5). */
export function studyResults(items: readonly ResultItem[], raters: readonly Rater[]): StudyResults {
  const tasks = inPaperOrder(items.map((i) => i.task));
  const byTask = new Map(tasks.map((t) => [t, items.filter((i) => i.task === t)]));
  const ids = items.map((i) => i.questionId);
  const matrixRaters = raters.map((r) => ({ name: r.name, answers: new Map(r.answers) }));
  return {
    items: items.length,
    tasks,
    raters: raters.map((r) => ({
      name: r.name,
      kind: r.kind,
      origin: r.origin,
      answered: ids.filter((id) => (r.answers.get(id) ?? null) !== null).length,
      overall: accuracyOn(items, r),
      byTask: Object.fromEntries(tasks.map((t) => [t, accuracyOn(byTask.get(t)!, r)])),
    })),
    agreement: agreementOn(matrixRaters, ids, 'pairwise'),
    agreementByTask: Object.fromEntries(tasks.map((t) => [t, agreementOn(matrixRaters, byTask.get(t)!.map((i) => i.questionId), 'pairwise')])),
  };
}

/** Seconds per case of one reader: median, mean and total over the cases with any time recorded. */
export function timeSummary(msByCase: ReadonlyMap<number, number> | undefined): { cases: number; medianS: number | null; meanS: number | null; totalS: number } {
  const values = [...(msByCase?.values() ?? [])].sort((a, b) => a - b);
  if (values.length === 0) return { cases: 0, medianS: null, meanS: null, totalS: 0 };
  const mid = values.length >> 1;
  const median = values.length % 2 ? values[mid]! : (values[mid - 1]! + values[mid]!) / 2;
  const total = values.reduce((s, v) => s + v, 0);
  return { cases: values.length, medianS: median / 1000, meanS: total / values.length / 1000, totalS: total / 1000 };
}
