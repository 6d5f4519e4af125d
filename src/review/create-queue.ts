import { imageContentType } from '../store/images.js';
import type { Store } from '../store/connect.js';
import { insertReviewQueue, reviewerAccounts, type NewReviewItem, type ReviewQueue } from '../store/reviews.js';
import { decodableImage, readCaseSet, readImageFile } from '../study/case-source.js';
import { assignReviewers } from './assign.js';
import { isReviewSample, readReviewSample } from './review-sample-set.js';

/** What a queue is made from and who reviews it. */
export interface NewQueueInput {
  /** A question set (ReXVQA folder, JSONL file or folder) or a generated set's `review-sample.jsonl`. */
  data: string;
  splits?: string[];
  title: string;
  reviewersPerItem: 1 | 2;
  /** Emails of board accounts. */
  reviewers: string[];
  /** Seeds the order reviewers are handed items in (default 0). */
  seed?: number;
}

/** A new queue, with the items whose images are missing (the host should see these before reviewers start). */
export interface CreatedQueue {
  queue: ReviewQueue;
  items: number;
  /** Items per reviewer email. */
  loads: Record<string, number>;
  missing: { questionId: string; paths: string[] }[];
}

/**
 * Creates a review queue from a question set on disk: every question (or every sampled one) with its full record,
 * report and images, each assigned to `reviewersPerItem` of the given accounts round-robin (seeded), in one
 * transaction, audited. Missing image files do not refuse it; they are listed.
 */
export async function createReviewQueue(store: Store, actor: string, input: NewQueueInput): Promise<CreatedQueue> {
  const accounts = await reviewerAccounts(store, input.reviewers);
  const set = isReviewSample(input.data) ? await readReviewSample(input.data, input.splits) : await readCaseSet(input.data, input.splits);
  const seed = input.seed ?? 0;
  const assignment = assignReviewers(set.cases.length, accounts, input.reviewersPerItem, seed);
  const items: NewReviewItem[] = [];
  for (const [i, c] of set.cases.entries()) {
    // Each file must decode (an empty or corrupt file is listed with why); its bytes are read when stored, one at a time.
    const images = await Promise.all(c.images.map(decodableImage));
    items.push({
      questionId: c.question.id,
      split: c.question.split,
      record: c.record,
      reportText: c.reportText,
      images: images.map((image) => ({ path: image.path, view: image.view, load: () => readImageFile(image), contentType: image.file ? imageContentType(image.file) : null, problem: image.problem })),
      reviewers: assignment[i]!.map((a) => a.id),
    });
  }
  const loads = Object.fromEntries(accounts.map((a) => [a.email, assignment.filter((r) => r.includes(a)).length]));
  const queue = await insertReviewQueue(store, actor, {
    title: input.title, source: set.source, sourceSha256: set.sha256, reviewersPerItem: input.reviewersPerItem,
    assignment: { reviewers: accounts.map((a) => a.email), perItem: input.reviewersPerItem, seed, loads },
  }, items);
  const missing = items
    .map((item) => ({ questionId: item.questionId, paths: item.images.length === 0 ? ['(the record lists no image)'] : item.images.filter((i) => !i.contentType).map((i) => (i.problem && i.problem !== 'missing' ? `${i.path} (${i.problem})` : i.path)) }))
    .filter((m) => m.paths.length > 0);
  return { queue, items: items.length, loads, missing };
}
