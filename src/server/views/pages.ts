import { TIE_BREAK, type LeaderboardRow } from '../../board/leaderboard.js';
import type { SubmissionProblem } from '../../board/score-submission.js';
import { inPaperOrder, TASK_NAMES } from '../../core/question.js';
import { NO_SPREAD_NOTE, NO_SPREAD_OVERALL_NOTE, type IntervalMethod } from '../../score/intervals.js';
import { cellInterval, overallInterval, type CellResult } from '../../score/results.js';
import type { Benchmark } from '../../store/benchmarks.js';
import { html, plural, type Html } from './html.js';
import { fact, modelCardFacts, openWeightsText } from './model-facts.js';
import { pct } from './layout.js';

export const TASK_SHORT: Record<string, string> = {
  'Presence Assessment': 'Presence', 'Negation Assessment': 'Negation', 'Differential Diagnosis': 'Differential',
  'Location and Distribution Assessment': 'Location', 'Geometric Information Assessment': 'Geometry',
};

export const SORT_KEYS = ['overall', 'micro', 'unparseable', 'name', 'size', 'date', ...TASK_NAMES] as const;
export type SortKey = (typeof SORT_KEYS)[number];
export type SortDirection = 'asc' | 'desc';

/** A column's first order: best first (highest accuracy, fewest unparseable), names A→Z, newest and largest first. */
export function defaultDirection(key: SortKey): SortDirection {
  return key === 'name' || key === 'unparseable' ? 'asc' : 'desc';
}

function taskValue(row: LeaderboardRow, task: string): number | null {
  if (row.metrics) return row.metrics.byTask[task]?.accuracy.value ?? null;
  return row.reported?.byTask[task] ?? null;
}

/** Sorts rows by a column in a direction; rows without a value go last either way. The default is the ranking. */
export function sortRows(rows: LeaderboardRow[], key: SortKey, direction: SortDirection = defaultDirection(key)): LeaderboardRow[] {
  const value = (r: LeaderboardRow): number | string | null => {
    if (key === 'overall') return r.overall;
    if (key === 'micro') return r.micro;
    if (key === 'unparseable') return r.kind === 'reported' && !r.n ? null : r.unparseable;
    if (key === 'name') return r.model.name.toLowerCase();
    if (key === 'size') return r.model.parametersBillion ?? null;
    if (key === 'date') return r.model.date ?? null;
    return taskValue(r, key);
  };
  // The ranking order is the page's own (rank, then the stated tie-break); reversing it reverses that order.
  if (key === 'overall') return direction === 'desc' ? rows : [...rows].reverse();
  const sign = direction === 'asc' ? 1 : -1;
  return [...rows].sort((a, b) => {
    const x = value(a);
    const y = value(b);
    if (x === null) return y === null ? 0 : 1;
    if (y === null) return -1;
    return sign * (typeof x === 'string' ? x.localeCompare(y as string) : x - (y as number));
  });
}

function badge(row: LeaderboardRow): Html {
  if (row.kind === 'baseline') return html` <span class="badge baseline" title="a baseline, not a model">baseline</span>`;
  if (row.kind === 'reported') return html` <span class="badge reported" title="published elsewhere; not verified here">reported, not verified here</span>`;
  return html``;
}

/** An accuracy and its interval; † (explained on the page) where Wilson's stands in for a study bootstrap without spread. */
function interval(e: { value: number; lo: number; hi: number; method?: IntervalMethod } | undefined): Html {
  if (!e) return html`—`;
  const fallback = e.method !== undefined && e.method !== 'study-bootstrap';
  return html`${pct(e.value)}<span class="ci"> ${pct(e.lo)}–${pct(e.hi)}${fallback ? html`<span title="the study bootstrap has no spread here: Wilson's interval">†</span>` : ''}</span>`;
}

/** The interval the leaderboard shows for a cell (the same as `cxrbench report` for the run): study bootstrap, or Wilson's without spread. */
const shown = (cell: CellResult | undefined) => (cell ? cellInterval(cell) : undefined);

/**
 * A sortable column's header cell: a link that sorts by it (in the URL, so a sorted board can be shared), an
 * arrow and `aria-sort` on the sorted column, and the reverse order on a second click.
 */
