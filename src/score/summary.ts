import type { Outcome } from '../core/model-io.js';
import { inPaperOrder, TASK_NAMES } from '../core/question.js';

/**
 * Counts of one group of outcomes, and its accuracy (correct over all outcomes: unparseable, truncated and
 * errors count as not correct). Answers are counted three ways: read by the rules, read by the judge, not read
 * (unparseable, or truncated at the token limit).
 */
export interface GroupCounts {
  n: number;
  correct: number;
  wrong: number;
  unparseable: number;
  truncated: number;
  error: number;
  accuracy: number;
  readByRule: number;
  readByJudge: number;
  /** Of those read by the rules, answers read from the reasoning because the answer itself was empty (rule `reasoning:*`). */
  readFromReasoning: number;
}

/** The headline numbers of a run: per task, micro over all questions, and ReXrank's overall (mean of the task accuracies). */
export interface RunSummary {
  selected: number;
  notRun: number;
  complete: boolean;
  overall: GroupCounts;
  byTask: Record<string, GroupCounts>;
  /** Mean of the task accuracies over the tasks present (ReXrank's "Overall Accuracy"); null when no task has outcomes. */
  rexrankOverall: number | null;
  /** Which tasks the ReXrank overall averages (all five on a full ReXVQA split). */
  rexrankTasks: string[];
}

function emptyCounts(): GroupCounts {
  return { n: 0, correct: 0, wrong: 0, unparseable: 0, truncated: 0, error: 0, accuracy: 0, readByRule: 0, readByJudge: 0, readFromReasoning: 0 };
}

function add(counts: GroupCounts, outcome: Outcome): void {
  counts.n++;
  counts[outcome.status]++;
  if (outcome.predicted !== null) counts[outcome.extraction?.rule === 'judge' ? 'readByJudge' : 'readByRule']++;
  if (outcome.predicted !== null && outcome.extraction?.rule.startsWith('reasoning:')) counts.readFromReasoning++;
  counts.accuracy = counts.correct / counts.n;
}

/** Summarises outcomes; `selected` is the number of questions the run covers (outcomes may be fewer if it stopped early). */
export function summarizeOutcomes(outcomes: readonly Outcome[], selected: number): RunSummary {
  const overall = emptyCounts();
  const byTask: Record<string, GroupCounts> = {};
  for (const o of outcomes) {
    add(overall, o);
    add((byTask[o.task] ??= emptyCounts()), o);
  }
  const known = TASK_NAMES.filter((t) => byTask[t]);
  const ordered = Object.fromEntries(inPaperOrder(Object.keys(byTask)).map((t) => [t, byTask[t]!]));
  const rexrankTasks = known.length > 0 ? [...known] : Object.keys(byTask);
  const rexrankOverall = rexrankTasks.length > 0 ? rexrankTasks.reduce((s, t) => s + byTask[t]!.accuracy, 0) / rexrankTasks.length : null;
  return { selected, notRun: selected - outcomes.length, complete: outcomes.length === selected, overall, byTask: ordered, rexrankOverall, rexrankTasks };
}
