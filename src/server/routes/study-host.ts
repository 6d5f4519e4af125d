import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CxrError } from '../../core/errors.js';
import { accuracyBarSpec, kappaHeatmapSpec, renderSvg } from '../../report/charts.js';
import { benchmarkBySlug, listBenchmarks } from '../../store/benchmarks.js';
import { inviteAccount, inviteByLink, revokeReader } from '../../store/study-readers.js';
import { deleteDraftStudy, dropCasesWithoutImages, listStudies, setStudySettings, setStudyState, studyById, studyItems, type Study } from '../../store/studies.js';
import { createStudyFromBenchmark } from '../../study/create-study.js';
import { answerFileLines, answerKeyLines, exportNames, studyReport } from '../../study/study-report.js';
import { csrfOk, requireCaller, viewerOf } from '../auth.js';
import type { BoardContext } from '../context.js';
import { html, type Html } from '../views/html.js';
import { layout } from '../views/layout.js';
import { resultsPage, studiesPage, studyPage } from '../views/study-host-views.js';
import { TASK_SHORT } from '../views/pages.js';

type Form = Record<string, string | undefined>;

function page(reply: FastifyReply, request: FastifyRequest, title: string, body: Html, status = 200): FastifyReply {
  return reply.code(status).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(layout(title, viewerOf(request), body));
}

const problem = (message: string) => html`<p class="problems" role="alert">${message}</p>`;

/**
 * When reading links expire, from the settings form: `YYYY-MM-DD HH:MM` in UTC (a date alone: 23:59 that day),
 * empty for never. A date that does not exist (2030-02-31, 25:00) is refused, not rolled over into another day.
 */
export function expiryFrom(text: string): string | null {
  const trimmed = text.trim();
  if (!trimmed) return null;
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2}))?$/.exec(trimmed);
  if (!match) throw new CxrError('bad-option', `links expire: "${trimmed.slice(0, 30)}" is not a time written YYYY-MM-DD HH:MM (UTC), e.g. 2030-01-31 18:00`);
  const [year, month, day, hour, minute] = [match[1], match[2], match[3], match[4] ?? '23', match[5] ?? '59'].map(Number) as [number, number, number, number, number];
  const at = new Date(Date.UTC(year, month - 1, day, hour, minute));
  if (at.getUTCFullYear() !== year || at.getUTCMonth() !== month - 1 || at.getUTCDate() !== day || at.getUTCHours() !== hour || at.getUTCMinutes() !== minute) {
    throw new CxrError('bad-option', `links expire: ${trimmed} is not a real date and time`);
  }
  return at.toISOString();
}

