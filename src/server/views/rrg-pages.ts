import type { LeaderboardRow } from '../../board/leaderboard.js';
import type { RrgEntryMetrics } from '../../board/rrg-entries.js';
import { RRG_NOT_RANKED, RRG_RANKING_METRIC, rrgRankingKey } from '../../board/rrg-ranking.js';
import type { MetricSummary } from '../../rrg/score-reports.js';
import type { Benchmark } from '../../store/benchmarks.js';
import { html, type Html } from './html.js';
import { modelCardFacts } from './model-facts.js';

/** A published row imported as "reported, not verified here": ReXrank's columns as printed. */
export interface ReportedRrgColumns {
  kind: 'rrg-reported';
  bleu: number | null;
  bertscore: number | null;
  sembscore: number | null;
  radgraph: number | null;
  inv_radcliq_v1: number | null;
  ratescore: number | null;
  green: number | null;
  inv_fineradscore: number | null;
}

const MODEL_COLUMNS = [['bertscore', 'BERTScore'], ['sembscore', 'SembScore'], ['radgraph', 'RadGraph'], ['ratescore', 'RaTEScore'], ['green', 'GREEN']] as const;
/** Published figures cxrbench cannot recompute (FineRadScore's report score is not defined in its authors' code: docs/rrg.md). */
const PUBLISHED_ONLY = [['inv_fineradscore', '1/FineRadScore']] as const;

const metricsOf = (row: LeaderboardRow) => (row.metrics as unknown as RrgEntryMetrics | null);
const reportedOf = (row: LeaderboardRow) => (row.reported as unknown as ReportedRrgColumns | null);

function value(x: number | null | undefined): Html {
  return x === null || x === undefined ? html`—` : html`${x.toFixed(3)}`;
}

function withInterval(s: MetricSummary | undefined): Html {
  return s ? html`${s.mean.toFixed(3)}<span class="ci"> ${s.lo.toFixed(3)}–${s.hi.toFixed(3)}</span>` : html`—`;
}

function badge(row: LeaderboardRow): Html {
  if (row.kind === 'baseline') return html` <span class="badge baseline" title="a baseline, not a model">baseline</span>`;
  if (row.kind === 'reported') return html` <span class="badge reported" title="published elsewhere; not verified here">reported, not verified here</span>`;
  return html``;
}

/**
 * What the board ranks by, in words, from its verified entries: 1/RadCliQ-v1, always — never BLEU-2. Entries
 * scored without the model-based metrics (no scoring service) have no rank, and the note says where they are.
 */
export function rankingNote(verified: readonly LeaderboardRow[]): string {
  const unranked = verified.filter((r) => r.unranked).length;
  const base = `Ranked by ${RRG_RANKING_METRIC} (the reciprocal of the mean RadCliQ-v1 over studies), as ReXrank ranks.`;
  const belowZero = verified.some((r) => metricsOf(r)?.ranking.by === 'radcliq') ? ' Where an entry\'s mean RadCliQ-v1 is ≤ 0 its reciprocal means nothing: the row shows RadCliQ-v1 itself (marked) and ranks above every positive mean (lower RadCliQ-v1 is better).' : '';
  if (unranked === 0) return base + belowZero;
  const why = unranked === verified.length
    ? 'This board has no scoring service for the model-based metrics, so no entry here has it'
    : `${unranked} of ${verified.length} entries were scored without the model-based metrics (rescore them with a scoring service to rank them)`;
  return `${base}${belowZero} ${why}: they are listed under “Not ranked: ${RRG_NOT_RANKED}”, by BLEU-2, after every row that has ${RRG_RANKING_METRIC} — never ranked by another metric.`;
}

