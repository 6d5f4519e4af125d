import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CxrError } from '../../core/errors.js';
import { decisionFromForm, saveDecision } from '../../review/decision.js';
import { splitFilesJson, versionFiles, versionManifest } from '../../review/export-version.js';
import { queueState } from '../../review/queue-state.js';
import { reviewReport } from '../../review/review-report.js';
import { resolveItem } from '../../review/status.js';
import { createReviewVersion } from '../../review/version.js';
import { decisionOf, participantMessage, reviewDecisions } from '../../store/review-decisions.js';
import { finalDecision, recordOthersSeen, type SeenVia } from '../../store/review-others-seen.js';
import { accountNames, assignedPositions, listReviewQueues, reviewAssignments, reviewerMaySeeImage, reviewItemAt, reviewItems, reviewQueueById, reviewQueuesOf, reviewViewsOf, undecidedPositions, type ReviewQueue } from '../../store/reviews.js';
import { csrfOk, requireCaller, viewerOf } from '../auth.js';
import type { BoardContext } from '../context.js';
import { sendRawPixels } from '../viewer/raw-pixels.js';
import { html, plural, type Html } from '../views/html.js';
import { layout } from '../views/layout.js';
import { reviewReportPage } from '../views/review-report-views.js';
import { formValues, itemPage, queuePage, reviewsPage, STATUS_LABEL, type ItemPageData } from '../views/review-views.js';

type Form = Record<string, string | undefined>;
type QueueParams = { queue: string };
type ItemParams = { queue: string; pos: string };

function page(reply: FastifyReply, request: FastifyRequest, title: string, body: Html, status = 200): FastifyReply {
  return reply.code(status).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(layout(title, viewerOf(request), body));
}

/** Why a signed-in reviewer's form was refused by the CSRF check: it was opened in an earlier session. */
const EXPIRED = 'Not saved: the form had expired (it was opened before you last signed in). Everything you entered is below — check it and save again.';

/** Why a change to a final decision was refused; the page says below why the decision is final. */
const FINAL_NOT_SAVED = 'Not saved: your decision on this item is final, and it is unchanged. What you sent is shown below, read-only, so you can copy it; open the item again to see your saved decision.';

/** What the report page needs of its viewer: the form token, and who they are (no adjudication link for their own items). */
const reportViewer = (request: FastifyRequest) => ({ csrf: viewerOf(request)!.csrf, userId: request.caller!.user.id });

const notFound = (reply: FastifyReply, request: FastifyRequest) =>
  page(reply, request, 'Not found', html`<h1>Not found</h1><p class="problems" role="alert">There is no review queue or item here for you. <a href="/reviews">Your review queues</a></p>`, 404);

/** Who may do what in a queue: its reviewers see their own items; admins see every item and adjudicate. */
interface Access {
  queue: ReviewQueue;
  admin: boolean;
  /** Positions assigned to the viewer. */
  mine: number[];
}

/**
 * Expert review pages: a reviewer's queues and items (images, report, question with its answer, the decision
 * form), and the admins' report, versions and downloads. A reviewer sees only items assigned to them — anything
 * else is a 404, so answers never reach anyone else — and every POST checks the session's CSRF token.
 */