/** The host's pages: create studies, invite and revoke readers, open and close, results and exports. Admins only. */
export function registerStudyHost(app: FastifyInstance, ctx: BoardContext): void {
  const admin = (request: FastifyRequest, reply: FastifyReply): boolean => {
    if (!requireCaller(request, reply, false)) return false;
    if (request.caller!.user.is_admin !== 1 || request.caller!.via !== 'session') {
      void page(reply, request, 'Forbidden', html`<h1>Study hosts only</h1><p>Reader studies are run by the board's administrators.</p>`, 403);
      return false;
    }
    return true;
  };
  /** The study of /studies/:id for an admin (with a CSRF-checked form on POST), or null after answering. */
  const hostStudy = async (request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply, post: boolean): Promise<Study | null> => {
    if (!admin(request, reply)) return null;
    if (post && !csrfOk(request, (request.body as Form | undefined)?._csrf)) {
      void page(reply, request, 'Forbidden', problem('The form expired (CSRF check failed); go back and send it again.'), 403);
      return null;
    }
    const study = await studyById(ctx.store, request.params.id);
    if (!study) void page(reply, request, 'Not found', html`<h1>No such study</h1>`, 404);
    return study;
  };
  const showStudy = async (request: FastifyRequest, reply: FastifyReply, study: Study, fresh: { name: string; link: string; account?: string } | null = null, message: Html | null = null, status = 200) =>
    page(reply, request, study.title, studyPage(study, await studyReport(ctx.store, study, { models: false }), viewerOf(request)!.csrf, fresh, message, ctx.options.score.minPublicCell), status);

  app.get('/studies', async (request, reply) => {
    if (!admin(request, reply)) return reply;
    return page(reply, request, 'Reader studies', studiesPage(await listStudies(ctx.store), await listBenchmarks(ctx.store), viewerOf(request)!.csrf));
  });

  app.post<{ Body: Form }>('/studies', async (request, reply) => {
    if (!admin(request, reply)) return reply;
    const form = request.body ?? {};
    const again = async (message: string, status = 400) => page(reply, request, 'Reader studies', studiesPage(await listStudies(ctx.store), await listBenchmarks(ctx.store), viewerOf(request)!.csrf, problem(message), form as Record<string, string>), status);
    if (!csrfOk(request, form._csrf)) return again('The form expired (CSRF check failed); send it again.', 403);
    const benchmark = await benchmarkBySlug(ctx.store, form.benchmark ?? '');
    if (!benchmark) return again('Choose a benchmark of this board.');
    const n = Number(form.n);
    const seed = form.seed?.trim() ? Number(form.seed) : 0;
    if (!Number.isInteger(n) || n < 1 || n > 100_000) return again('Cases: a whole number from 1 to 100000.');
    if (!Number.isInteger(seed) || seed < 0 || seed > 2 ** 31 - 1) return again('Seed: a whole number from 0 to 2147483647.');
    const task = form.task?.trim() || null;
    if (task !== null && !Object.hasOwn(TASK_SHORT, task)) return again('Task: choose one from the list.');
    try {
      const created = await createStudyFromBenchmark(ctx.store, request.caller!.user.email, benchmark, { title: form.title ?? '', plan: { mode: form.mode === 'random' ? 'random' : 'stratified', n, task, seed }, publishScores: form.publishScores === 'on' });
      return reply.redirect(`/studies/${created.study.id}`, 303);
    } catch (error) {
      if (error instanceof CxrError) return again(error.message);
      throw error;
    }
  });

  app.get<{ Params: { id: string } }>('/studies/:id', async (request, reply) => {
    const study = await hostStudy(request, reply, false);
    return study ? showStudy(request, reply, study) : reply;
  });

  app.post<{ Params: { id: string }; Body: Form }>('/studies/:id/invite', async (request, reply) => {
    const study = await hostStudy(request, reply, true);
    if (!study) return reply;
    const form = request.body ?? {};
    try {
      if (study.state === 'closed') throw new CxrError('conflict', 'the study is closed');
      if ((await studyItems(ctx.store, study.id)).some((i) => i.missing_images > 0)) throw new CxrError('conflict', 'some cases have missing images: settle that before inviting readers');
      const origin = ctx.options.publicUrl ?? `${request.protocol}://${request.host}`;
      if (form.email?.trim()) {
        const reader = await inviteAccount(ctx.store, request.caller!.user.email, study.id, form.email, form.name ?? '');
        return showStudy(request, reply, study, { name: reader.name, link: `${origin}/read/${study.id}`, account: form.email.trim() });
      }
      const { reader, token } = await inviteByLink(ctx.store, request.caller!.user.email, study.id, form.name ?? '');
      return showStudy(request, reply, study, { name: reader.name, link: `${origin}/r/${token}` });
    } catch (error) {
      if (error instanceof CxrError) return showStudy(request, reply, study, null, problem(error.message), 400);
      throw error;
    }
  });

  app.post<{ Params: { id: string; rid: string }; Body: Form }>('/studies/:id/readers/:rid/revoke', async (request, reply) => {
    const study = await hostStudy(request, reply, true);
    if (!study) return reply;
    await revokeReader(ctx.store, request.caller!.user.email, study.id, request.params.rid);
    return reply.redirect(`/studies/${study.id}`, 303);
  });

  const action = (path: string, run: (study: Study, form: Form, actor: string) => Promise<void>) =>
    app.post<{ Params: { id: string }; Body: Form }>(path, async (request, reply) => {
      const study = await hostStudy(request, reply, true);
      if (!study) return reply;
      try {
        await run(study, request.body ?? {}, request.caller!.user.email);
      } catch (error) {
        if (error instanceof CxrError) return showStudy(request, reply, study, null, problem(error.message), error.code === 'bad-option' ? 400 : 409);
        throw error;
      }
      return reply.redirect(`/studies/${study.id}`, 303);
    });
  action('/studies/:id/state', async (study, form, actor) => {
    if (form.action !== 'open' && form.action !== 'close') throw new CxrError('bad-option', 'unknown action');
    if (form.action === 'close' && form.confirm !== 'yes') throw new CxrError('bad-option', 'tick the box to confirm: closing freezes every answer for good');
    // Publishing is its own, explicit choice: ticking "close" alone never puts a reader's score on a public page.
    await setStudyState(ctx.store, actor, study.id, form.action === 'open' ? 'open' : 'closed', { publish: form.action === 'close' && form.publish === 'yes' });
  });
  action('/studies/:id/drop-missing', async (study, _form, actor) => void (await dropCasesWithoutImages(ctx.store, actor, study.id)));
  action('/studies/:id/settings', async (study, form, actor) => {
    await setStudySettings(ctx.store, actor, study.id, { allowEdits: form.allowEdits === 'on', invitesExpireAt: expiryFrom(form.expires ?? '') });
  });

  app.post<{ Params: { id: string }; Body: Form }>('/studies/:id/delete', async (request, reply) => {
    const study = await hostStudy(request, reply, true);
    if (!study) return reply;
    try {
      if (request.body?.confirm !== 'yes') throw new CxrError('bad-option', 'tick the box to confirm the deletion');
      await deleteDraftStudy(ctx.store, request.caller!.user.email, study.id);
    } catch (error) {
      if (error instanceof CxrError) return showStudy(request, reply, study, null, problem(error.message), error.code === 'bad-option' ? 400 : 409);
      throw error;
    }
    return reply.redirect('/studies', 303);
  });

  app.get<{ Params: { id: string } }>('/studies/:id/results', async (request, reply) => {
    const study = await hostStudy(request, reply, false);
    if (!study) return reply;
    return page(reply, request, `${study.title}: results`, resultsPage(study, await studyReport(ctx.store, study)));
  });

  app.get<{ Params: { id: string }; Querystring: { task?: string } }>('/studies/:id/results/kappa.svg', async (request, reply) => {
    const study = await hostStudy(request, reply, false);
    if (!study) return reply;
    const report = await studyReport(ctx.store, study);
    const task = request.query.task;
    // Own keys only: "constructor" or "__proto__" name no task.
    const table = task ? (Object.hasOwn(report.results.agreementByTask, task) ? report.results.agreementByTask[task] : undefined) : report.results.agreement;
    if (!table) return reply.code(404).send({ error: 'not-found', message: 'no such task in this study' });
    return reply.type('image/svg+xml').header('cache-control', 'no-store').send(await renderSvg(kappaHeatmapSpec(report.raters.map((r) => r.name), table.cohen, table.pairN)));
  });

  app.get<{ Params: { id: string } }>('/studies/:id/results/accuracy.svg', async (request, reply) => {
    const study = await hostStudy(request, reply, false);
    if (!study) return reply;
    const { results } = await studyReport(ctx.store, study);
    const rows = results.raters.flatMap((r) => results.tasks.map((t) => ({ run: r.kind === 'reader' ? `${r.name} (human)` : r.name, group: t, accuracy: r.byTask[t]!.value, lo: r.byTask[t]!.lo, hi: r.byTask[t]!.hi })));
    return reply.type('image/svg+xml').header('cache-control', 'no-store').send(await renderSvg(accuracyBarSpec(rows, results.tasks)));
  });

  app.get<{ Params: { id: string; file: string } }>('/studies/:id/export/:file', async (request, reply) => {
    const study = await hostStudy(request, reply, false);
    if (!study) return reply;
    const report = await studyReport(ctx.store, study);
    const name = request.params.file;
    const body = name === 'key.jsonl' ? answerKeyLines(report.items) : (() => {
      const rater = report.raters[exportNames(report.raters).indexOf(name)];
      return rater ? answerFileLines(report.items, rater) : null;
    })();
    if (body === null) return reply.code(404).send({ error: 'not-found', message: `no export ${name.slice(0, 80)}` });
    return reply.type('application/x-ndjson; charset=utf-8').header('content-disposition', `attachment; filename="${name}"`).header('cache-control', 'no-store').send(body);
  });
}
