import type { OpenEndedScores, OpenScoreMeans } from '../core/open-ended.js';
import { inPaperOrder } from '../core/question.js';
import type { GroupCounts } from '../score/summary.js';
import type { Table } from './text-table.js';

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

/**
 * The text scores of an open-ended run per task (exact match, token F1, ROUGE-L against the correct option's text)
 * and, when a judge mapped the answers to options, the accuracy that gives (comparable with a multiple-choice run).
 */
export function openEndedTable(scores: OpenEndedScores, judged: { byTask: Record<string, GroupCounts>; overall: GroupCounts } | null, title: string): Table {
  const row = (name: string, s: OpenScoreMeans, j: GroupCounts | undefined) => [
    name, String(s.n), String(s.answered), pct(s.exactMatch), pct(s.tokenF1), pct(s.rougeL), ...(judged ? [j ? pct(j.accuracy) : '—'] : []),
  ];
  return {
    title,
    headers: ['task', 'n', 'answered', 'exact match', 'token F1', 'ROUGE-L', ...(judged ? ['judged accuracy'] : [])],
    rows: [...Object.entries(scores.byTask).map(([task, s]) => row(task, s, judged?.byTask[task])), row('all questions', scores.overall, judged?.overall)],
    numeric: [false, true, true, true, true, true, true],
  };
}

/** A multiple-choice run's and an open-ended run's numbers for one model, per task. */
export interface ModeComparison {
  model: string;
  multipleChoice: { byTask: Record<string, GroupCounts>; overall: GroupCounts };
  open: { scores: OpenEndedScores; judged: { byTask: Record<string, GroupCounts>; overall: GroupCounts } | null };
}

/**
 * One model's multiple-choice and open-ended runs side by side per task: how much of its accuracy survives when it
 * cannot pick from a list. The judged accuracy (answers mapped to options by the judge) is the comparable figure.
 */
export function modeComparisonTable(c: ModeComparison): Table {
  const tasks = inPaperOrder([...Object.keys(c.multipleChoice.byTask), ...Object.keys(c.open.scores.byTask)]);
  const row = (name: string, mc: GroupCounts | undefined, open: OpenScoreMeans | undefined, judged: GroupCounts | undefined) => [
    name, mc ? String(mc.n) : '—', mc ? pct(mc.accuracy) : '—', open ? String(open.n) : '—', judged ? pct(judged.accuracy) : '—',
    open ? pct(open.exactMatch) : '—', open ? pct(open.tokenF1) : '—', open ? pct(open.rougeL) : '—',
  ];
  return {
    title: c.model,
    headers: ['task', 'MC n', 'MC accuracy', 'open n', 'open judged accuracy', 'open exact match', 'open token F1', 'open ROUGE-L'],
    rows: [
      ...tasks.map((t) => row(t, c.multipleChoice.byTask[t], c.open.scores.byTask[t], c.open.judged?.byTask[t])),
      row('all questions', c.multipleChoice.overall, c.open.scores.overall, c.open.judged?.overall),
    ],
    numeric: [false, true, true, true, true, true, true, true],
  };
}

