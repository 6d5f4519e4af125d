import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createReviewQueue } from '../../review/create-queue.js';
import { createUser } from '../../store/accounts.js';
import type { Benchmark } from '../../store/benchmarks.js';
import type { Store } from '../../store/connect.js';
import { inviteByLink } from '../../store/study-readers.js';
import { setStudyState } from '../../store/studies.js';
import { storeBenchmarkImages } from '../../study/benchmark-images.js';
import { createStudyFromBenchmark } from '../../study/create-study.js';

/** A demo account with the password printed once. */
export interface DemoAccount {
  email: string;
  password: string;
}

/** What the demo board seeded for people: the host account, the study's reading links, the review queue and its other accounts. */
export interface DemoPeople {
  host: DemoAccount;
  studyId: string;
  cases: number;
  links: string[];
  /**
   * The review queue of the generated set's review sample, when there was one, with its second reviewer (who reviews
   * every question with the host, so their decisions can disagree) and a second administrator who reviews nothing
   * (who adjudicates the questions the two disagree on).
   */
  review: { queueId: string; items: number; reviewer: DemoAccount; adjudicator: DemoAccount } | null;
}

/** A demo account with a fresh random password (returned to be printed once). */
async function demoAccount(store: Store, email: string, displayName: string, admin: boolean): Promise<DemoAccount> {
  const password = randomBytes(12).toString('base64url');
  await createUser(store, { email, password, displayName, admin });
  return { email, password };
}

/**
 * Seeds the demo board with what people do on it: a host account (an administrator), a 20-case reader study drawn
 * from the demo benchmark and opened, two reading links, and — given the review sample of the demo's generated
 * set — a review queue whose every question the host and a second reviewer both review, with a second
 * administrator who reviews nothing: a dispute needs two reviewers, and its adjudication an admin who took no part
 * in it. Each account gets a fresh random password, printed once (the demo board is local). The baselines on the
 * board are the models the readers are compared with.
 */
export async function seedDemoPeople(store: Store, benchmark: Benchmark, data: string, split: string, baseUrl: string, reviewSample: string | null): Promise<DemoPeople> {
  const images = await storeBenchmarkImages(store, benchmark, data, split);
  if (images.missing.length > 0) throw new Error(`the demo's images are incomplete: ${images.missing.slice(0, 3).join(', ')}`);
  const host = await demoAccount(store, 'host@demo.local', 'Demo host', true);
  const created = await createStudyFromBenchmark(store, host.email, benchmark, { title: 'Demo reader study (20 cases)', plan: { mode: 'stratified', n: 20, task: null, seed: 0 } });
  await setStudyState(store, host.email, created.study.id, 'open');
  const links: string[] = [];
  for (const name of ['Reader 1', 'Reader 2']) links.push(`${baseUrl}/r/${(await inviteByLink(store, host.email, created.study.id, name)).token}`);
  return { host, studyId: created.study.id, cases: created.cases, links, review: reviewSample && existsSync(reviewSample) ? await seedDemoReview(store, host, reviewSample) : null };
}

/** The demo's review queue: the host and a second reviewer on every question, and an adjudicator who reviews none. */
async function seedDemoReview(store: Store, host: DemoAccount, reviewSample: string): Promise<NonNullable<DemoPeople['review']>> {
  const reviewer = await demoAccount(store, 'reviewer@demo.local', 'Demo reviewer', false);
  const adjudicator = await demoAccount(store, 'adjudicator@demo.local', 'Demo adjudicator', true);
  const created = await createReviewQueue(store, host.email, { data: reviewSample, title: 'Demo review: sample of the generated set', reviewersPerItem: 2, reviewers: [host.email, reviewer.email] });
  return { queueId: created.queue.id, items: created.items, reviewer, adjudicator };
}
