import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { CxrError } from '../../core/errors.js';
import { inPaperOrder } from '../../core/question.js';
import { readerOrder } from '../../study/sample.js';
import { storedImage } from '../../store/images.js';
import { readerAnswers, saveAnswer, submitAnswers } from '../../store/study-answers.js';
import { noteReaderSeen, readerByToken, type StudyReader } from '../../store/study-readers.js';
import { studyHasImage, studyItems, viewsOf, type Study } from '../../store/studies.js';
import { sameToken, viewerOf } from '../auth.js';
import type { BoardContext } from '../context.js';
import { resolveReader, setReaderCookie } from '../study-access.js';
import { sendRawPixels } from '../viewer/raw-pixels.js';
import { html, type Html } from '../views/html.js';
import { layout } from '../views/layout.js';
import { casePage, finishPage, readerHome, readerResultsPage, type ReaderAnswerRow } from '../views/reader-views.js';

type Params = { id: string };
type CaseParams = { id: string; k: string };

function page(reply: FastifyReply, request: FastifyRequest, title: string, body: Html, status = 200): FastifyReply {
  return reply.code(status).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(layout(title, viewerOf(request), body, { people: true }));
}


/** An autosave from the reader's page. */
const SaveBody = z.object({
  position: z.number().int().min(0).max(1_000_000),
  answer: z.enum(['A', 'B', 'C', 'D']).nullable(),
  confidence: z.number().int().min(1).max(5).nullable(),
  visitId: z.string().regex(/^[A-Za-z0-9-]{8,64}$/),
  elapsedMs: z.number().min(0).max(7 * 86400_000),
  clientAt: z.string().max(40).nullable().optional(),
}).strict();

/** A reader's place in a study: the order, the items in it, answers, and the first unanswered place. */
async function readerState(ctx: BoardContext, reader: StudyReader, study: Study) {
  const items = await studyItems(ctx.store, study.id);
  const order = readerOrder(items.length, reader.order_seed).map((p) => items[p]!);
  const answers = await readerAnswers(ctx.store, reader.id);
  const firstOpen = order.findIndex((item) => !answers.has(item.position));
  return { items, order, answers, nextK: firstOpen === -1 ? null : firstOpen + 1 };
}

/** Every case in the reader's order with their answer and confidence (for the finish and results pages). */
async function answerRows(ctx: BoardContext, reader: StudyReader, study: Study): Promise<ReaderAnswerRow[]> {
  const { order, answers } = await readerState(ctx, reader, study);
  return order.map((item, k) => ({ k: k + 1, item, answer: answers.get(item.position)?.answer ?? null, confidence: answers.get(item.position)?.confidence ?? null }));
}

/**
 * Why the reader may not save case `k` (1-based, in their order) yet, or null: a case is saved only once it may be
 * opened, i.e. every case before it in the reader's order has an answer (the same rule as viewing it).
 */
function notYetOpen(k: number, nextK: number | null): string | null {
  return nextK !== null && k > nextK ? `Not saved: case ${k} opens once every case before it has an answer; case ${nextK} is next.` : null;
}

/** Why answers cannot be changed now, in words, or null. */
function lockReason(study: Study, reader: StudyReader): string | null {
  if (study.state === 'closed') return 'The study is closed; answers can no longer change.';
  if (reader.submitted_at && study.allow_edits !== 1) return 'You submitted your answers; they are locked.';
  return null;
}

const LETTER = /^[ABCD]$/;

