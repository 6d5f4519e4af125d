import type { Store } from '../store/connect.js';
import { reviewDecisions, type ReviewDecision } from '../store/review-decisions.js';
import { reviewAssignments, reviewItems, type ReviewAssignment, type ReviewItem, type ReviewQueue } from '../store/reviews.js';
import { REJECT_REASONS, type RejectReason } from './decision.js';
import { resolveItem, type ItemResolution, type ItemStatus } from './status.js';

/** A queue's items, assignments and decisions, and where each item stands. */
export interface QueueState {
  queue: ReviewQueue;
  items: ReviewItem[];
  assignments: ReviewAssignment[];
  decisions: ReviewDecision[];
  /** By position. */
  resolved: ItemResolution[];
}

export const STATUSES: readonly ItemStatus[] = ['accepted', 'edited', 'retired', 'disputed', 'pending'];

/** Reads a queue and resolves every item's status. */
export async function queueState(store: Store, queue: ReviewQueue): Promise<QueueState> {
  const [items, assignments, decisions] = await Promise.all([reviewItems(store, queue.id), reviewAssignments(store, queue.id), reviewDecisions(store, queue.id)]);
  const resolved = items.map((item) => resolveItem(
    assignments.filter((a) => a.position === item.position).map((a) => a.user_id),
    decisions.filter((d) => d.position === item.position),
    JSON.parse(item.record_json) as Record<string, unknown>,
  ));
  return { queue, items, assignments, decisions, resolved };
}

/** How many items stand in each status. */
export function statusCounts(resolved: readonly ItemResolution[]): Record<ItemStatus, number> {
  return Object.fromEntries(STATUSES.map((s) => [s, resolved.filter((r) => r.status === s).length])) as Record<ItemStatus, number>;
}

/** One rejection reason: on how many reviewed items someone gave it, and the share of reviewed items that is. */
export interface ReasonShare {
  reason: RejectReason;
  label: string;
  items: number;
  share: number;
}

/**
 * Rejection reasons as the paper reports them (10.8% several valid answers, …): the share of reviewed items
 * (items with any decision) for which a reviewer or the adjudication rejected with that reason. An item can
 * count under two reasons when its reviewers gave different ones.
 */
export function rejectionReasons(decisions: readonly ReviewDecision[]): { reviewed: number; reasons: ReasonShare[] } {
  const reviewed = new Set(decisions.map((d) => d.position)).size;
  const reasons = (Object.keys(REJECT_REASONS) as RejectReason[]).map((reason) => {
    const items = new Set(decisions.filter((d) => d.decision === 'reject' && d.reason === reason).map((d) => d.position)).size;
    return { reason, label: REJECT_REASONS[reason], items, share: reviewed === 0 ? 0 : items / reviewed };
  });
  return { reviewed, reasons };
}
