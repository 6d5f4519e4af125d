import type { FastifyInstance } from 'fastify';
import { ModelCard } from '../../board/model-card.js';
import { retrySubmission, submitPredictions } from '../../board/submit.js';
import type { LeaderboardRow } from '../../board/leaderboard.js';
import { benchmarkBySlug, listBenchmarks, publicRecords } from '../../store/benchmarks.js';
import { createToken, listTokens, revokeToken } from '../../store/accounts.js';
import { entryById, submissionStatus, teamSubmissions } from '../../store/submissions.js';
import { requireCaller } from '../auth.js';
import type { BoardContext } from '../context.js';
import { readUpload, UploadError } from '../upload.js';
import { openApiDocument } from '../openapi.js';

/** A leaderboard row as the API gives it: aggregates only. */
export function publicRow(r: LeaderboardRow) {
  return { id: r.id, rank: r.rank, tier: r.tier, unranked: r.unranked, kind: r.kind, model: r.model, team: r.team, overall: r.overall, micro: r.micro, n: r.n, unparseable: r.unparseable, metrics: r.metrics, reported: r.reported, createdAt: r.createdAt };
}

function benchmarkJson(b: Awaited<ReturnType<typeof listBenchmarks>>[number]) {
  return { slug: b.slug, title: b.title, version: b.version, sha256: b.content_sha256, items: b.item_count, open: b.is_open === 1, dailyLimit: b.daily_limit, totalLimit: b.total_limit };
}

