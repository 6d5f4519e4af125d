import type { Store } from '../store/connect.js';
import { reviewVersions, type ReviewVersion } from '../store/review-decisions.js';
import { accountNames, type ReviewQueue } from '../store/reviews.js';
import { reviewerAgreement, type PairAgreement } from './agreement.js';
import { queueState, rejectionReasons, statusCounts, type ReasonShare } from './queue-state.js';
import type { DisputeReason, ItemStatus } from './status.js';

/** What the host's report page shows about a queue. */
export interface ReviewReport {
  queue: ReviewQueue;
  items: number;
  /** Reviewer decisions made, of those assigned. */
  progress: { assigned: number; decided: number };
  counts: Record<ItemStatus, number>;
  reviewed: number;
  reasons: ReasonShare[];
  agreement: (PairAgreement & { names: [string, string] })[];
  /** Reviewers with their load and decisions made. */
  reviewers: { id: string; name: string; email: string; assigned: number; decided: number }[];
  /**
   * Items the reviewers disagree on and no admin has adjudicated, with what they disagree on and who reviewed them
   * (user ids: they may not adjudicate it).
   */
  disputed: { position: number; questionId: string; question: string; dispute: DisputeReason; reviewers: string[]; decisions: { name: string; decision: string; reason: string | null; note: string | null }[] }[];
  versions: ReviewVersion[];
}

/** Progress, statuses, rejection reasons, agreement between reviewer pairs, the disputes to settle and the versions made. */
export async function reviewReport(store: Store, queue: ReviewQueue): Promise<ReviewReport> {
  const state = await queueState(store, queue);
  const names = await accountNames(store, [...state.assignments.map((a) => a.user_id), ...state.decisions.map((d) => d.user_id)]);
  const nameOf = (id: string) => names.get(id)?.name ?? id;
  const own = state.decisions.filter((d) => d.adjudication === 0);
  const reviewerIds = [...new Set(state.assignments.map((a) => a.user_id))];
  const { reviewed, reasons } = rejectionReasons(state.decisions);
  return {
    queue,
    items: state.items.length,
    progress: { assigned: state.assignments.length, decided: own.filter((d) => state.assignments.some((a) => a.position === d.position && a.user_id === d.user_id)).length },
    counts: statusCounts(state.resolved),
    reviewed,
    reasons,
    agreement: reviewerAgreement(state.assignments, state.decisions).map((p) => ({ ...p, names: [nameOf(p.reviewers[0]), nameOf(p.reviewers[1])] })),
    reviewers: reviewerIds.map((id) => ({ id, name: nameOf(id), email: names.get(id)?.email ?? '', assigned: state.assignments.filter((a) => a.user_id === id).length, decided: own.filter((d) => d.user_id === id).length })),
    disputed: state.items.flatMap((item, i) => (state.resolved[i]!.status === 'disputed' ? [{ item, dispute: state.resolved[i]!.dispute! }] : [])).map(({ item, dispute }) => ({
      position: item.position,
      questionId: item.question_id,
      question: String((JSON.parse(item.record_json) as { question?: unknown }).question ?? ''),
      dispute,
      reviewers: state.assignments.filter((a) => a.position === item.position).map((a) => a.user_id),
      decisions: own.filter((d) => d.position === item.position).map((d) => ({ name: nameOf(d.user_id), decision: d.decision, reason: d.reason, note: d.note })),
    })),
    versions: await reviewVersions(store, queue.id),
  };
}