export function registerReview(app: FastifyInstance, ctx: BoardContext): void {
  /** A signed-in browser (API tokens do not open review pages: their forms need a session's CSRF token). */
  const signedIn = (request: FastifyRequest, reply: FastifyReply): boolean => {
    if (!requireCaller(request, reply, false)) return false;
    if (request.caller!.via !== 'session') {
      void page(reply, request, 'Sign in', html`<h1>Sign in</h1><p class="problems" role="alert">Review pages are for a signed-in browser, not an API token.</p>`, 403);
      return false;
    }
    return true;
  };
  /** The queue of the request and the viewer's rights in it, or null after answering (404 for someone with none). */
  const access = async (request: FastifyRequest<{ Params: QueueParams }>, reply: FastifyReply, post: boolean): Promise<Access | null> => {
    if (!signedIn(request, reply)) return null;
    if (post && !csrfOk(request, (request.body as Form | undefined)?._csrf)) {
      void page(reply, request, 'Forbidden', html`<p class="problems" role="alert">The form expired (CSRF check failed); go back, reload the page and send it again.</p>`, 403);
      return null;
    }
    const queue = await reviewQueueById(ctx.store, request.params.queue);
    const admin = request.caller!.user.is_admin === 1;
    const mine = queue ? await assignedPositions(ctx.store, queue.id, request.caller!.user.id) : [];
    if (!queue || (!admin && mine.length === 0)) {
      void notFound(reply, request);
      return null;
    }
    return { queue, admin, mine };
  };
  const adminAccess = async (request: FastifyRequest<{ Params: QueueParams }>, reply: FastifyReply, post: boolean): Promise<Access | null> => {
    const found = await access(request, reply, post);
    if (found && !found.admin) {
      void notFound(reply, request);
      return null;
    }
    return found;
  };
  /**
   * The items an account shares with other reviewers in a queue and, of those, the ones it has not decided yet. The
   * report shows every reviewer's decisions: an admin who reviews too must not see the others' on a shared item
   * before deciding it (items nobody else reviews hold nothing to see).
   */
  const sharedItems = async (queueId: string, userId: string, mine: readonly number[]): Promise<{ shared: number[]; undecided: number[] }> => {
    if (mine.length === 0) return { shared: [], undecided: [] };
    const [assignments, undecided] = await Promise.all([reviewAssignments(ctx.store, queueId), undecidedPositions(ctx.store, queueId, userId)]);
    const shared = mine.filter((p) => assignments.some((a) => a.position === p && a.user_id !== userId));
    return { shared, undecided: undecided.filter((p) => shared.includes(p)) };
  };
  /**
   * An admin's access to what shows every reviewer's decisions (the report, versions, downloads). An admin who also
   * reviews items of the queue with other reviewers gets it only once those are all decided, so the others'
   * decisions cannot sway theirs; and from the first time they get it, those decisions are final (recorded here,
   * before anything is shown). A download is answered in JSON.
   */
  const reportAccess = async (request: FastifyRequest<{ Params: QueueParams }>, reply: FastifyReply, via: SeenVia): Promise<Access | null> => {
    const json = via === 'download';
    const found = await adminAccess(request, reply, via === 'version');
    if (!found) return found;
    const { shared, undecided } = await sharedItems(found.queue.id, request.caller!.user.id, found.mine);
    if (undecided.length === 0) {
      if (shared.length > 0) await recordOthersSeen(ctx.store, found.queue.id, request.caller!.user.id, via);
      return found;
    }
    const message = `You review ${plural(shared.length, 'item')} of this queue with other reviewers: decide your own ${plural(undecided.length, 'item')} first. The report, its versions and downloads show the other reviewers' decisions on the items you share, so they open once yours are made.`;
    if (json) {
      void reply.code(403).header('cache-control', 'no-store').send({ error: 'decide-own-items-first', message });
    } else {
      void page(reply, request, `${found.queue.title}: report`, html`<h1>${found.queue.title}: review report</h1><p class="problems" role="alert" id="own-items-first">${message}</p>
<p><a class="button" id="continue" href="/reviews/${found.queue.id}/items/${undecided[0]! + 1}">Continue with item ${undecided[0]! + 1}</a> <a href="/reviews/${found.queue.id}">Your items in this queue</a></p>`, 403);
    }
    return null;
  };

  app.get('/reviews', async (request, reply) => {
    if (!signedIn(request, reply)) return reply;
    const user = request.caller!.user;
    return page(reply, request, 'Expert review', reviewsPage(await reviewQueuesOf(ctx.store, user.id), user.is_admin === 1 ? await listReviewQueues(ctx.store) : null));
  });

  app.get<{ Params: QueueParams }>('/reviews/:queue', async (request, reply) => {
    const found = await access(request, reply, false);
    if (!found) return reply;
    const { queue, admin, mine } = found;
    const items = await reviewItems(ctx.store, queue.id);
    const question = (json: string) => String((JSON.parse(json) as { question?: unknown }).question ?? '');
    if (mine.length > 0) {
      const decisions = (await reviewDecisions(ctx.store, queue.id)).filter((d) => d.user_id === request.caller!.user.id && d.adjudication === 0);
      const rows = items.filter((i) => mine.includes(i.position)).map((i) => ({ k: i.position + 1, questionId: i.question_id, question: question(i.record_json), state: decisions.find((d) => d.position === i.position)?.decision ?? 'to do' }));
      const next = rows.find((r) => r.state === 'to do')?.k ?? null;
      return page(reply, request, queue.title, queuePage(queue, rows, next, admin, 'Your decision'));
    }
    const state = await queueState(ctx.store, queue);
    const rows = items.map((i, n) => ({ k: i.position + 1, questionId: i.question_id, question: question(i.record_json), state: STATUS_LABEL[state.resolved[n]!.status] }));
    return page(reply, request, queue.title, queuePage(queue, rows, null, admin, 'Status'));
  });

  /**
   * What an adjudicating admin sees of an item: each reviewer assigned to it with their decision (null: not yet), in
   * name order, then other admins' adjudications; and what the reviewers disagree on.
   */
  const adjudicationView = async (queueId: string, position: number, viewerId: string, record: Record<string, unknown>): Promise<Pick<ItemPageData, 'others' | 'dispute'>> => {
    const [assignments, decisions] = await Promise.all([reviewAssignments(ctx.store, queueId), reviewDecisions(ctx.store, queueId)]);
    const here = decisions.filter((d) => d.position === position);
    const reviewers = assignments.filter((a) => a.position === position).map((a) => a.user_id);
    const rulings = here.filter((d) => d.adjudication === 1 && d.user_id !== viewerId);
    const names = await accountNames(ctx.store, [...reviewers, ...rulings.map((d) => d.user_id)]);
    const nameOf = (id: string) => names.get(id)?.name ?? id;
    const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
    return {
      others: [
        ...reviewers.map((id) => ({ name: nameOf(id), adjudication: false, decision: here.find((d) => d.user_id === id && d.adjudication === 0) ?? null })).sort(byName),
        ...rulings.map((d) => ({ name: nameOf(d.user_id), adjudication: true, decision: d })).sort(byName),
      ],
      dispute: resolveItem(reviewers, here.filter((d) => d.adjudication === 0), record).dispute,
    };
  };

  /** Renders the item page for `pos` (1-based), or answers 404; `typed` keeps a refused form's values. */
  const showItem = async (request: FastifyRequest<{ Params: ItemParams }>, reply: FastifyReply, found: Access, extra: { typed?: Form; problems?: ItemPageData['problems']; message?: string; saved?: boolean; status?: number } = {}) => {
    const { queue, admin, mine } = found;
    const position = Number(request.params.pos) - 1;
    const item = await reviewItemAt(ctx.store, queue.id, position);
    const assigned = mine.includes(position);
    if (!item || (!assigned && !admin)) return notFound(reply, request);
    const userId = request.caller!.user.id;
    const record = JSON.parse(item.record_json) as Record<string, unknown>;
    const order = assigned ? mine : (await reviewItems(ctx.store, queue.id)).map((i) => i.position);
    const at = order.indexOf(position);
    const saved = await decisionOf(ctx.store, queue.id, position, userId);
    const final = assigned && saved ? await finalDecision(ctx.store.db, queue.id, position, userId) : null;
    const { others, dispute } = assigned ? { others: [], dispute: null } : await adjudicationView(queue.id, position, userId, record);
    // A refused form shows what was sent, over what the form started with (a field not sent keeps its value).
    const typed = Object.entries(extra.typed ?? {}).filter(([k]) => k !== '_csrf').map(([k, v]) => [k, v ?? '']);
    const values = { ...formValues(record, saved), ...Object.fromEntries(typed) };
    const total = (await reviewItems(ctx.store, queue.id)).length;
    return page(reply, request, `Item ${position + 1} · ${queue.title}`, itemPage({
      queue, k: position + 1, total, prevK: at > 0 ? order[at - 1]! + 1 : null, nextK: at >= 0 && at < order.length - 1 ? order[at + 1]! + 1 : null,
      questionId: item.question_id, split: item.split, record, reportText: item.report_text, views: reviewViewsOf(item), mode: assigned ? 'review' : 'adjudicate',
      values, decided: saved !== null, problems: extra.problems ?? [], message: extra.message ?? null, saved: extra.saved ?? false, others, dispute, final, csrf: viewerOf(request)!.csrf,
    }), extra.status ?? 200);
  };

  app.get<{ Params: ItemParams; Querystring: { saved?: string } }>('/reviews/:queue/items/:pos', async (request, reply) => {
    const found = await access(request, reply, false);
    return found ? showItem(request, reply, found, { saved: request.query.saved === '1' }) : reply;
  });

  app.post<{ Params: ItemParams; Body: Form }>('/reviews/:queue/items/:pos', async (request, reply) => {
    // The CSRF token is checked here rather than in access(): a refused form is shown again with what was typed.
    const found = await access(request, reply, false);
    if (!found) return reply;
    const position = Number(request.params.pos) - 1;
    const assigned = found.mine.includes(position);
    if (!assigned && !found.admin) return notFound(reply, request);
    const form = request.body ?? {};
    if (!csrfOk(request, form._csrf)) return showItem(request, reply, found, { typed: form, message: EXPIRED, status: 403 });
    // An adjudication form sent by one of the item's reviewers (a page opened before they were assigned, a crafted
    // form) must not become their own vote: it is refused and shown again. Any value counts (the field sent twice too).
    if (form.adjudication !== undefined && assigned) return showItem(request, reply, found, { typed: form, message: `${participantMessage(position)} The form below is your own review.`, status: 409 });
    // A decision made final by seeing the others' (a page opened before, a crafted form): refused, what was sent shown.
    if (assigned && (await finalDecision(ctx.store.db, found.queue.id, position, request.caller!.user.id))) return showItem(request, reply, found, { typed: form, message: FINAL_NOT_SAVED, status: 409 });
    const user = request.caller!.user;
    try {
      const result = await saveDecision(ctx.store, { id: user.id, email: user.email, isAdmin: user.is_admin === 1 }, found.queue.id, position, decisionFromForm(form), { adjudication: !assigned });
      if (!result.saved) return showItem(request, reply, found, { typed: form, problems: result.problems, status: 400 });
    } catch (error) {
      if (!(error instanceof CxrError)) throw error;
      if (error.code === 'not-found') return notFound(reply, request);
      return showItem(request, reply, found, { typed: form, message: error.message, status: 409 });
    }
    const base = `/reviews/${found.queue.id}`;
    if (form.go === 'stay') return reply.redirect(`${base}/items/${position + 1}?saved=1`, 303);
    // Back to the report after an adjudication — unless the admin's own items wait: the report opens after those.
    if (!assigned) return reply.redirect((await sharedItems(found.queue.id, user.id, found.mine)).undecided.length > 0 ? base : `${base}/report`, 303);
    const next = found.mine.find((p) => p > position);
    return reply.redirect(next === undefined ? base : `${base}/items/${next + 1}`, 303);
  });

  app.get<{ Params: { queue: string; sha: string } }>('/reviews/:queue/img/:sha', async (request, reply) => {
    const caller = request.caller;
    const queue = caller?.via === 'session' ? await reviewQueueById(ctx.store, request.params.queue) : null;
    const allowed = queue && caller ? await reviewerMaySeeImage(ctx.store, queue.id, request.params.sha, caller.user.id, caller.user.is_admin === 1) : false;
    const pixels = allowed ? await ctx.pixels.get(request.params.sha) : null;
    if (!pixels) return reply.code(404).send({ error: 'not-found', message: 'no such image in a review item of yours' });
    return sendRawPixels(reply, pixels);
  });

  app.get<{ Params: QueueParams }>('/reviews/:queue/report', async (request, reply) => {
    const found = await reportAccess(request, reply, 'report');
    if (!found) return reply;
    return page(reply, request, `${found.queue.title}: report`, reviewReportPage(await reviewReport(ctx.store, found.queue), reportViewer(request)));
  });

  app.post<{ Params: QueueParams; Body: Form }>('/reviews/:queue/versions', async (request, reply) => {
    const found = await reportAccess(request, reply, 'version');
    if (!found) return reply;
    const form = request.body ?? {};
    // Disputed items go in only when the host ticks the box, pending ones only when the host chooses to keep them.
    const disputed = form.include_disputed === '1' ? 'keep' : form.include_disputed === undefined ? 'retire' : null;
    const pending = form.pending === 'keep' ? 'keep' : form.pending === 'retire' || form.pending === undefined ? 'retire' : null;
    if (!disputed || !pending) {
      const message = html`<p class="problems" role="alert" id="version-error">Not made: tick the box to include disputed questions (or leave it unticked), and choose keep or leave out for pending ones.</p>`;
      return page(reply, request, `${found.queue.title}: report`, reviewReportPage(await reviewReport(ctx.store, found.queue), reportViewer(request), message), 400);
    }
    await createReviewVersion(ctx.store, request.caller!.user.email, found.queue.id, { disputed, pending });
    return reply.redirect(`/reviews/${found.queue.id}/report#versions`, 303);
  });

  /** A version's files for download (admins only: they hold the answers and explanations). */
  const download = (name: string, body: (files: Awaited<ReturnType<typeof versionFiles>>, split: string | undefined) => unknown) =>
    app.get<{ Params: QueueParams & { n: string }; Querystring: { split?: string } }>(`/reviews/:queue/versions/:n/${name}`, async (request, reply) => {
      const found = await reportAccess(request, reply, 'download');
      if (!found) return reply;
      let files;
      try {
        files = await versionFiles(ctx.store, found.queue.id, Number(request.params.n));
      } catch (error) {
        if (error instanceof CxrError) return reply.code(error.code === 'not-found' ? 404 : 409).send({ error: error.code, message: error.message });
        throw error;
      }
      const value = body(files, request.query.split);
      if (value === undefined) return reply.code(404).send({ error: 'not-found', message: `version ${request.params.n} has no split ${String(request.query.split).slice(0, 40)}` });
      const file = name === 'export.json' && request.query.split ? `${request.query.split}_vqa_data.json` : `review-${found.queue.id.slice(0, 8)}-v${request.params.n}-${name}`;
      return reply.type('application/json; charset=utf-8').header('content-disposition', `attachment; filename="${file.replace(/[^A-Za-z0-9._-]/g, '_')}"`).header('cache-control', 'no-store').send(`${JSON.stringify(value, null, 2)}\n`);
    });
  // The split files as one JSON; `?split=test` gives exactly metadata/test_vqa_data.json.
  download('export.json', (files, split) => {
    const all = splitFilesJson(files);
    return split === undefined ? all : all[`metadata/${split}_vqa_data.json`];
  });
  download('review-version.json', (files) => versionManifest(files));
}
