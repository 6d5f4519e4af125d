import { CxrError } from '../core/errors.js';
import type { Store } from '../store/connect.js';
import { insertReviewVersion, type ReviewVersion } from '../store/review-decisions.js';
import { reviewQueueById } from '../store/reviews.js';
import { queueState, rejectionReasons, statusCounts, type ReasonShare } from './queue-state.js';
import type { DisputeReason, ItemStatus } from './status.js';

/**
 * What a version does with items still disputed or still pending: keep them as they were queued, or leave them out
 * ("retire"). Recorded in the version (its review-version.json says which).
 */
export interface VersionPolicy {
  disputed: 'keep' | 'retire';
  pending: 'keep' | 'retire';
}

/**
 * Unless the host chooses otherwise, only settled questions go into the bank: a disputed item stays out until
 * adjudicated (its reviewers disagree on it), and a pending one until all its reviewers decided it (nobody has
 * vouched for it yet, or not everyone who was asked to).
 */
export const DEFAULT_VERSION_POLICY: VersionPolicy = { disputed: 'retire', pending: 'retire' };

/** One item of a version: its status, whether the version includes it, and its text then (and before, when edited). */
export interface VersionItem {
  position: number;
  questionId: string;
  split: string;
  status: ItemStatus;
  adjudicated: boolean;
  included: boolean;
  /** The record the version holds: the edited one for edits, the original otherwise (retired items too, for the record). */
  record: Record<string, unknown>;
  /** The record as queued, when the version holds an edit. */
  previous: Record<string, unknown> | null;
  reasons: string[];
  /** For a disputed item: what its reviewers disagree on (absent in versions made before disputes were named). */
  dispute?: DisputeReason | null;
}

export interface VersionSummary {
  policy: VersionPolicy;
  items: number;
  included: number;
  retired: number;
  counts: Record<ItemStatus, number>;
  /** Items with any decision; the reason shares are of these. */
  reviewed: number;
  reasons: ReasonShare[];
}

/** A stored version read back. */
export interface VersionContent {
  version: ReviewVersion;
  summary: VersionSummary;
  items: VersionItem[];
}

export function versionContent(version: ReviewVersion): VersionContent {
  return { version, summary: JSON.parse(version.summary_json) as VersionSummary, items: JSON.parse(version.items_json) as VersionItem[] };
}

const included = (status: ItemStatus, policy: VersionPolicy) =>
  status === 'accepted' || status === 'edited' || (status === 'disputed' && policy.disputed === 'keep') || (status === 'pending' && policy.pending === 'keep');

/**
 * Makes the next version of the question bank from a queue's decisions as they stand: accepted items as queued,
 * edited items with their new text (the old kept beside it), retired items listed but left out; disputed and
 * pending items kept as queued or left out, as the policy says (DEFAULT_VERSION_POLICY for what it does not say).
 * Numbered one past the last, audited.
 */
export async function createReviewVersion(store: Store, actor: string, queueId: string, choice: Partial<VersionPolicy> = {}): Promise<VersionContent> {
  const policy: VersionPolicy = { ...DEFAULT_VERSION_POLICY, ...choice };
  const queue = await reviewQueueById(store, queueId);
  if (!queue) throw new CxrError('not-found', `no review queue ${queueId} (cxrbench review list)`);
  const state = await queueState(store, queue);
  const items: VersionItem[] = state.items.map((item, i) => {
    const r = state.resolved[i]!;
    const original = JSON.parse(item.record_json) as Record<string, unknown>;
    return {
      position: item.position, questionId: item.question_id, split: item.split, status: r.status, adjudicated: r.adjudicated, included: included(r.status, policy),
      record: r.record, previous: r.status === 'edited' ? original : null, reasons: r.reasons, dispute: r.dispute,
    };
  });
  const { reviewed, reasons } = rejectionReasons(state.decisions);
  const summary: VersionSummary = {
    policy, items: items.length, included: items.filter((x) => x.included).length, retired: items.filter((x) => !x.included).length,
    counts: statusCounts(state.resolved), reviewed, reasons,
  };
  const version = await insertReviewVersion(store, actor, queue.id, { disputedPolicy: policy.disputed, summary: summary as unknown as Record<string, unknown>, items });
  return { version, summary, items };
}
