import type { ConsistencyCounts, ConsistencyReport } from '../score/consistency.js';
import type { GroupCounts, RunSummary } from '../score/summary.js';
import { renderTable } from './text-table.js';

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

function row(name: string, c: GroupCounts): string[] {
  return [name, String(c.n), pct(c.accuracy), String(c.correct), String(c.wrong), String(c.readByRule), String(c.readByJudge), String(c.unparseable), String(c.truncated), String(c.error)];
}

/**
 * The terminal summary of a run: accuracy per task, overall (micro) and ReXrank overall, every outcome counted,
 * with how answers were read (rules, judge, unparseable, truncated). `judge` names the judge model when one was used.
 */
export function runSummaryTable(summary: RunSummary, title: string, judge: string | null = null): string {
  const rows = Object.entries(summary.byTask).map(([task, c]) => row(task, c));
  rows.push(row('all questions (micro)', summary.overall));
  const lines = [
    renderTable(
      { title, headers: ['task', 'n', 'accuracy', 'correct', 'wrong', 'read by rules', 'read by judge', 'unparseable', 'truncated', 'error'], rows, numeric: [false, true, true, true, true, true, true, true, true, true] },
      'table',
    ),
    `ReXrank overall (mean of ${summary.rexrankTasks.length} task accuracies): ${summary.rexrankOverall === null ? '—' : pct(summary.rexrankOverall)}`,
    `answers read: ${summary.overall.readByRule} by the rules${summary.overall.readFromReasoning > 0 ? ` (${summary.overall.readFromReasoning} of them from the reasoning: the answer was empty)` : ''}, ${summary.overall.readByJudge} by the judge${judge ? ` (${judge})` : ' (none used)'}, ${summary.overall.unparseable} unparseable (counted wrong), ${summary.overall.truncated} truncated at the token limit (counted wrong${summary.overall.truncated > 0 ? '; raise --max-tokens' : ''})`,
    summary.complete
      ? summary.overall.error > 0
        ? `every question asked; ${summary.overall.error} of ${summary.selected} ended in error`
        : `complete: ${summary.selected} of ${summary.selected} questions answered`
      : `INCOMPLETE: ${summary.selected - summary.notRun} of ${summary.selected} questions answered, ${summary.notRun} not yet run (rerun the same command to continue)`,
  ];
  return lines.join('\n') + '\n';
}

/** The position-bias check: per task, how often the same option was chosen when the options were reordered. */
export function consistencyTable(report: ConsistencyReport): string {
  const row = (name: string, c: ConsistencyCounts) => [
    name, String(c.pairs), String(c.bothAnswered), String(c.consistent), c.rate === null ? '—' : pct(c.rate), pct(c.accuracyOriginal), pct(c.accuracyShuffled),
  ];
  const rows = Object.entries(report.byTask).map(([t, c]) => row(t, c));
  rows.push(row('all', report.overall));
  return renderTable(
    { title: '\nPosition-bias check (options permuted, the gold option moved)', headers: ['task', 'pairs', 'both answered', 'same option', 'consistency', 'acc. original', 'acc. permuted'], rows, numeric: [false, true, true, true, true, true, true] },
    'table',
  );
}
