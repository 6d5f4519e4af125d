import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { modelCardFromForm } from '../../board/model-card.js';
import { retrySubmission, submitPredictions } from '../../board/submit.js';
import { isRrgMetrics } from '../../board/rrg-ranking.js';
import { benchmarkBySlug, listBenchmarks } from '../../store/benchmarks.js';
import { entryById, submissionStatus, teamSubmissions } from '../../store/submissions.js';
import { csrfOk, requireCaller, viewerOf } from '../auth.js';
import { humanRowsSection } from '../study-on-board.js';
import type { BoardContext } from '../context.js';
import { readUpload, UploadError } from '../upload.js';
import { attributes, html, plural, type Html } from '../views/html.js';
import { layout, pct } from '../views/layout.js';
import { categoriesPage, defaultDirection, entryPage, leaderboardPage, problemsList, SORT_KEYS, type SortKey } from '../views/pages.js';
import { rrgEntryPage, rrgLeaderboardPage, rrgPlacement } from '../views/rrg-pages.js';

function page(reply: FastifyReply, request: FastifyRequest, title: string, body: Html, status = 200, refreshSeconds?: number): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(layout(title, viewerOf(request), body, refreshSeconds ? { refreshSeconds } : {}));
}

const STATE_TEXT: Record<string, string> = {
  queued: 'Queued — waiting for a scoring worker.',
  scoring: 'Scoring — reading every answer and computing the intervals.',
  scored: 'Scored.',
  failed: 'Failed.',
};

/** The model card's fields as the form shows them; names match ModelCard (board/model-card.ts), limits too. */
const CARD_FIELDS: { name: string; label: string; type: string; attrs: Record<string, string | boolean> }[] = [
  { name: 'name', label: 'Model name', type: 'text', attrs: { required: true, maxlength: '120', autocomplete: 'off' } },
  { name: 'organisation', label: 'Organisation', type: 'text', attrs: { maxlength: '120', autocomplete: 'organization' } },
  { name: 'url', label: 'Model URL', type: 'url', attrs: { maxlength: '300', placeholder: 'https://…' } },
  { name: 'paper', label: 'Paper URL', type: 'url', attrs: { maxlength: '300', placeholder: 'https://…' } },
  { name: 'parametersBillion', label: 'Parameters (billions)', type: 'number', attrs: { step: 'any', min: '0.000001', max: '100000', inputmode: 'decimal' } },
  // Text, not type=date: a date field's segments and typing follow the browser's locale; YYYY-MM-DD is typed the same everywhere.
  { name: 'date', label: 'Release date (YYYY-MM-DD)', type: 'text', attrs: { pattern: '\\d{4}-\\d{2}-\\d{2}', placeholder: 'YYYY-MM-DD', maxlength: '10', inputmode: 'numeric', title: 'a date written YYYY-MM-DD, e.g. 2025-06-01' } },
];

/**
 * Open weights as three choices: yes, no, or not said — the default, shown as "—" on the board (a box left
 * unticked could not tell "no" from "did not say").
 */
function openWeightsChoice(value: string | undefined): Html {
  const chosen = value === 'true' || value === 'on' ? 'true' : value === 'false' ? 'false' : '';
  const choice = (v: string, label: string) => html`<label><input${attributes({ type: 'radio', name: 'openWeights', value: v, checked: chosen === v })}> ${label}</label>`;
  return html`<fieldset id="open-weights"><legend>Open weights</legend>${choice('true', 'yes: the weights are public')}${choice('false', 'no')}${choice('', 'not said (shown as “—”)')}</fieldset>`;
}

/** What went wrong with an upload, in words, for the top of the form; `fields` are errors by field name. */
interface FormErrors {
  message: Html | null;
  fields?: Record<string, string>;
  /** The file the person had chosen: browsers cannot keep it, so it is named. */
  fileName?: string;
}

