import type { CellResult, Results } from '../score/results.js';
import { renderTable, type Table, type TableFormat } from './text-table.js';

/** The formats of `cxrbench score` available so far. */
export type ResultsFormat = TableFormat | 'json';

const pct = (x: number) => `${(100 * x).toFixed(1)}`;

function rows(cells: Record<string, CellResult>): string[][] {
  return Object.entries(cells).map(([name, c]) => [
    `${name}${c.small ? ' *' : ''}`, String(c.n), pct(c.accuracy.value), `${pct(c.accuracy.lo)}–${pct(c.accuracy.hi)}`, `${pct(c.bootstrap.lo)}–${pct(c.bootstrap.hi)}`,
    String(c.readByJudge), String(c.unparseable), String(c.error),
  ]);
}

function section(title: string, first: string, cells: Record<string, CellResult>): Table {
  return {
    title,
    headers: [first, 'n', 'acc %', 'Wilson 95%', 'bootstrap 95%', 'by judge', 'unreadable', 'error'],
    rows: rows(cells),
    numeric: [false, true, true, true, true, true, true, true],
  };
}

/** Renders scored results; `*` marks cells under the small-cell threshold. CSV is one long table. */
export function formatResults(results: Results, format: ResultsFormat, title: string): string {
  if (format === 'json') return JSON.stringify(results, null, 2) + '\n';
  const sections: [string, string, Record<string, CellResult>][] = [
    ['Tasks', 'task', results.byTask],
    ['Categories', 'category', results.byCategory],
    ['Subcategories', 'category / subcategory', results.bySubcategory],
    ['Views per question', 'views', results.byViews],
  ];
  if (format === 'csv') {
    const out: string[][] = [];
    const add = (group: string, name: string, c: CellResult) =>
      out.push([group, name, String(c.n), String(c.correct), String(c.wrong), String(c.readByRule), String(c.readByJudge), String(c.unparseable), String(c.error), c.accuracy.value.toFixed(6), c.accuracy.lo.toFixed(6), c.accuracy.hi.toFixed(6), c.bootstrap.lo.toFixed(6), c.bootstrap.hi.toFixed(6), String(c.small)]);
    add('overall', 'all questions', results.overall);
    for (const [group, , cells] of sections) for (const [name, c] of Object.entries(cells)) add(group.toLowerCase(), name, c);
    return renderTable({ headers: ['group', 'name', 'n', 'correct', 'wrong', 'read_by_rule', 'read_by_judge', 'unparseable', 'error', 'accuracy', 'wilson_lo', 'wilson_hi', 'bootstrap_lo', 'bootstrap_hi', 'small'], rows: out }, 'csv');
  }
  const o = results.overall;
  const r = results.rexrankOverall;
  const head = [
    format === 'md' ? `## ${title}\n` : title,
    `micro accuracy ${pct(o.accuracy.value)}% (Wilson ${pct(o.accuracy.lo)}–${pct(o.accuracy.hi)}, bootstrap over studies ${pct(o.bootstrap.lo)}–${pct(o.bootstrap.hi)}), n = ${o.n}`,
    `ReXrank overall (mean of ${r.tasks.length} task accuracies) ${pct(r.value)}% (bootstrap ${pct(r.lo)}–${pct(r.hi)})`,
    `answers read: ${o.readByRule} by the rules (${results.reading.extractor}), ${o.readByJudge} by the judge (${results.reading.judge ?? 'none used'}), ${o.unparseable} unreadable = failed extractions (${pct(o.n ? o.unparseable / o.n : 0)}%, counted wrong); errors ${o.error}, not yet run ${results.notRun}`,
    `* fewer than ${results.settings.smallCell} questions; intervals: ${results.settings.interval}, ${results.settings.resamples} resamples, seed ${results.settings.seed}`,
    '',
  ].join(format === 'md' ? '\n\n' : '\n');
  return head + sections.map(([t, first, cells]) => renderTable(section(t, first, cells), format)).join('\n');
}
