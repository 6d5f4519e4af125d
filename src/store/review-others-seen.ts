import type { Kysely, Transaction } from 'kysely';
import type { Store } from './connect.js';
import type { Database, ReviewOthersSeenTable } from './schema.js';

export type OthersSeen = ReviewOthersSeenTable;
export type SeenVia = OthersSeen['first_seen_via'];

type Db = Kysely<Database> | Transaction<Database>;

/** What the reviewer did that showed them the others' decisions, as a sentence says it. */
const SEEN_VIA: Record<SeenVia, string> = {
  report: "opened this queue's report",
  version: 'made a version of this queue',
  download: 'downloaded a version of this queue',
};

/**
 * Records that a reviewer saw the other reviewers' decisions in a queue, unless an earlier time is recorded (the
 * first one counts). Looked up before written: opening the report again writes nothing, so the pages made from the
 * store are not made again for it.
 */
export async function recordOthersSeen(store: Store, queueId: string, userId: string, via: SeenVia): Promise<void> {
  if (await othersSeenIn(store.db, queueId, userId)) return;
  await store.db.insertInto('review_others_seen').values({ queue_id: queueId, user_id: userId, first_seen_at: new Date().toISOString(), first_seen_via: via })
    .onConflict((oc) => oc.columns(['queue_id', 'user_id']).doNothing()).execute();
}

async function othersSeenIn(db: Db, queueId: string, userId: string): Promise<OthersSeen | null> {
  return (await db.selectFrom('review_others_seen').selectAll().where('queue_id', '=', queueId).where('user_id', '=', userId).executeTakeFirst()) ?? null;
}

/**
 * Why a reviewer's decision on item `position` is final, or null when they may still change it: they share the item
 * with another reviewer and have seen the others' decisions in the queue (changed after that, theirs would no longer
 * be an independent opinion, and a dispute could be erased by the one who saw the other side). An item nobody else
 * reviews stays editable.
 */
export async function finalDecision(db: Db, queueId: string, position: number, userId: string): Promise<OthersSeen | null> {
  const seen = await othersSeenIn(db, queueId, userId);
  if (!seen) return null;
  const other = await db.selectFrom('review_assignments').select('user_id').where('queue_id', '=', queueId).where('position', '=', position).where('user_id', '!=', userId).executeTakeFirst();
  return other ? seen : null;
}

/** The sentence that says why a decision is final and what can still be done: shown on the item page and in a refusal. */
export function finalDecisionReason(seen: OthersSeen): string {
  return `You share it with another reviewer, and on ${seen.first_seen_at.slice(0, 16).replace('T', ' ')} UTC you ${SEEN_VIA[seen.first_seen_via]}, which shows the other reviewers' decisions: a decision changed after seeing theirs would no longer be an independent opinion. If it must change, an admin who did not review the item can settle it by adjudication.`;
}

/** The refusal of a change to a final decision (the library's and the store's). */
export const finalDecisionMessage = (position: number, seen: OthersSeen) =>
  `Your decision on item ${position + 1} is final, so nothing was saved. ${finalDecisionReason(seen)}`;