function submitForm(slug: string, csrf: string, errors: FormErrors, values: Record<string, string> = {}): Html {
  const fieldErrors = errors.fields ?? {};
  const described = (name: string) => (fieldErrors[name] ? { 'aria-invalid': 'true', 'aria-describedby': `${name}-error` } : {});
  const errorOf = (name: string) => (fieldErrors[name] ? html`<span class="field-error" id="${name}-error">${fieldErrors[name]}</span>` : '');
  return html`${errors.message ?? ''}<form method="post" action="/b/${slug}/submit" enctype="multipart/form-data" class="stack" id="submit-form">
<input type="hidden" name="_csrf" value="${csrf}">
<label>Predictions file (ReXrank JSON, JSONL or CSV; letters or raw model output) <input type="file" name="file" required accept=".json,.jsonl,.csv,application/json,text/csv"></label>
${errors.fileName ? html`<p class="help" id="file-again">You had chosen <strong>${errors.fileName}</strong>; browsers do not keep a chosen file after the page reloads, so choose it again.</p>` : ''}
${CARD_FIELDS.map((f) => html`<label>${f.label} <input${attributes({ type: f.type, name: f.name, value: values[f.name] ?? '', ...f.attrs, ...described(f.name) })}>${errorOf(f.name)}</label>`)}
${openWeightsChoice(values.openWeights)}
<label>Prompt used <textarea${attributes({ name: 'prompt', maxlength: '4000', ...described('prompt') })}>${values.prompt ?? ''}</textarea>${errorOf('prompt')}</label>
<label>Notes <textarea${attributes({ name: 'notes', maxlength: '2000', ...described('notes') })}>${values.notes ?? ''}</textarea>${errorOf('notes')}</label>
<button type="submit">Submit</button></form>`;
}

/** How many entries are ranked (reported rows are listed but not ranked). */
function rankedCount(rows: readonly { rank: number | null }[]): number {
  return rows.filter((r) => r.rank !== null).length;
}

