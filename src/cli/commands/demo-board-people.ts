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

/** What the demo board seeded for people: the host account and the study's reading links. */
export interface DemoPeople {
  host: { email: string; password: string };
  studyId: string;
  cases: number;
  links: string[];
  /** The review queue of the generated set's review sample, when there was one. */
  review: { queueId: string; items: number } | null;
}

/**
 * Seeds the demo board with what people do on it: a host account (an administrator, with a fresh random
 * password printed once — the demo board is local), a 20-case reader study drawn from the demo benchmark and
 * opened, two reading links, and — given the review sample of the demo's generated set — a review queue the
 * host is the reviewer of. The baselines on the board are the models the readers are compared with.
 */
export async function seedDemoPeople(store: Store, benchmark: Benchmark, data: string, split: string, baseUrl: string, reviewSample: string | null): Promise<DemoPeople> {
  const images = await storeBenchmarkImages(store, benchmark, data, split);
  if (images.missing.length > 0) throw new Error(`the demo's images are incomplete: ${images.missing.slice(0, 3).join(', ')}`);
  const host = { email: 'host@demo.local', password: randomBytes(12).toString('base64url') };
  await createUser(store, { email: host.email, password: host.password, displayName: 'Demo host', admin: true });
  const created = await createStudyFromBenchmark(store, host.email, benchmark, { title: 'Demo reader study (20 cases)', plan: { mode: 'stratified', n: 20, task: null, seed: 0 } });
  await setStudyState(store, host.email, created.study.id, 'open');
  const links: string[] = [];
  for (const name of ['Reader 1', 'Reader 2']) links.push(`${baseUrl}/r/${(await inviteByLink(store, host.email, created.study.id, name)).token}`);
  const review = reviewSample && existsSync(reviewSample)
    ? await createReviewQueue(store, host.email, { data: reviewSample, title: 'Demo review: sample of the generated set', reviewersPerItem: 1, reviewers: [host.email] })
    : null;
  return { host, studyId: created.study.id, cases: created.cases, links, review: review ? { queueId: review.queue.id, items: review.items } : null };
}