function sortHeader(slug: string, key: SortKey, label: string, current: { key: SortKey; direction: SortDirection }): Html {
  const active = key === current.key;
  const next = active ? (current.direction === 'asc' ? 'desc' : 'asc') : defaultDirection(key);
  const query = key === 'overall' && next === 'desc' ? '' : `?sort=${encodeURIComponent(key)}${next === defaultDirection(key) ? '' : `&dir=${next}`}`;
  const arrow = active ? (current.direction === 'asc' ? ' ▲' : ' ▼') : '';
  return html`<th scope="col" class="${key === 'name' ? '' : 'num'}"${active ? html` aria-sort="${current.direction === 'asc' ? 'ascending' : 'descending'}"` : ''}><a href="/b/${encodeURIComponent(slug)}${query}" class="${active ? 'sorted' : ''}" data-sort="${key}">${label}<span aria-hidden="true">${arrow}</span></a></th>`;
}

/** What a row says about open weights: a baseline is not a model and claims nothing. */
function openWeights(row: LeaderboardRow): string {
  return row.kind === 'baseline' ? '—' : openWeightsText(row.model.openWeights);
}

export function leaderboardPage(benchmark: Benchmark, rows: LeaderboardRow[], sort: { key: SortKey; direction: SortDirection }): Html {
  const sorted = sortRows(rows, sort.key, sort.direction);
  const head = (key: SortKey, label: string) => sortHeader(benchmark.slug, key, label, sort);
  return html`<h1>${benchmark.title}</h1>
<p class="meta">Version ${benchmark.version} · ${benchmark.item_count} hidden questions · test set sha256 <code>${benchmark.content_sha256.slice(0, 16)}…</code> ·
${benchmark.is_open ? 'open for submissions' : 'closed'} · <a href="/b/${benchmark.slug}/categories">per category</a> · <a href="/b/${benchmark.slug}/submit">submit</a></p>
<p class="help" id="intervals-note">Overall is ReXrank's (the mean of the five task accuracies); micro is accuracy over all questions; all in %, each with its 95% study-bootstrap interval (studies resampled: a study's questions share its images) — the interval <code>cxrbench report</code> shows for the same run. ${NO_SPREAD_NOTE} (${NO_SPREAD_OVERALL_NOTE}).
Unparseable: answers no rule could read — the paper's “failed extractions” — counted wrong. Entries in one tier are not significantly different from the tier's first entry (exact McNemar, α = 0.05). ${TIE_BREAK}</p>
<div class="table-scroll"><table class="board" id="leaderboard"><thead><tr>
<th scope="col" class="num">Tier</th><th scope="col" class="num">#</th>${head('name', 'Model')}
${head('overall', 'Overall')}${head('micro', 'Micro')}
${TASK_NAMES.map((t) => head(t, TASK_SHORT[t] ?? t))}
${head('unparseable', 'Unparseable')}<th scope="col">Team</th><th scope="col">Open weights</th>${head('size', 'Size (B)')}${head('date', 'Date')}</tr></thead><tbody>
${sorted.map((r) => html`<tr class="${r.kind}" data-id="${r.id}"><td class="num">${r.tier ?? '—'}</td><td class="num">${r.rank ?? '—'}</td>
<td class="model"><a href="/entries/${r.id}">${r.model.name}</a>${badge(r)}</td>
<td class="num">${r.metrics ? interval(overallInterval(r.metrics.rexrankOverall, r.metrics.byTask)) : pct(r.overall)}</td><td class="num">${r.metrics ? interval(shown(r.metrics.overall)) : '—'}</td>
${TASK_NAMES.map((t) => html`<td class="num">${r.metrics ? interval(shown(r.metrics.byTask[t])) : pct(r.reported?.byTask[t])}</td>`)}
<td class="num">${r.unparseable}${r.n ? html`<span class="ci"> of ${r.n}</span>` : ''}</td><td>${r.team ?? '—'}</td><td>${openWeights(r)}</td>
<td class="num">${r.model.parametersBillion ?? '—'}</td><td class="num">${r.model.date ?? '—'}</td></tr>`)}
</tbody></table></div>${rows.length === 0 ? html`<p class="empty">No entries yet: be the first to <a href="/b/${benchmark.slug}/submit">submit</a>.</p>` : ''}`;
}