/** The JSON API (documented by /api/openapi.json). Writes need an API token. */
export function registerApi(app: FastifyInstance, ctx: BoardContext): void {
  app.get('/api/openapi.json', async () => openApiDocument());

  app.get('/api/benchmarks', async () => (await listBenchmarks(ctx.store)).map(benchmarkJson));

  app.get<{ Params: { slug: string } }>('/api/benchmarks/:slug/leaderboard', async (request, reply) => {
    // The same answer for everyone: kept as the bytes sent until the database changes.
    const kept = ctx.pages.lookup(`api|${request.params.slug}`);
    if (kept.hit) return reply.type('application/json; charset=utf-8').send(kept.hit);
    const b = await benchmarkBySlug(ctx.store, request.params.slug);
    if (!b) return reply.code(404).send({ error: 'not-found', message: `no benchmark "${request.params.slug}"` });
    // The entries are serialized once per version of the board; the benchmark's own fields (open, limits) as asked.
    const entries = await ctx.boards.derived(b.id, 'api', (rows) => JSON.stringify(rows.map(publicRow)));
    const body = Buffer.from(`{"benchmark":${JSON.stringify(benchmarkJson(b))},"entries":${entries}}`);
    kept.keep(body);
    return reply.type('application/json; charset=utf-8').send(body);
  });

  app.get<{ Params: { slug: string } }>('/api/benchmarks/:slug/questions', async (request, reply) => {
    const b = await benchmarkBySlug(ctx.store, request.params.slug);
    if (!b) return reply.code(404).send({ error: 'not-found', message: `no benchmark "${request.params.slug}"` });
    const records = await publicRecords(ctx.store, b.id);
    return reply.header('content-disposition', `attachment; filename="${b.slug}-questions.json"`).send(Object.fromEntries(records.map((r) => [r.id, r.record])));
  });

  app.get<{ Params: { id: string } }>('/api/entries/:id', async (request, reply) => {
    const entry = await entryById(ctx.store, request.params.id);
    const row = entry && (await ctx.boards.rows(entry.benchmark_id)).find((r) => r.id === entry.submission_id);
    if (!entry || !row) return reply.code(404).send({ error: 'not-found', message: 'no such entry' });
    return { benchmark: entry.slug, ...publicRow(row) };
  });

  app.post<{ Params: { slug: string } }>('/api/benchmarks/:slug/submissions', async (request, reply) => {
    if (!requireCaller(request, reply, true)) return reply;
    if (request.caller.via !== 'token') return reply.code(401).send({ error: 'unauthorized', message: 'the API takes an API token (Authorization: Bearer …), not a browser session' });
    const b = await benchmarkBySlug(ctx.store, request.params.slug);
    if (!b) return reply.code(404).send({ error: 'not-found', message: `no benchmark "${request.params.slug}"` });
    const key = `upload|${request.ip}`;
    if (!(await ctx.uploadLimiter.hit(key))) return reply.code(429).header('retry-after', String(ctx.uploadLimiter.retryAfterSeconds())).send({ error: 'rate-limited', message: `too many uploads from this address (${ctx.uploadLimiter.limit} per ${Math.round(ctx.uploadLimiter.windowMs / 60_000)} minutes)` });
    if (!request.caller.user.team_id) return reply.code(403).send({ error: 'no-team', message: 'only members of a team can submit' });
    let upload;
    try {
      upload = await readUpload(request, ctx.options.maxUploadBytes);
    } catch (error) {
      if (error instanceof UploadError) request.log.info({ status: error.status }, `upload refused: ${error.message}`);
      if (error instanceof UploadError) return reply.code(error.status).send({ error: error.status === 413 ? 'too-large' : 'bad-upload', message: error.message });
      throw error;
    }
    if (!upload.file) return reply.code(400).send({ error: 'no-file', message: 'send the predictions as the multipart field "file"' });
    let model: unknown;
    try {
      model = JSON.parse(upload.fields.model ?? '{}');
    } catch (error) {
      return reply.code(400).send({ error: 'bad-model', message: `the "model" field must be JSON, {"name": …, "organisation": …, …} (${(error as Error).message})` });
    }
    const card = ModelCard.safeParse(model);
    if (!card.success) return reply.code(400).send({ error: 'bad-model', message: 'the model card has problems', problems: card.error.issues.map((i) => ({ field: i.path.join('.'), message: i.message })) });
    const result = await submitPredictions(ctx.store, ctx.dispatch, b, { fileName: upload.file.name, content: upload.file.content, model: card.data, teamId: request.caller.user.team_id, userId: request.caller.user.id, kind: 'participant' }, ctx.intake);
    if (!result.ok) {
      if (result.status === 400) return reply.code(400).send({ error: 'invalid-submission', message: 'nothing was stored; fix every problem listed', problems: result.problems });
      return reply.code(result.status).send({ error: result.status === 429 ? 'limit-reached' : result.status === 409 ? 'duplicate' : 'closed', message: result.message });
    }
    // Stored and queued: scoring happens in a worker. The status URL says queued → scoring → scored / failed.
    const status = `/api/submissions/${result.submission.id}`;
    return reply.code(202).header('location', status).send({ submission: result.submission.id, state: result.submission.state, status });
  });

  app.get('/api/submissions', async (request, reply) => {
    if (!requireCaller(request, reply, true)) return reply;
    const teamId = request.caller.user.team_id;
    const rows = teamId ? await teamSubmissions(ctx.store, teamId) : [];
    return rows.map((s) => ({ id: s.id, benchmark: s.slug, state: s.state, error: s.error, fileName: s.file_name, bytes: s.byte_size, model: JSON.parse(s.model_json) as unknown, createdAt: s.created_at, scoredAt: s.scored_at }));
  });

  app.get<{ Params: { id: string } }>('/api/submissions/:id', async (request, reply) => {
    if (!requireCaller(request, reply, true)) return reply;
    const s = await submissionStatus(ctx.store, request.params.id);
    // Another team's submission is as unknown as a missing one.
    if (!s || (s.team_id !== request.caller.user.team_id && request.caller.user.is_admin !== 1)) return reply.code(404).send({ error: 'not-found', message: 'no submission of your team with that id' });
    const row = s.state === 'scored' ? (await ctx.boards.rows(s.benchmark_id)).find((r) => r.id === s.id) : undefined;
    return {
      id: s.id, benchmark: s.slug, state: s.state, error: s.error, attempts: s.attempts, fileName: s.file_name, bytes: s.byte_size,
      model: JSON.parse(s.model_json) as unknown, createdAt: s.created_at, updatedAt: s.updated_at, scoredAt: s.scored_at, entry: row ? publicRow(row) : null,
    };
  });

  app.post<{ Params: { id: string } }>('/api/submissions/:id/retry', async (request, reply) => {
    if (!requireCaller(request, reply, true)) return reply;
    if (request.caller.via !== 'token') return reply.code(401).send({ error: 'unauthorized', message: 'the API takes an API token' });
    const submission = await retrySubmission(ctx.store, ctx.dispatch, request.params.id, request.caller.user.team_id, request.caller.user.is_admin === 1);
    if (!submission) return reply.code(404).send({ error: 'not-found', message: 'no failed submission of your team with that id' });
    const status = `/api/submissions/${submission.id}`;
    return reply.code(202).header('location', status).send({ submission: submission.id, state: submission.state, status });
  });

  app.get('/api/tokens', async (request, reply) => {
    if (!requireCaller(request, reply, true)) return reply;
    return listTokens(ctx.store, request.caller.user.id);
  });

  app.post<{ Body: { name?: string } }>('/api/tokens', async (request, reply) => {
    if (!requireCaller(request, reply, true)) return reply;
    if (request.caller.via !== 'token') return reply.code(401).send({ error: 'unauthorized', message: 'the API takes an API token' });
    const name: unknown = request.body?.name;
    if (name !== undefined && typeof name !== 'string') return reply.code(400).send({ error: 'bad-request', message: `"name" is the token's name, as text (got ${name === null ? 'null' : `a ${typeof name}`})` });
    const created = await createToken(ctx.store, request.caller.user.id, name ?? 'token');
    return reply.code(201).header('cache-control', 'no-store').send(created);
  });

  app.delete<{ Params: { id: string } }>('/api/tokens/:id', async (request, reply) => {
    if (!requireCaller(request, reply, true)) return reply;
    if (request.caller.via !== 'token') return reply.code(401).send({ error: 'unauthorized', message: 'the API takes an API token' });
    const ok = await revokeToken(ctx.store, request.caller.user.id, request.params.id);
    return ok ? reply.code(204).send() : reply.code(404).send({ error: 'not-found', message: 'no active token of yours with that id' });
  });
}