/** Where an entry stands, in words, for its submission page: its rank and ranking value, or why it has none. */
export function rrgPlacement(row: LeaderboardRow, ranked: number): Html {
  const m = metricsOf(row);
  if (row.rank === null || !m) return html`Not ranked: <strong>${row.unranked ?? 'no rank'}</strong> (scored without the model-based metrics); BLEU-2 ${value(m?.metrics.bleu?.mean)}.`;
  return html`Ranked <strong>${row.rank} of ${ranked}</strong> by ${RRG_RANKING_METRIC}: ${m.ranking.by === 'radcliq' ? html`RadCliQ-v1 ${value(m.ranking.value)} (its mean is ≤ 0)` : value(m.ranking.value)}.`;
}

function rankingCell(row: LeaderboardRow): Html {
  const m = metricsOf(row);
  if (!m) return html`<td class="num">${value(reportedOf(row)?.inv_radcliq_v1)}</td>`;
  if (row.unranked) return html`<td class="num"><span class="ci" title="needs the model-based metrics">not computed</span></td>`;
  return html`<td class="num">${value(m.ranking.value)}${m.ranking.by === 'radcliq' ? html` <span class="ci">(RadCliQ-v1: its mean is ≤ 0)</span>` : ''}</td>`;
}

/**
 * The report-generation leaderboard: rank, model and the ranking metric first (what a phone shows), then BLEU-2
 * and ROUGE-L with intervals, model columns when computed, and the team. Three groups: ranked entries, published
 * rows, and the rows without 1/RadCliQ-v1 ("Not ranked"), whose label stays in view when the table scrolls.
 */
export function rrgLeaderboardPage(benchmark: Benchmark, rows: LeaderboardRow[]): Html {
  const verified = rows.filter((r) => r.kind !== 'reported');
  const reported = rows.filter((r) => r.kind === 'reported');
  const modelColumns = MODEL_COLUMNS.filter(([key]) => verified.some((r) => metricsOf(r)?.metrics[key]) || reported.some((r) => reportedOf(r)?.[key] !== null && reportedOf(r)?.[key] !== undefined));
  const publishedColumns = PUBLISHED_ONLY.filter(([key]) => reported.some((r) => reportedOf(r)?.[key] !== null && reportedOf(r)?.[key] !== undefined));
  const columns = 7 + modelColumns.length + publishedColumns.length;
  const line = (r: LeaderboardRow) => {
    const m = metricsOf(r);
    const p = reportedOf(r);
    return html`<tr class="${r.kind}" data-id="${r.id}"><td class="num">${r.rank ?? '—'}</td><td class="model">${m ? html`<a href="/entries/${r.id}">${r.model.name}</a>` : r.model.name}${badge(r)}</td>${rankingCell(r)}
<td class="num">${m ? withInterval(m.metrics.bleu) : value(p?.bleu)}</td><td class="num">${m ? withInterval(m.metrics.rouge_l) : '—'}</td>
${modelColumns.map(([key]) => html`<td class="num">${m ? withInterval(m.metrics[key]) : value(p?.[key])}</td>`)}${publishedColumns.map(([key]) => html`<td class="num">${m ? '—' : value(p?.[key])}</td>`)}<td class="num">${m ? html`${m.emptyPredictions}<span class="ci"> of ${m.n}</span>` : '—'}</td><td>${m ? (r.team ?? '—') : (r.team ?? r.model.organisation ?? '—')}</td></tr>`;
  };
  const ranked = rows.filter((r) => r.rank !== null);
  const published = rows.filter((r) => r.kind === 'reported' && rrgRankingKey(r) !== null);
  const notRanked = rows.filter((r) => r.rank === null && !published.includes(r));
  return html`<h1>${benchmark.title}</h1>
<p class="meta">Report generation · track ${benchmark.track === 'findings' ? 'Findings' : 'Findings + Impression'} · version ${benchmark.version} · ${benchmark.item_count} studies with hidden reference reports · sha256 <code>${benchmark.content_sha256.slice(0, 16)}…</code> ·
${benchmark.is_open ? 'open for submissions' : 'closed'} · <a href="/b/${benchmark.slug}/submit">submit</a></p>
<p class="help" id="ranking-note">${rankingNote(verified)} Every metric is the mean over studies of a per-study score, with a 95% bootstrap interval over studies. BLEU-2 is computed exactly as ReXrank does; model-based columns appear only when this board's scoring service computes them. Reported rows are published figures, not verified here, listed after the ranked entries.</p>
<div class="table-scroll"><table class="board" id="leaderboard"><thead><tr><th scope="col" class="num">#</th><th scope="col">Model</th><th scope="col" class="num">${RRG_RANKING_METRIC}</th><th scope="col" class="num">BLEU-2</th><th scope="col" class="num">ROUGE-L</th>
${modelColumns.map(([, name]) => html`<th scope="col" class="num">${name}</th>`)}${publishedColumns.map(([, name]) => html`<th scope="col" class="num">${name}</th>`)}<th scope="col" class="num">Empty reports</th><th scope="col">Team</th></tr></thead>
${ranked.length + published.length > 0 ? html`<tbody id="ranked">${[...ranked, ...published].map(line)}</tbody>` : ''}
${notRanked.length > 0 ? html`<tbody id="not-ranked"><tr class="group"><th scope="rowgroup" colspan="${String(columns)}"><span class="group-label">Not ranked: ${RRG_NOT_RANKED} — listed by BLEU-2</span></th></tr>${notRanked.map(line)}</tbody>` : ''}
</table></div>${rows.length === 0 ? html`<p class="empty">No entries yet: be the first to <a href="/b/${benchmark.slug}/submit">submit</a>.</p>` : ''}`;
}