export function categoriesPage(benchmark: Benchmark, rows: LeaderboardRow[]): Html {
  const verified = rows.filter((r) => r.metrics);
  const categories = [...new Set(verified.flatMap((r) => Object.keys(r.metrics!.byCategory)))].sort();
  const minCell = verified[0]?.metrics?.settings.minPublicCell ?? 10;
  const why = verified.length === 0
    ? html`<p class="empty" id="categories-empty">No scored entry yet, so there is nothing to break down: <a href="/b/${benchmark.slug}/submit">submit</a> or come back later.</p>`
    : categories.length === 0
      ? html`<p class="empty" id="categories-empty">No category of this benchmark has ${minCell} or more questions, so none is shown (fewer would reveal which answers were right). The <a href="/b/${benchmark.slug}">leaderboard</a> has the per-task results.</p>`
      : null;
  return html`<h1>${benchmark.title}: accuracy per category</h1>
<p class="help">Accuracy (%) with its 95% Wilson interval and the number of questions. Categories with fewer than ${minCell} questions are not shown: so few would reveal which answers were right.</p>
${why ?? html`<div class="table-scroll"><table class="board" id="categories"><thead><tr><th scope="col">Category</th>${verified.map((r) => html`<th scope="col" class="num"><a href="/entries/${r.id}">${r.model.name}</a>${badge(r)}</th>`)}</tr></thead><tbody>
${categories.map((c) => html`<tr><th scope="row">${c}</th>${verified.map((r) => {
    const cell = r.metrics!.byCategory[c];
    return html`<td class="num">${cell ? html`${interval(cell.accuracy)}<span class="ci"> n=${cell.n}</span>` : '—'}</td>`;
  })}</tr>`)}
</tbody></table></div>`}`;
}

export function entryPage(entry: { slug: string; title: string; version: string; team: string | null; submittedAt: string }, row: LeaderboardRow, total: number): Html {
  const m = row.model;
  const baseline = row.kind === 'baseline';
  return html`<h1>${m.name}${badge(row)}</h1>
<dl class="card">${fact('Benchmark', html`<a href="/b/${entry.slug}">${entry.title}</a> (version ${entry.version})`)}
${fact('Rank', row.rank === null ? null : html`${row.rank} of ${total}, tier ${row.tier ?? '—'}`)}
${fact('Overall (ReXrank), 95% study bootstrap', row.metrics ? interval(overallInterval(row.metrics.rexrankOverall, row.metrics.byTask)) : pct(row.overall))}
${fact('Micro accuracy, 95% study bootstrap', row.metrics ? interval(shown(row.metrics.overall)) : null)}
${fact('Unparseable', `${row.unparseable}${row.n ? ` of ${row.n}` : ''}`)}
${row.metrics ? fact('Truncated at the token limit', `${row.metrics.truncated ?? 0}${row.n ? ` of ${row.n}` : ''}`) : ''}
${row.metrics ? fact('Answers read', `${row.metrics.overall.readByRule ?? row.metrics.overall.correct + row.metrics.overall.wrong} by the rules (${row.metrics.settings.extractor}), ${row.metrics.overall.readByJudge ?? 0} by a judge (none: the board reads by rules only), ${row.unparseable} unparseable, ${row.metrics.truncated ?? 0} truncated`) : ''}
${baseline ? fact('What it is', 'a baseline shipped with cxrbench, not a model: it is shown to set the floor, and claims no weights, size or release') : html`${fact('Team', entry.team)}${modelCardFacts(m)}`}
${fact('Submitted', `${entry.submittedAt.slice(0, 16).replace('T', ' ')} UTC`)}</dl>
${row.metrics ? html`<h2>Per task</h2><div class="table-scroll"><table class="board"><thead><tr><th scope="col">Task</th><th scope="col" class="num">n</th><th scope="col" class="num">Accuracy (95% Wilson)</th><th scope="col" class="num">95% study bootstrap</th><th scope="col" class="num">Unparseable</th><th scope="col" class="num">Truncated</th></tr></thead><tbody>
${inPaperOrder(Object.keys(row.metrics.byTask)).map((t) => [t, row.metrics!.byTask[t]!] as const).map(([t, c]) => html`<tr><th scope="row">${t}</th><td class="num">${c.n}</td><td class="num">${interval(c.accuracy)}</td><td class="num">${interval(cellInterval(c))}</td><td class="num">${c.unparseable}</td><td class="num">${c.truncated ?? 0}</td></tr>`)}</tbody></table></div><p class="help">${NO_SPREAD_NOTE}.</p>` : ''}
${m.prompt ? html`<h2>Prompt</h2><pre>${m.prompt}</pre>` : ''}${m.notes ? html`<h2>Notes</h2><p>${m.notes}</p>` : ''}`;
}

export function problemsList(problems: readonly SubmissionProblem[]): Html {
  return html`<div class="problems" role="alert"><p>Nothing was stored. The upload has ${plural(problems.length, 'kind of problem', 'kinds of problem')}:</p><ul>${problems.map((p) => html`<li><code>${p.code}</code> (${p.count}): ${p.message}</li>`)}</ul></div>`;
}
