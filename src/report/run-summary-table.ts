import type { GroupCounts, RunSummary } from '../score/summary.js';
import { renderTable } from './text-table.js';

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

function row(name: string, c: GroupCounts): string[] {
  return [name, String(c.n), pct(c.accuracy), String(c.correct), String(c.wrong), String(c.unparseable), String(c.error)];
}

/** The terminal summary of a run: accuracy per task, overall (micro) and ReXrank overall, every outcome counted. */
export function runSummaryTable(summary: RunSummary, title: string): string {
  const rows = Object.entries(summary.byTask).map(([task, c]) => row(task, c));
  rows.push(row('all questions (micro)', summary.overall));
  const lines = [
    renderTable(
      { title, headers: ['task', 'n', 'accuracy', 'correct', 'wrong', 'unparseable', 'error'], rows, numeric: [false, true, true, true, true, true, true] },
      'table',
    ),
    `ReXrank overall (mean of ${summary.rexrankTasks.length} task accuracies): ${summary.rexrankOverall === null ? '—' : pct(summary.rexrankOverall)}`,
    summary.complete
      ? `complete: ${summary.selected} of ${summary.selected} questions answered`
      : `INCOMPLETE: ${summary.selected - summary.notRun} of ${summary.selected} questions answered, ${summary.notRun} not yet run (rerun the same command to continue)`,
  ];
  return lines.join('\n') + '\n';
}
