import { randomUUID } from 'node:crypto';
import { CxrError } from '../core/errors.js';
import { audit } from './audit.js';
import type { Store } from './connect.js';
import { finalDecision, finalDecisionMessage } from './review-others-seen.js';
import type { ReviewDecisionTable, ReviewVersionTable } from './schema.js';

export type ReviewDecision = ReviewDecisionTable;
export type ReviewVersion = ReviewVersionTable;

/** What a reviewer decided about one item (the rest of the row is who, where and when). */
export type DecisionFields = Pick<ReviewDecisionTable, 'clinical_quality' | 'explanation_clarity' | 'factual_correctness' | 'image_alignment' | 'difficulty' | 'category' | 'decision' | 'reason' | 'note' | 'edited_json'>;

const now = () => new Date().toISOString();

/**
 * Why an item's own reviewer may not adjudicate it: a dispute is settled by someone who took no part in it, or one
 * side of it would decide it.
 */
export const participantMessage = (position: number) =>
  `You are one of the reviewers of item ${position + 1}, so you cannot adjudicate it: an admin who did not review it settles its dispute. Nothing was saved.`;

/**
 * Saves a reviewer's decision on one item (a later save replaces it), in one transaction with the checks that
 * decide whether this account may: a reviewer only on items assigned to it; an adjudication only by an admin who
 * did not review the item (a settled dispute needs a third opinion, not one of the two it is between); a reviewer's
 * decision on an item they share is final once they have seen the others' decisions (review-others-seen.ts). The checks
 * are made here, not only by the caller, so an assignment or item removed meanwhile stores nothing; on PostgreSQL
 * the rows checked are locked (FOR SHARE) until the decision is written, so a removal in flight waits or is seen
 * (SQLite's transactions begin IMMEDIATE: no other writer runs between the check and the write).
 */
export async function upsertReviewDecision(store: Store, reviewer: { id: string; email: string }, queueId: string, position: number, adjudication: boolean, fields: DecisionFields): Promise<void> {
  const pg = store.dialect === 'postgres';
  await store.db.transaction().execute(async (tx) => {
    let itemQuery = tx.selectFrom('review_items').select('question_id').where('queue_id', '=', queueId).where('position', '=', position);
    if (pg) itemQuery = itemQuery.forShare();
    const item = await itemQuery.executeTakeFirst();
    if (!item) throw new CxrError('not-found', `the queue has no item ${position + 1}`);
    let assignedQuery = tx.selectFrom('review_assignments').select('user_id').where('queue_id', '=', queueId).where('position', '=', position).where('user_id', '=', reviewer.id);
    if (pg) assignedQuery = assignedQuery.forShare();
    const assigned = await assignedQuery.executeTakeFirst();
    if (adjudication) {
      const user = await tx.selectFrom('users').select('is_admin').where('id', '=', reviewer.id).executeTakeFirst();
      if (user?.is_admin !== 1) throw new CxrError('not-found', `the queue has no item ${position + 1} for you`);
      if (assigned) throw new CxrError('conflict', participantMessage(position));
    } else if (!assigned) {
      throw new CxrError('not-found', `item ${position + 1} of this queue is not assigned to you`);
    } else {
      const final = await finalDecision(tx, queueId, position, reviewer.id);
      if (final) throw new CxrError('conflict', finalDecisionMessage(position, final));
    }
    const at = now();
    await tx.insertInto('review_decisions')
      .values({ queue_id: queueId, position, user_id: reviewer.id, adjudication: adjudication ? 1 : 0, ...fields, created_at: at, updated_at: at })
      .onConflict((oc) => oc.columns(['queue_id', 'position', 'user_id']).doUpdateSet({ ...fields, adjudication: adjudication ? 1 : 0, updated_at: at }))
      .execute();
    if (adjudication) await audit(tx, reviewer.email, 'review.adjudicate', { queue: queueId, position, question: item.question_id, decision: fields.decision, reason: fields.reason });
  });
}

/** Every decision of a queue (reviewers' and adjudications'), oldest first. */
export async function reviewDecisions(store: Store, queueId: string): Promise<ReviewDecision[]> {
  return store.db.selectFrom('review_decisions').selectAll().where('queue_id', '=', queueId).orderBy('position', 'asc').orderBy('updated_at', 'asc').execute();
}

/** One account's decision on one item, or null. */
export async function decisionOf(store: Store, queueId: string, position: number, userId: string): Promise<ReviewDecision | null> {
  return (await store.db.selectFrom('review_decisions').selectAll().where('queue_id', '=', queueId).where('position', '=', position).where('user_id', '=', userId).executeTakeFirst()) ?? null;
}

/**
 * Stores a version of the question bank made from a queue, numbered one past the queue's last, audited. Two
 * versions made at once get consecutive numbers: the number is taken inside the transaction after locking the
 * queue's row (PostgreSQL: SELECT … FOR UPDATE, so a concurrent twin waits and then sees this one's number; SQLite:
 * the store's transactions begin IMMEDIATE, which already serializes writers). The unique (queue, number)
 * constraint stays as the last guard.
 */
export async function insertReviewVersion(store: Store, actor: string, queueId: string, version: { disputedPolicy: string; summary: Record<string, unknown>; items: unknown[] }): Promise<ReviewVersion> {
  return store.db.transaction().execute(async (tx) => {
    let queue = tx.selectFrom('review_queues').select('id').where('id', '=', queueId);
    if (store.dialect === 'postgres') queue = queue.forUpdate();
    if (!(await queue.executeTakeFirst())) throw new CxrError('not-found', `no review queue ${queueId} (cxrbench review list)`);
    const last = await tx.selectFrom('review_versions').select((eb) => eb.fn.max('number').as('n')).where('queue_id', '=', queueId).executeTakeFirst();
    const row: ReviewVersion = {
      id: randomUUID(), queue_id: queueId, number: Number(last?.n ?? 0) + 1, created_by: actor, created_at: now(), disputed_policy: version.disputedPolicy,
      summary_json: JSON.stringify(version.summary), items_json: JSON.stringify(version.items),
    };
    await tx.insertInto('review_versions').values(row).execute();
    await audit(tx, actor, 'review.version', { queue: queueId, number: row.number, summary: version.summary });
    return row;
  });
}

/** A queue's versions, oldest first. */
export async function reviewVersions(store: Store, queueId: string): Promise<ReviewVersion[]> {
  return store.db.selectFrom('review_versions').selectAll().where('queue_id', '=', queueId).orderBy('number', 'asc').execute();
}

export async function reviewVersion(store: Store, queueId: string, number: number): Promise<ReviewVersion | null> {
  if (!Number.isInteger(number) || number < 1) return null;
  return (await store.db.selectFrom('review_versions').selectAll().where('queue_id', '=', queueId).where('number', '=', number).executeTakeFirst()) ?? null;
}
