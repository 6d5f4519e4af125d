import type { CountShare, DatasetStats, PerStudyDistribution } from '../core/dataset-stats.js';
import { TASK_NAMES } from '../core/question.js';
import { renderTable, type Table, type TableFormat } from './text-table.js';

/** The formats of `data stats`. */
export type StatsFormat = TableFormat | 'json';

const pct = (share: CountShare | undefined) => (share ? `${share.count} (${share.pct.toFixed(1)}%)` : '—');

/** Rows are the union of names over splits: known task names first in paper order, then the rest by total count. */
function crossTable(title: string, stats: DatasetStats, pick: (split: string) => Record<string, CountShare>, firstColumn: string, order?: readonly string[]): Table {
  const splits = Object.keys(stats.splits);
  const totals = new Map<string, number>();
  for (const split of splits) for (const [name, share] of Object.entries(pick(split))) totals.set(name, (totals.get(name) ?? 0) + share.count);
  const names = [...totals.keys()].sort((a, b) => {
    const rank = (n: string) => (order?.includes(n) ? order.indexOf(n) : Infinity);
    return rank(a) - rank(b) || totals.get(b)! - totals.get(a)! || a.localeCompare(b);
  });
  return {
    title,
    headers: [firstColumn, ...splits],
    rows: names.map((name) => [name, ...splits.map((split) => pct(pick(split)[name]))]),
    numeric: [false, ...splits.map(() => true)],
  };
}

function distributionTable(stats: DatasetStats): Table {
  const splits = Object.keys(stats.splits);
  const row = (label: string, pickDist: (s: string) => PerStudyDistribution, value: (d: PerStudyDistribution) => number) => [
    label,
    ...splits.map((split) => formatNumber(value(pickDist(split)))),
  ];
  const q = (s: string) => stats.splits[s]!.questionsPerStudy;
  const im = (s: string) => stats.splits[s]!.imagesPerStudy;
  return {
    title: 'Studies',
    headers: ['measure', ...splits],
    rows: [
      ['questions', ...splits.map((s) => String(stats.splits[s]!.total))],
      ['excluded (errors)', ...splits.map((s) => String(stats.splits[s]!.excluded))],
      row('studies', q, (d) => d.studies),
      row('questions/study min', q, (d) => d.min),
      row('questions/study median', q, (d) => d.median),
      row('questions/study mean', q, (d) => d.mean),
      row('questions/study max', q, (d) => d.max),
      row('images/study min', im, (d) => d.min),
      row('images/study median', im, (d) => d.median),
      row('images/study mean', im, (d) => d.mean),
      row('images/study max', im, (d) => d.max),
    ],
    numeric: [false, ...splits.map(() => true)],
  };
}

function formatNumber(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(2);
}

function subcategoryTable(stats: DatasetStats): Table {
  const flat = (split: string) => {
    const out: Record<string, CountShare> = {};
    for (const [cat, subs] of Object.entries(stats.splits[split]!.bySubcategory)) {
      for (const [sub, share] of Object.entries(subs)) out[`${cat} / ${sub}`] = share;
    }
    return out;
  };
  const table = crossTable('Subcategories (share of their category)', stats, flat, 'category / subcategory');
  table.rows.sort((a, b) => a[0]!.localeCompare(b[0]!));
  return table;
}

/** The tables of `data stats`, in order: tasks (paper Table 1), categories, subcategories, answers, studies, views. */
export function statsTables(stats: DatasetStats): Table[] {
  return [
    crossTable('Questions per task (paper Table 1)', stats, (s) => stats.splits[s]!.byTask, 'task', TASK_NAMES),
    crossTable('Categories', stats, (s) => stats.splits[s]!.byCategory, 'category'),
    subcategoryTable(stats),
    crossTable('Correct answer letter', stats, (s) => stats.splits[s]!.byAnswer, 'answer', ['A', 'B', 'C', 'D']),
    distributionTable(stats),
    crossTable('View positions (distinct images)', stats, (s) => stats.splits[s]!.viewPositions, 'view'),
  ];
}

/** Renders dataset statistics; CSV is one long table `section,split,name,count,pct` for spreadsheets. */
export function formatStats(stats: DatasetStats, format: StatsFormat): string {
  if (format === 'json') return JSON.stringify(stats, null, 2) + '\n';
  if (format === 'csv') return statsCsv(stats);
  return statsTables(stats).map((t) => renderTable(t, format)).join('\n');
}

function statsCsv(stats: DatasetStats): string {
  const rows: string[][] = [];
  const add = (section: string, split: string, shares: Record<string, CountShare>) => {
    for (const [name, s] of Object.entries(shares)) rows.push([section, split, name, String(s.count), s.pct.toFixed(4)]);
  };
  for (const [split, s] of Object.entries(stats.splits)) {
    rows.push(['total', split, 'questions', String(s.total), '100.0000']);
    rows.push(['total', split, 'excluded', String(s.excluded), '']);
    add('task', split, s.byTask);
    add('category', split, s.byCategory);
    for (const [cat, subs] of Object.entries(s.bySubcategory)) add('subcategory', split, Object.fromEntries(Object.entries(subs).map(([k, v]) => [`${cat} / ${k}`, v])));
    add('answer', split, s.byAnswer);
    add('view', split, s.viewPositions);
    for (const [label, d] of [['questions_per_study', s.questionsPerStudy], ['images_per_study', s.imagesPerStudy]] as const) {
      for (const stat of ['studies', 'min', 'median', 'mean', 'max'] as const) rows.push([label, split, stat, formatNumber(d[stat]), '']);
    }
  }
  return renderTable({ headers: ['section', 'split', 'name', 'count', 'pct'], rows }, 'csv');
}