/** One report-generation entry: every metric with its interval, what was not computed and why. */
export function rrgEntryPage(entry: { slug: string; title: string; version: string; team: string | null; submittedAt: string }, row: LeaderboardRow, total: number): Html {
  const m = metricsOf(row);
  const p = reportedOf(row);
  return html`<h1>${row.model.name}${badge(row)}</h1>
<dl class="card"><dt>Benchmark</dt><dd><a href="/b/${entry.slug}">${entry.title}</a> (version ${entry.version})</dd><dt>Rank</dt><dd>${row.rank !== null ? `${row.rank} of ${total} by ${RRG_RANKING_METRIC}` : row.unranked ? `not ranked: ${row.unranked}` : '—'}</dd>
<dt>Team</dt><dd>${entry.team ?? row.model.organisation ?? '—'}</dd>${row.kind === 'participant' ? modelCardFacts(row.model) : ''}<dt>Submitted</dt><dd>${entry.submittedAt.slice(0, 16).replace('T', ' ')} UTC</dd></dl>
${m ? html`<h2>Metrics</h2><div class="table-scroll"><table class="board"><thead><tr><th scope="col">Metric</th><th scope="col" class="num">Mean</th><th scope="col" class="num">95% bootstrap</th><th scope="col" class="num">Studies</th></tr></thead><tbody>
${Object.entries(m.metrics).map(([name, s]) => html`<tr><th scope="row">${name}</th><td class="num">${s!.mean.toFixed(4)}</td><td class="num">${s!.lo.toFixed(4)}–${s!.hi.toFixed(4)}</td><td class="num">${s!.n}</td></tr>`)}</tbody></table></div>
${Object.keys(m.not_computed).length ? html`<ul class="help">${Object.entries(m.not_computed).map(([name, why]) => html`<li>${name}: ${why}</li>`)}</ul>` : ''}
<p>${m.emptyPredictions} of ${m.n} studies had an empty or missing report (scored as empty).</p>`
    : p ? html`<p class="help">Published by ReXrank; not verified here.</p><dl class="card">${Object.entries(p).filter(([k]) => k !== 'kind').map(([k, v]) => html`<dt>${k}</dt><dd>${v === null ? '—' : String(v)}</dd>`)}</dl>` : ''}`;
}
