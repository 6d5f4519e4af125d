import { randomUUID } from 'node:crypto';
import { CxrError } from '../core/errors.js';
import { audit } from './audit.js';
import type { Store } from './connect.js';
import { storeImage } from './images.js';
import type { ReviewAssignmentTable, ReviewItemTable, ReviewQueueTable } from './schema.js';
import type { StoredView } from './studies.js';

export type ReviewQueue = ReviewQueueTable;
export type ReviewItem = ReviewItemTable;
export type ReviewAssignment = ReviewAssignmentTable;

/** A question to queue: its full record (answer and explanation included), its report, its images' bytes, and who reviews it. */
export interface NewReviewItem {
  questionId: string;
  split: string;
  record: Record<string, unknown>;
  reportText: string | null;
  /** Each view's file, read when stored (`load` gives null: the file was missing); contentType null: no usable image. */
  images: { path: string; view: string | null; load: () => Buffer | null; contentType: string | null; problem?: string | null }[];
  /** User ids of the reviewers assigned to it. */
  reviewers: readonly string[];
}

export interface NewReviewQueue {
  title: string;
  source: string;
  sourceSha256: string;
  reviewersPerItem: 1 | 2;
  /** Recorded in the audit log: how items were handed out. */
  assignment: Record<string, unknown>;
}

const now = () => new Date().toISOString();
const UUID = /^[0-9a-f-]{36}$/;

/** The board accounts of the given emails (lowercased, in the order given); refuses naming every email with no account. */
export async function reviewerAccounts(store: Store, emails: readonly string[]): Promise<{ id: string; email: string; display_name: string }[]> {
  const wanted = [...new Set(emails.map((e) => e.trim().toLowerCase()).filter((e) => e))];
  if (wanted.length === 0) throw new CxrError('bad-option', 'name at least one reviewer (the email of a board account)');
  const rows = await store.db.selectFrom('users').select(['id', 'email', 'display_name']).where('email', 'in', wanted).execute();
  const unknown = wanted.filter((e) => !rows.some((r) => r.email === e));
  if (unknown.length > 0) throw new CxrError('not-found', `no board account for ${unknown.join(', ')}: reviewers sign up (or an admin runs cxrbench board user) first`);
  return wanted.map((e) => rows.find((r) => r.email === e)!);
}

/** Creates a queue with its items, their images and their assignments, all in one transaction, audited. */
export async function insertReviewQueue(store: Store, actor: string, meta: NewReviewQueue, items: readonly NewReviewItem[]): Promise<ReviewQueue> {
  const title = meta.title.trim().slice(0, 200);
  if (!title) throw new CxrError('bad-option', 'a review queue needs a title');
  if (items.length === 0) throw new CxrError('bad-option', 'a review queue needs at least one question');
  return store.db.transaction().execute(async (tx) => {
    const queue: ReviewQueue = { id: randomUUID(), title, source: meta.source, source_sha256: meta.sourceSha256, reviewers_per_item: meta.reviewersPerItem, created_by: actor, created_at: now() };
    await tx.insertInto('review_queues').values(queue).execute();
    for (const [position, item] of items.entries()) {
      const views: StoredView[] = [];
      for (const image of item.images) {
        const content = image.contentType ? image.load() : null;
        const sha256 = content && image.contentType ? await storeImage(tx, content, image.contentType) : null;
        views.push({ path: image.path, view: image.view, sha256 });
      }
      await tx.insertInto('review_items').values({
        queue_id: queue.id, position, question_id: item.questionId, split: item.split, record_json: JSON.stringify(item.record), report_text: item.reportText,
        images_json: JSON.stringify(views), missing_images: views.filter((v) => v.sha256 === null).length + (views.length === 0 ? 1 : 0),
      }).execute();
      for (const userId of item.reviewers) await tx.insertInto('review_assignments').values({ queue_id: queue.id, position, user_id: userId }).execute();
    }
    await audit(tx, actor, 'review.create', { id: queue.id, title, source: meta.source, items: items.length, ...meta.assignment });
    return queue;
  });
}

export async function reviewQueueById(store: Store, id: string): Promise<ReviewQueue | null> {
  if (!UUID.test(id)) return null;
  return (await store.db.selectFrom('review_queues').selectAll().where('id', '=', id).executeTakeFirst()) ?? null;
}

type CountRow = { queue_id: string; n: number | string | bigint };
const countOf = (rows: CountRow[], id: string) => Number(rows.find((r) => r.queue_id === id)?.n ?? 0);