/** Reader pages: the invite link, the cases, autosave, submit, and (after closing) the reader's own results. */
export function registerStudyReader(app: FastifyInstance, ctx: BoardContext): void {
  /** Resolves the reader of /read/:id/… or answers with why not (and returns null). */
  const readerOf = async (request: FastifyRequest<{ Params: Params }>, reply: FastifyReply, api = false) => {
    const found = await resolveReader(ctx.store, request, request.params.id);
    if ('status' in found) {
      if (api) void reply.code(found.status).send({ error: 'refused', message: found.message });
      else void page(reply, request, 'Reader study', html`<h1>Reader study</h1><p class="problems" role="alert">${found.message}</p>`, found.status);
      return null;
    }
    // A page (not the autosave, which notes it itself, nor an image) tells the host the reader was here.
    if (!api) await noteReaderSeen(ctx.store, found.reader);
    return found;
  };

  app.get<{ Params: { token: string } }>('/r/:token', async (request, reply) => {
    const found = await readerByToken(ctx.store, request.params.token);
    if ('status' in found) return page(reply, request, 'Reader study', html`<h1>Reader study</h1><p class="problems" role="alert">${found.message}</p>`, found.status);
    setReaderCookie(reply, found.study.id, request.params.token, ctx.options.secureCookies);
    // The token leaves the address bar at once: it is not kept in history or shown over a shoulder.
    return reply.header('cache-control', 'no-store').redirect(`/read/${found.study.id}`, 303);
  });

  app.get<{ Params: Params }>('/read/:id', async (request, reply) => {
    const found = await readerOf(request, reply);
    if (!found) return reply;
    const { order, answers, nextK } = await readerState(ctx, found.reader, found.study);
    const cases = { total: order.length, byTask: inPaperOrder(order.map((i) => i.task)).map((task) => [task, order.filter((i) => i.task === task).length] as const) };
    return page(reply, request, found.study.title, readerHome(found.study, found.reader, answers.size, cases, nextK, ctx.options.score.minPublicCell));
  });

  const showCase = async (request: FastifyRequest<{ Params: CaseParams }>, reply: FastifyReply, error: string | null = null, status = 200) => {
    const found = await readerOf(request, reply);
    if (!found) return reply;
    const { study, reader } = found;
    if (study.state === 'closed') return reply.redirect(`/read/${study.id}/results`, 303);
    const { order, answers, nextK } = await readerState(ctx, reader, study);
    const k = Number(request.params.k);
    if (!Number.isInteger(k) || k < 1 || k > order.length) return page(reply, request, 'Not found', html`<h1>No such case</h1><p>This study has cases 1 to ${order.length}. <a href="/read/${study.id}">Back to the study</a></p>`, 404);
    // No skipping ahead: a case opens once every case before it in this reader's order has an answer.
    if (nextK !== null && k > nextK) return reply.redirect(`/read/${study.id}/case/${nextK}`, 303);
    const item = order[k - 1]!;
    return page(reply, request, `Case ${k} · ${study.title}`, casePage({ study, k, total: order.length, answered: answers.size, item, views: viewsOf(item), answer: answers.get(item.position), csrf: reader.csrf, locked: lockReason(study, reader), error }), status);
  };

  app.get<{ Params: CaseParams }>('/read/:id/case/:k', async (request, reply) => showCase(request, reply));

  app.post<{ Params: CaseParams; Body: Record<string, string | undefined> }>('/read/:id/case/:k', async (request, reply) => {
    const found = await readerOf(request, reply);
    if (!found) return reply;
    const { study, reader } = found;
    const form = request.body ?? {};
    if (!sameToken(form._csrf, reader.csrf)) return page(reply, request, 'Forbidden', html`<p class="problems" role="alert">The form expired (CSRF check failed); open the case again.</p>`, 403);
    const { order, answers, nextK } = await readerState(ctx, reader, study);
    const k = Number(request.params.k);
    if (!Number.isInteger(k) || k < 1 || k > order.length) return page(reply, request, 'Not found', html`<h1>No such case</h1>`, 404);
    const ahead = notYetOpen(k, nextK);
    if (ahead) return page(reply, request, 'Not saved', html`<h1>Not saved</h1><p class="problems" role="alert">${ahead}</p><p><a href="/read/${study.id}/case/${String(nextK)}">Go to case ${String(nextK)}</a></p>`, 409);
    const item = order[k - 1]!;
    const go = form.go === 'prev' ? 'prev' : 'next';
    const answer = LETTER.test(form.answer ?? '') ? (form.answer as 'A') : null;
    const confidence = /^[1-5]$/.test(form.confidence ?? '') ? Number(form.confidence) : null;
    if (form.answer !== undefined && answer === null) return showCase(request, reply, `"${String(form.answer).slice(0, 20)}" is not one of the options A–D.`, 400);
    const locked = lockReason(study, reader);
    // A changed answer on a locked study is refused aloud, not dropped while the reader moves on.
    if (locked && answer !== null && answer !== answers.get(item.position)?.answer) return showCase(request, reply, `Not saved: ${locked}`, 409);
    if (!locked && (answer !== null || form.elapsed)) {
      try {
        await saveAnswer(ctx.store, reader, { position: item.position, answer, confidence, visitId: /^[A-Za-z0-9-]{8,64}$/.test(form.visit ?? '') ? form.visit! : randomUUID(), elapsedMs: Math.min(Math.max(Number(form.elapsed) || 0, 0), 7 * 86400_000), clientAt: null });
      } catch (error) {
        if (error instanceof CxrError) return showCase(request, reply, error.message, 409);
        throw error;
      }
    }
    if (go === 'next' && answer === null && !answers.has(item.position)) return showCase(request, reply, 'Choose an answer before going on.', 400);
    if (go === 'prev') return reply.redirect(`/read/${study.id}/case/${Math.max(1, k - 1)}`, 303);
    return reply.redirect(k === order.length ? `/read/${study.id}/finish` : `/read/${study.id}/case/${k + 1}`, 303);
  });

  app.post<{ Params: Params }>('/read/:id/api/save', async (request, reply) => {
    const found = await readerOf(request, reply, true);
    if (!found) return reply;
    if (!sameToken(request.headers['x-csrf-token'], found.reader.csrf)) return reply.code(403).send({ error: 'csrf', message: 'the page is out of date (CSRF check failed): reload it' });
    const body = SaveBody.safeParse(request.body);
    if (!body.success) return reply.code(400).send({ error: 'bad-request', message: body.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ') });
    const { order, nextK } = await readerState(ctx, found.reader, found.study);
    // A position outside the study is left to saveAnswer, which answers 404 for it.
    const ahead = notYetOpen(order.findIndex((item) => item.position === body.data.position) + 1, nextK);
    if (ahead) return reply.code(409).send({ error: 'not-yet-open', message: ahead });
    try {
      await saveAnswer(ctx.store, found.reader, { ...body.data, clientAt: body.data.clientAt ?? null });
    } catch (error) {
      if (error instanceof CxrError) return reply.code(error.code === 'not-found' ? 404 : 409).send({ error: error.code, message: error.message });
      throw error;
    }
    return reply.header('cache-control', 'no-store').send({ saved: true, at: new Date().toISOString() });
  });

  app.get<{ Params: Params }>('/read/:id/finish', async (request, reply) => {
    const found = await readerOf(request, reply);
    if (!found) return reply;
    const rows = await answerRows(ctx, found.reader, found.study);
    return page(reply, request, `Your answers · ${found.study.title}`, finishPage(found.study, rows, found.reader.csrf, found.reader.submitted_at, lockReason(found.study, found.reader), null));
  });

  app.post<{ Params: Params; Body: Record<string, string | undefined> }>('/read/:id/submit', async (request, reply) => {
    const found = await readerOf(request, reply);
    if (!found) return reply;
    if (!sameToken(request.body?._csrf, found.reader.csrf)) return page(reply, request, 'Forbidden', html`<p class="problems" role="alert">The form expired (CSRF check failed); open the page again.</p>`, 403);
    try {
      await submitAnswers(ctx.store, found.reader);
    } catch (error) {
      if (!(error instanceof CxrError)) throw error;
      return page(reply, request, 'Your answers', finishPage(found.study, await answerRows(ctx, found.reader, found.study), found.reader.csrf, null, null, error.message), 409);
    }
    return reply.redirect(`/read/${found.study.id}`, 303);
  });

  app.get<{ Params: Params }>('/read/:id/results', async (request, reply) => {
    const found = await readerOf(request, reply);
    if (!found) return reply;
    if (found.study.state !== 'closed') return page(reply, request, 'Not yet', html`<h1>Not yet</h1><p>The reference answers are shown when the host closes the study.</p>`, 403);
    return page(reply, request, `Your results · ${found.study.title}`, readerResultsPage(found.study, await answerRows(ctx, found.reader, found.study), found.study.benchmark_id === null));
  });

  /** The image file as stored, for browsers without JavaScript (the viewer reads `/img/`, the raw pixels). */
  app.get<{ Params: { id: string; sha: string } }>('/read/:id/file/:sha', async (request, reply) => {
    const isHost = request.caller?.user.is_admin === 1 && request.caller.via === 'session';
    if (!isHost && !(await readerOf(request, reply, true))) return reply;
    const image = (await studyHasImage(ctx.store, request.params.id, request.params.sha)) ? await storedImage(ctx.store, request.params.sha) : null;
    if (!image) return reply.code(404).send({ error: 'not-found', message: 'no such image in this study' });
    return reply.type(image.contentType).header('cache-control', 'private, max-age=3600').send(image.content);
  });

  app.get<{ Params: { id: string; sha: string } }>('/read/:id/img/:sha', async (request, reply) => {
    const isHost = request.caller?.user.is_admin === 1 && request.caller.via === 'session';
    if (!isHost) {
      const found = await readerOf(request, reply, true);
      if (!found) return reply;
    }
    const pixels = (await studyHasImage(ctx.store, request.params.id, request.params.sha)) ? await ctx.pixels.get(request.params.sha) : null;
    if (!pixels) return reply.code(404).send({ error: 'not-found', message: 'no such image in this study' });
    return sendRawPixels(reply, pixels);
  });
}