/** Public pages (leaderboards, categories, model cards) and the participant's submission pages. */
export function registerPages(app: FastifyInstance, ctx: BoardContext): void {
  app.get('/', async (request, reply) => {
    const benchmarks = await listBenchmarks(ctx.store);
    return page(reply, request, 'Benchmarks', html`<h1>Benchmarks</h1>${benchmarks.length === 0 ? html`<p>No benchmark is loaded yet (<code>cxrbench board load</code>).</p>` : ''}
<ul class="benchmarks">${benchmarks.map((b) => html`<li><a href="/b/${b.slug}">${b.title}</a> <span class="meta">version ${b.version} · ${b.item_count} questions · ${b.is_open ? 'open' : 'closed'}</span></li>`)}</ul>`);
  });

  app.get<{ Params: { slug: string }; Querystring: { sort?: string; dir?: string } }>('/b/:slug', async (request, reply) => {
    const key = (SORT_KEYS as readonly string[]).includes(String(request.query.sort ?? '')) ? (request.query.sort as SortKey) : 'overall';
    const direction = request.query.dir === 'asc' || request.query.dir === 'desc' ? request.query.dir : defaultDirection(key);
    // Everyone not signed in sees the same page: kept whole, as the bytes sent, until the database changes.
    const kept = request.caller === null ? ctx.pages.lookup(`page|${request.params.slug}|${key}|${direction}`) : null;
    if (kept?.hit) return reply.type('text/html; charset=utf-8').send(kept.hit);
    const benchmark = await benchmarkBySlug(ctx.store, request.params.slug);
    if (!benchmark) return page(reply, request, 'Not found', html`<h1>No such benchmark</h1>`, 404);
    const body = await ctx.boards.derived(benchmark.id, `page|${key}|${direction}|${JSON.stringify(benchmark)}`, (rows) => (benchmark.kind === 'rrg' ? rrgLeaderboardPage(benchmark, rows) : leaderboardPage(benchmark, rows, { key, direction })));
    const text = Buffer.from(layout(benchmark.title, viewerOf(request), html`${body}${await humanRowsSection(ctx, benchmark)}`));
    kept?.keep(text);
    return reply.type('text/html; charset=utf-8').send(text);
  });

  app.get<{ Params: { slug: string } }>('/b/:slug/categories', async (request, reply) => {
    const benchmark = await benchmarkBySlug(ctx.store, request.params.slug);
    if (!benchmark) return page(reply, request, 'Not found', html`<h1>No such benchmark</h1>`, 404);
    if (benchmark.kind === 'rrg') return page(reply, request, `${benchmark.title}: categories`, html`<h1>${benchmark.title}</h1><p class="empty">A report-generation benchmark has no question categories; its <a href="/b/${benchmark.slug}">leaderboard</a> has every metric.</p>`, 404);
    return page(reply, request, `${benchmark.title}: categories`, categoriesPage(benchmark, await ctx.boards.rows(benchmark.id)));
  });

  app.get<{ Params: { id: string } }>('/entries/:id', async (request, reply) => {
    const entry = await entryById(ctx.store, request.params.id);
    if (!entry) return page(reply, request, 'Not found', html`<h1>No such entry</h1>`, 404);
    const rows = await ctx.boards.rows(entry.benchmark_id);
    const row = rows.find((r) => r.id === entry.submission_id);
    if (!row) return page(reply, request, 'Not found', html`<h1>No such entry</h1>`, 404);
    const card = { slug: entry.slug, title: entry.title, version: entry.version, team: entry.team_name, submittedAt: entry.created_at };
    const rrg = (await benchmarkBySlug(ctx.store, entry.slug))?.kind === 'rrg';
    return page(reply, request, row.model.name, rrg ? rrgEntryPage(card, row, rankedCount(rows)) : entryPage(card, row, rankedCount(rows)));
  });

  app.get<{ Params: { slug: string } }>('/b/:slug/submit', async (request, reply) => {
    if (!requireCaller(request, reply, false)) return reply;
    const benchmark = await benchmarkBySlug(ctx.store, request.params.slug);
    if (!benchmark) return page(reply, request, 'Not found', html`<h1>No such benchmark</h1>`, 404);
    const viewer = viewerOf(request)!;
    return page(reply, request, `Submit to ${benchmark.title}`, html`<h1>Submit to ${benchmark.title}</h1>
<p class="help">${benchmark.kind === 'rrg' ? html`Generated reports for all ${benchmark.item_count} studies, as ReXrank's JSON (keyed by study, with <code>model_prediction</code>) or JSONL <code>{id, prediction}</code> (<a href="/api/benchmarks/${benchmark.slug}/questions">download the studies' inputs</a>).` : html`Predictions for all ${benchmark.item_count} questions (<a href="/api/benchmarks/${benchmark.slug}/questions">download them</a>).`} Your team may submit ${benchmark.daily_limit} time(s) a day and ${benchmark.total_limit} in all. Every problem of the file is listed before anything is stored.</p>
${submitForm(benchmark.slug, viewer.csrf, { message: benchmark.is_open ? null : html`<p class="problems">This benchmark is closed for submissions.</p>` })}`);
  });

  app.post<{ Params: { slug: string } }>('/b/:slug/submit', async (request, reply) => {
    if (!requireCaller(request, reply, false)) return reply;
    const benchmark = await benchmarkBySlug(ctx.store, request.params.slug);
    if (!benchmark) return page(reply, request, 'Not found', html`<h1>No such benchmark</h1>`, 404);
    const viewer = viewerOf(request)!;
    let chosenFile: string | undefined;
    const again = (status: number, message: Html, values: Record<string, string> = {}, fields?: Record<string, string>) =>
      page(reply, request, `Submit to ${benchmark.title}`, html`<h1>Submit to ${benchmark.title}</h1>${submitForm(benchmark.slug, viewer.csrf, { message, ...(fields ? { fields } : {}), ...(chosenFile ? { fileName: chosenFile } : {}) }, values)}`, status);
    const key = `upload|${request.ip}`;
    if (!(await ctx.uploadLimiter.hit(key))) return again(429, html`<p class="problems" role="alert">Too many uploads from your address; try again in ${ctx.uploadLimiter.retryAfterSeconds()} s.</p>`);
    let upload;
    try {
      upload = await readUpload(request, ctx.options.maxUploadBytes);
    } catch (error) {
      if (error instanceof UploadError) request.log.info({ status: error.status }, `upload refused: ${error.message}`);
      if (error instanceof UploadError) return again(error.status, html`<p class="problems" role="alert">${error.message}.</p>`);
      throw error;
    }
    if (!csrfOk(request, upload.fields._csrf)) return again(403, html`<p class="problems" role="alert">The form expired (CSRF check failed); submit it again.</p>`, upload.fields);
    if (!request.caller.user.team_id) return again(403, html`<p class="problems" role="alert">Your account has no team: only teams can submit.</p>`, upload.fields);
    if (!upload.file) return again(400, html`<p class="problems" role="alert">Choose a predictions file.</p>`, upload.fields);
    chosenFile = upload.file.name;
    const card = modelCardFromForm(upload.fields);
    if (!card.success) {
      const fields = Object.fromEntries(card.error.issues.map((i) => [String(i.path[0] ?? ''), i.message]));
      const messages = [...new Set(card.error.issues.map((i) => i.message))];
      return again(400, html`<div class="problems" role="alert"><p>Nothing was stored: the model card has ${plural(messages.length, 'problem')}.</p><ul>${messages.map((m) => html`<li>${m[0]!.toUpperCase()}${m.slice(1)}.</li>`)}</ul></div>`, upload.fields, fields);
    }
    const result = await submitPredictions(ctx.store, ctx.dispatch, benchmark, { fileName: upload.file.name, content: upload.file.content, model: card.data, teamId: request.caller.user.team_id, userId: request.caller.user.id, kind: 'participant' }, ctx.intake);
    if (!result.ok) {
      if (result.status === 400) return again(400, problemsList(result.problems), upload.fields);
      return again(result.status, html`<p class="problems" role="alert">${result.message}</p>`, upload.fields);
    }
    return reply.redirect(`/submissions/${result.submission.id}`, 303);
  });

  app.get('/submissions', async (request, reply) => {
    if (!requireCaller(request, reply, false)) return reply;
    const viewer = viewerOf(request)!;
    const teamId = request.caller.user.team_id;
    const rows = teamId ? await teamSubmissions(ctx.store, teamId) : [];
    return page(reply, request, 'My submissions', html`<h1>Submissions of ${request.caller.user.team_name ?? 'your team'}</h1>
<div class="table-scroll"><table class="board" id="submissions"><thead><tr><th>When</th><th>Benchmark</th><th>Model</th><th>File</th><th>State</th><th></th></tr></thead><tbody>
${rows.map((s) => html`<tr><td>${s.created_at.slice(0, 16).replace('T', ' ')}</td><td>${s.slug}</td><td>${(JSON.parse(s.model_json) as { name: string }).name}</td><td>${s.file_name} (${Math.ceil(s.byte_size / 1024)} KB)</td>
<td><a href="/submissions/${s.id}">${s.state}</a>${s.state === 'scored' ? html` (<a href="/entries/${s.id}">entry</a>)` : ''}${s.error ? html`: ${s.error}` : ''}</td>
<td>${s.state === 'failed' ? html`<form method="post" action="/submissions/${s.id}/retry"><input type="hidden" name="_csrf" value="${viewer.csrf}"><button>Retry</button></form>` : ''}</td></tr>`)}
</tbody></table></div>${rows.length === 0 ? html`<p>None yet.</p>` : ''}`);
  });

  app.get<{ Params: { id: string } }>('/submissions/:id', async (request, reply) => {
    if (!requireCaller(request, reply, false)) return reply;
    const s = await submissionStatus(ctx.store, request.params.id);
    if (!s || (s.team_id !== request.caller.user.team_id && request.caller.user.is_admin !== 1)) return page(reply, request, 'Not found', html`<h1>No submission of your team with that id</h1>`, 404);
    const viewer = viewerOf(request)!;
    const pending = s.state === 'queued' || s.state === 'scoring';
    const model = (JSON.parse(s.model_json) as { name: string }).name;
    const rows = s.state === 'scored' ? await ctx.boards.rows(s.benchmark_id) : [];
    const mine = rows.find((r) => r.id === s.id);
    const rrg = mine !== undefined && isRrgMetrics(mine.metrics);
    return page(reply, request, `Submission ${model}`, html`<h1>${model} on ${s.title}</h1>
<p id="state" class="state-${s.state}" role="status"><strong>${STATE_TEXT[s.state] ?? s.state}</strong>${s.error ? html` ${s.error}` : ''}</p>
${pending ? html`<p class="help">This page refreshes itself every 2 seconds. You may leave it: the submission stays in <a href="/submissions">My submissions</a>.</p>` : ''}
${mine ? html`<p id="placed" role="status">${rrg ? rrgPlacement(mine, rankedCount(rows)) : html`Ranked <strong>${mine.rank ?? '—'} of ${rankedCount(rows)}</strong> (tier ${mine.tier ?? '—'}), overall ${pct(mine.overall)}%.`}</p>` : ''}
${s.state === 'scored' ? html`<p><a href="/entries/${s.id}" id="entry-link">See the entry on the leaderboard</a></p>` : ''}
${s.state === 'failed' ? html`<form method="post" action="/submissions/${s.id}/retry"><input type="hidden" name="_csrf" value="${viewer.csrf}"><button>Retry</button></form>` : ''}
<dl class="card"><dt>File</dt><dd>${s.file_name} (${Math.ceil(s.byte_size / 1024)} KB)</dd><dt>Uploaded</dt><dd>${s.created_at.slice(0, 19).replace('T', ' ')} UTC</dd>
<dt>Attempts</dt><dd>${String(s.attempts)}</dd>${s.scored_at ? html`<dt>Scored</dt><dd>${s.scored_at.slice(0, 19).replace('T', ' ')} UTC</dd>` : ''}</dl>`, 200, pending ? 2 : undefined);
  });

  app.post<{ Params: { id: string }; Body: Record<string, string> }>('/submissions/:id/retry', async (request, reply) => {
    if (!requireCaller(request, reply, false)) return reply;
    if (!csrfOk(request, request.body?._csrf)) return page(reply, request, 'Forbidden', html`<p class="problems">The form expired (CSRF check failed).</p>`, 403);
    const submission = await retrySubmission(ctx.store, ctx.dispatch, request.params.id, request.caller.user.team_id, request.caller.user.is_admin === 1);
    if (!submission) return page(reply, request, 'Not found', html`<h1>No failed submission of your team with that id</h1>`, 404);
    return reply.redirect(`/submissions/${submission.id}`, 303);
  });

}
