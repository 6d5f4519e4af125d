import { TIE_BREAK, type LeaderboardRow } from '../../board/leaderboard.js';
import type { SubmissionProblem } from '../../board/score-submission.js';
import { TASK_NAMES } from '../../core/question.js';
import type { Benchmark } from '../../store/benchmarks.js';
import { html, plural, safeLink, type Html } from './html.js';
import { pct } from './layout.js';

export const TASK_SHORT: Record<string, string> = {
  'Presence Assessment': 'Presence', 'Negation Assessment': 'Negation', 'Differential Diagnosis': 'Differential',
  'Location and Distribution Assessment': 'Location', 'Geometric Information Assessment': 'Geometry',
};

export const SORT_KEYS = ['overall', 'micro', 'unparseable', 'name', ...TASK_NAMES] as const;
export type SortKey = (typeof SORT_KEYS)[number];

function taskValue(row: LeaderboardRow, task: string): number | null {
  if (row.metrics) return row.metrics.byTask[task]?.accuracy.value ?? null;
  return row.reported?.byTask[task] ?? null;
}

/** Sorts rows by a column (default: the ranking); rows without a value go last. */
export function sortRows(rows: LeaderboardRow[], key: SortKey): LeaderboardRow[] {
  const value = (r: LeaderboardRow): number | string | null => {
    if (key === 'overall') return r.overall;
    if (key === 'micro') return r.micro;
    if (key === 'unparseable') return -r.unparseable;
    if (key === 'name') return r.model.name.toLowerCase();
    return taskValue(r, key);
  };
  if (key === 'overall') return rows;
  return [...rows].sort((a, b) => {
    const x = value(a);
    const y = value(b);
    if (x === null) return y === null ? 0 : 1;
    if (y === null) return -1;
    return typeof x === 'string' ? x.localeCompare(y as string) : (y as number) - x;
  });
}

function badge(row: LeaderboardRow): Html {
  if (row.kind === 'baseline') return html` <span class="badge baseline" title="a baseline, not a model">baseline</span>`;
  if (row.kind === 'reported') return html` <span class="badge reported" title="published elsewhere; not verified here">reported, not verified here</span>`;
  return html``;
}

function interval(e: { value: number; lo: number; hi: number } | undefined): Html {
  if (!e) return html`—`;
  return html`${pct(e.value)}<span class="ci"> ${pct(e.lo)}–${pct(e.hi)}</span>`;
}

function sortLink(slug: string, key: SortKey, label: string, current: SortKey): Html {
  return html`<a href="/b/${encodeURIComponent(slug)}?sort=${encodeURIComponent(key)}" class="${key === current ? 'sorted' : ''}" data-sort="${key}">${label}</a>`;
}

export function leaderboardPage(benchmark: Benchmark, rows: LeaderboardRow[], sort: SortKey): Html {
  const sorted = sortRows(rows, sort);
  return html`<h1>${benchmark.title}</h1>
<p class="meta">Version ${benchmark.version} · ${benchmark.item_count} hidden questions · test set sha256 <code>${benchmark.content_sha256.slice(0, 16)}…</code> ·
${benchmark.is_open ? 'open for submissions' : 'closed'} · <a href="/b/${benchmark.slug}/categories">per category</a> · <a href="/b/${benchmark.slug}/submit">submit</a></p>
<p class="help">Overall is ReXrank's (the mean of the five task accuracies) with a 95% study-bootstrap interval; micro is accuracy over all questions with a 95% Wilson interval.
Failed extractions are answers no rule could read (counted wrong). Entries in one tier are not significantly different from the tier's first entry (exact McNemar, α = 0.05). ${TIE_BREAK}</p>
<table class="board" id="leaderboard"><thead><tr>
<th>Tier</th><th>#</th><th>${sortLink(benchmark.slug, 'name', 'Model', sort)}</th><th>Team</th>
<th>${sortLink(benchmark.slug, 'overall', 'Overall', sort)}</th><th>${sortLink(benchmark.slug, 'micro', 'Micro', sort)}</th>
${TASK_NAMES.map((t) => html`<th>${sortLink(benchmark.slug, t, TASK_SHORT[t] ?? t, sort)}</th>`)}
<th>${sortLink(benchmark.slug, 'unparseable', 'Failed extractions', sort)}</th></tr></thead><tbody>
${sorted.map((r) => html`<tr class="${r.kind}" data-id="${r.id}"><td>${r.tier ?? '—'}</td><td>${r.rank ?? '—'}</td>
<td><a href="/entries/${r.id}">${r.model.name}</a>${badge(r)}</td><td>${r.team ?? ''}</td>
<td>${r.metrics ? interval(r.metrics.rexrankOverall) : pct(r.overall)}</td><td>${r.metrics ? interval(r.metrics.overall.accuracy) : '—'}</td>
${TASK_NAMES.map((t) => html`<td>${r.metrics ? interval(r.metrics.byTask[t]?.accuracy) : pct(r.reported?.byTask[t])}</td>`)}
<td>${r.unparseable}${r.n ? html`<span class="ci"> of ${r.n}</span>` : ''}</td></tr>`)}
</tbody></table>${rows.length === 0 ? html`<p>No entries yet.</p>` : ''}`;
}

