import { NO_SPREAD_NOTE, NO_SPREAD_OVERALL_NOTE, type MethodEstimate } from '../score/intervals.js';
import { cellInterval, overallInterval, type CellResult, type Results } from '../score/results.js';
import { renderTable, type Table, type TableFormat } from './text-table.js';

/** The formats of `cxrbench score` available so far. */
export type ResultsFormat = TableFormat | 'json';

const pct = (x: number) => `${(100 * x).toFixed(1)}`;
/** "lo–hi", marked † where the study bootstrap had no spread and Wilson's interval stands in. */
const range = (e: MethodEstimate) => `${pct(e.lo)}–${pct(e.hi)}${e.method === 'study-bootstrap' ? '' : '†'}`;

function rows(cells: Record<string, CellResult>): string[][] {
  return Object.entries(cells).map(([name, c]) => [
    `${name}${c.small ? ' *' : ''}`, String(c.n), pct(c.accuracy.value), `${pct(c.accuracy.lo)}–${pct(c.accuracy.hi)}`, range(cellInterval(c)),
    String(c.readByJudge), String(c.unparseable), String(c.truncated ?? 0), String(c.error),
  ]);
}

function section(title: string, first: string, cells: Record<string, CellResult>): Table {
  return {
    title,
    headers: [first, 'n', 'acc %', 'Wilson 95%', 'study bootstrap 95%', 'by judge', 'unparseable', 'truncated', 'error'],
    rows: rows(cells),
    numeric: [false, true, true, true, true, true, true, true, true],
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
    const add = (group: string, name: string, c: CellResult) => {
      const b = cellInterval(c);
      out.push([group, name, String(c.n), String(c.correct), String(c.wrong), String(c.readByRule), String(c.readByJudge), String(c.unparseable), String(c.truncated ?? 0), String(c.error), c.accuracy.value.toFixed(6), c.accuracy.lo.toFixed(6), c.accuracy.hi.toFixed(6), b.lo.toFixed(6), b.hi.toFixed(6), b.method, String(c.small)]);
    };
    add('overall', 'all questions', results.overall);
    for (const [group, , cells] of sections) for (const [name, c] of Object.entries(cells)) add(group.toLowerCase(), name, c);
    return renderTable({ headers: ['group', 'name', 'n', 'correct', 'wrong', 'read_by_rule', 'read_by_judge', 'unparseable', 'truncated', 'error', 'accuracy', 'wilson_lo', 'wilson_hi', 'bootstrap_lo', 'bootstrap_hi', 'bootstrap_method', 'small'], rows: out }, 'csv');
  }
  const o = results.overall;
  const ob = cellInterval(o);
  const r = overallInterval(results.rexrankOverall, results.byTask);
  const head = [
    format === 'md' ? `## ${title}\n` : title,
    `micro accuracy ${pct(o.accuracy.value)}% (Wilson 95% ${pct(o.accuracy.lo)}–${pct(o.accuracy.hi)}, study bootstrap 95% ${range(ob)}), n = ${o.n}`,
    `ReXrank overall (mean of ${results.rexrankOverall.tasks.length} task accuracies) ${pct(r.value)}% (study bootstrap 95% ${range(r)})`,
    `answers read: ${o.readByRule} by the rules (${results.reading.extractor}), ${o.readByJudge} by the judge (${results.reading.judge ?? 'none used'}), ${o.unparseable} unparseable (${pct(o.n ? o.unparseable / o.n : 0)}%, counted wrong), ${o.truncated ?? 0} truncated at the token limit (${pct(o.n ? (o.truncated ?? 0) / o.n : 0)}%, counted wrong); errors ${o.error}, not yet run ${results.notRun}`,
    `* fewer than ${results.settings.smallCell} questions; intervals: ${results.settings.interval}, ${results.settings.resamples} resamples, seed ${results.settings.seed}`,
    ...([ob, r, ...sections.flatMap(([, , cells]) => Object.values(cells).map(cellInterval))].some((e) => e.method !== 'study-bootstrap') ? [`${NO_SPREAD_NOTE} (${NO_SPREAD_OVERALL_NOTE})`] : []),
    '',
  ].join(format === 'md' ? '\n\n' : '\n');
  return head + sections.map(([t, first, cells]) => renderTable(section(t, first, cells), format)).join('\n');
}