/** Every queue with its item count and decisions made (reviewers' and adjudications'), newest first: the admins' list. */
export async function listReviewQueues(store: Store): Promise<(ReviewQueue & { items: number; assignments: number; decisions: number })[]> {
  const queues = await store.db.selectFrom('review_queues').selectAll().orderBy('created_at', 'desc').execute();
  const count = (table: 'review_items' | 'review_assignments') => store.db.selectFrom(table).select(['queue_id', (eb) => eb.fn.countAll<number>().as('n')]).groupBy('queue_id').execute();
  const [items, assignments] = await Promise.all([count('review_items'), count('review_assignments')]);
  const decisions = await store.db.selectFrom('review_decisions').select(['queue_id', (eb) => eb.fn.countAll<number>().as('n')]).where('adjudication', '=', 0).groupBy('queue_id').execute();
  return queues.map((q) => ({ ...q, items: countOf(items, q.id), assignments: countOf(assignments, q.id), decisions: countOf(decisions, q.id) }));
}

/** The queues an account reviews in, with how many items it was given and how many it has decided. */
export async function reviewQueuesOf(store: Store, userId: string): Promise<(ReviewQueue & { assigned: number; decided: number })[]> {
  const assigned = await store.db.selectFrom('review_assignments').select(['queue_id', (eb) => eb.fn.countAll<number>().as('n')]).where('user_id', '=', userId).groupBy('queue_id').execute();
  if (assigned.length === 0) return [];
  const queues = await store.db.selectFrom('review_queues').selectAll().where('id', 'in', assigned.map((a) => a.queue_id)).orderBy('created_at', 'desc').execute();
  const decided = await store.db.selectFrom('review_decisions').select(['queue_id', (eb) => eb.fn.countAll<number>().as('n')]).where('user_id', '=', userId).where('adjudication', '=', 0).groupBy('queue_id').execute();
  return queues.map((q) => ({ ...q, assigned: countOf(assigned, q.id), decided: countOf(decided, q.id) }));
}

/** Every item of a queue in position order, answers included. Server-side only. */
export async function reviewItems(store: Store, queueId: string): Promise<ReviewItem[]> {
  return store.db.selectFrom('review_items').selectAll().where('queue_id', '=', queueId).orderBy('position', 'asc').execute();
}

export async function reviewItemAt(store: Store, queueId: string, position: number): Promise<ReviewItem | null> {
  if (!Number.isInteger(position) || position < 0) return null;
  return (await store.db.selectFrom('review_items').selectAll().where('queue_id', '=', queueId).where('position', '=', position).executeTakeFirst()) ?? null;
}

export async function reviewAssignments(store: Store, queueId: string): Promise<ReviewAssignment[]> {
  return store.db.selectFrom('review_assignments').selectAll().where('queue_id', '=', queueId).orderBy('position', 'asc').orderBy('user_id', 'asc').execute();
}

/** The positions an account was given in a queue, in order (empty: not a reviewer of it). */
export async function assignedPositions(store: Store, queueId: string, userId: string): Promise<number[]> {
  const rows = await store.db.selectFrom('review_assignments').select('position').where('queue_id', '=', queueId).where('user_id', '=', userId).orderBy('position', 'asc').execute();
  return rows.map((r) => r.position);
}

/** The positions an account was given in a queue and has not decided yet, in order. */
export async function undecidedPositions(store: Store, queueId: string, userId: string): Promise<number[]> {
  const [mine, decided] = await Promise.all([
    assignedPositions(store, queueId, userId),
    store.db.selectFrom('review_decisions').select('position').where('queue_id', '=', queueId).where('user_id', '=', userId).where('adjudication', '=', 0).execute(),
  ]);
  const done = new Set(decided.map((d) => d.position));
  return mine.filter((p) => !done.has(p));
}

/** The views of an item as stored: sha256 null when the file was missing when the queue was made. */
export function reviewViewsOf(item: Pick<ReviewItem, 'images_json'>): StoredView[] {
  return JSON.parse(item.images_json) as StoredView[];
}

/** True when the image belongs to an item of the queue that this account may see (any item, for `allItems`). */
export async function reviewerMaySeeImage(store: Store, queueId: string, sha256: string, userId: string, allItems: boolean): Promise<boolean> {
  let query = store.db.selectFrom('review_items').select('review_items.images_json').where('review_items.queue_id', '=', queueId);
  if (!allItems) {
    query = query.innerJoin('review_assignments', (j) => j.onRef('review_assignments.queue_id', '=', 'review_items.queue_id').onRef('review_assignments.position', '=', 'review_items.position'))
      .where('review_assignments.user_id', '=', userId);
  }
  const items = await query.execute();
  return items.some((i) => reviewViewsOf(i).some((v) => v.sha256 === sha256));
}

/** Display names and emails of accounts by id (for the report: who reviewed what). */
export async function accountNames(store: Store, ids: readonly string[]): Promise<Map<string, { email: string; name: string }>> {
  if (ids.length === 0) return new Map();
  const rows = await store.db.selectFrom('users').select(['id', 'email', 'display_name']).where('id', 'in', [...new Set(ids)]).execute();
  return new Map(rows.map((r) => [r.id, { email: r.email, name: r.display_name }]));
}