export function categoriesPage(benchmark: Benchmark, rows: LeaderboardRow[]): Html {
  const verified = rows.filter((r) => r.metrics);
  const categories = [...new Set(verified.flatMap((r) => Object.keys(r.metrics!.byCategory)))].sort();
  const minCell = verified[0]?.metrics?.settings.minPublicCell ?? 10;
  return html`<h1>${benchmark.title}: accuracy per category</h1>
<p class="help">Accuracy (%) with its 95% Wilson interval and the number of questions. Categories with fewer than ${minCell} questions are not shown: so few would reveal which answers were right.</p>
<table class="board" id="categories"><thead><tr><th>Category</th>${verified.map((r) => html`<th><a href="/entries/${r.id}">${r.model.name}</a>${badge(r)}</th>`)}</tr></thead><tbody>
${categories.map((c) => html`<tr><th scope="row">${c}</th>${verified.map((r) => {
    const cell = r.metrics!.byCategory[c];
    return html`<td>${cell ? html`${interval(cell.accuracy)}<span class="ci"> n=${cell.n}</span>` : '—'}</td>`;
  })}</tr>`)}
</tbody></table>`;
}

export function entryPage(entry: { slug: string; title: string; version: string; team: string | null }, row: LeaderboardRow): Html {
  const m = row.model;
  return html`<h1>${m.name}${badge(row)}</h1>
<dl class="card"><dt>Benchmark</dt><dd><a href="/b/${entry.slug}">${entry.title}</a> (version ${entry.version})</dd>
<dt>Team</dt><dd>${entry.team ?? '—'}</dd><dt>Organisation</dt><dd>${m.organisation ?? '—'}</dd>
<dt>Model URL</dt><dd>${safeLink(m.url, m.url ?? '')}</dd><dt>Paper</dt><dd>${safeLink(m.paper, m.paper ?? '')}</dd>
<dt>Open weights</dt><dd>${m.openWeights ? 'yes' : 'no'}</dd><dt>Parameters</dt><dd>${m.parametersBillion !== undefined ? `${m.parametersBillion} B` : '—'}</dd>
<dt>Date</dt><dd>${m.date ?? '—'}</dd><dt>Rank</dt><dd>${row.rank ?? '—'} (tier ${row.tier ?? '—'})</dd>
<dt>Overall (ReXrank)</dt><dd>${row.metrics ? interval(row.metrics.rexrankOverall) : pct(row.overall)}</dd>
<dt>Micro accuracy</dt><dd>${row.metrics ? interval(row.metrics.overall.accuracy) : '—'}</dd>
<dt>Failed extractions</dt><dd>${row.unparseable}${row.n ? ` of ${row.n}` : ''}</dd>
${row.metrics ? html`<dt>Answers read</dt><dd>${row.metrics.overall.readByRule ?? row.metrics.overall.correct + row.metrics.overall.wrong} by the rules (${row.metrics.settings.extractor}), ${row.metrics.overall.readByJudge ?? 0} by a judge (none: the board reads by rules only), ${row.unparseable} unreadable</dd>` : ''}</dl>
${row.metrics ? html`<h2>Per task</h2><table class="board"><thead><tr><th>Task</th><th>n</th><th>Accuracy (95% Wilson)</th><th>95% study bootstrap</th><th>Failed extractions</th></tr></thead><tbody>
${Object.entries(row.metrics.byTask).map(([t, c]) => html`<tr><th scope="row">${t}</th><td>${c.n}</td><td>${interval(c.accuracy)}</td><td>${interval(c.bootstrap)}</td><td>${c.unparseable}</td></tr>`)}</tbody></table>` : ''}
${m.prompt ? html`<h2>Prompt</h2><pre>${m.prompt}</pre>` : ''}${m.notes ? html`<h2>Notes</h2><p>${m.notes}</p>` : ''}`;
}

export function problemsList(problems: readonly SubmissionProblem[]): Html {
  return html`<div class="problems" role="alert"><p>Nothing was stored. The upload has ${plural(problems.length, 'kind of problem', 'kinds of problem')}:</p><ul>${problems.map((p) => html`<li><code>${p.code}</code> (${p.count}): ${p.message}</li>`)}</ul></div>`;
}
