import type { RouteSummary } from '../../src/server/create-app.js';
import { DEMO_DATASET } from '../../src/cli/commands/demo-dataset.js';
import { createReviewQueue } from '../../src/review/create-queue.js';
import { studyReaders } from '../../src/store/study-readers.js';
import { apiUpload, predictionsJsonl, signUp, tokenFor, type Board } from './board.js';
import { reviewAccounts, signIn } from './review.js';
import { openDemoStudy, readerCookie, readerCsrf } from './study.js';

/** Who can send a request, with what a form of theirs carries: anonymous, a participant's API token, an admin's browser, a study reader's browser. */
export interface RouteCaller {
  name: 'anonymous' | 'token' | 'admin' | 'reader';
  headers: Record<string, string>;
  csrf: string;
}

/** A board with one of everything a route can name (benchmark, entry, study, reader, review queue, token), and the callers to send requests as. */
export interface RouteFixture {
  routes: readonly RouteSummary[];
  callers: RouteCaller[];
  /** A real value for each route parameter (`:slug` → the demo benchmark…), so a request reaches past the lookups. */
  realParam(url: string, name: string): string;
  /** The route's URL with `:name` parameters replaced by `value(name)`, each encoded as a client sends it. */
  fill(url: string, value: (name: string) => string): string;
}

/**
 * Fills a demo board with a scored submission, an open reader study with one reader, and a review queue the
 * admin reviews in, and returns its routes with real parameter values: what the route fuzzers walk.
 */
export async function routeFixture(board: Board): Promise<RouteFixture> {
  await reviewAccounts(board.store, ['ana']);
  const admin = await signIn(board.app, 'admin@lab.org');
  const participant = await signUp(board.app, 'fuzz@lab.org', 'Fuzzers');
  const token = await tokenFor(board.app, participant);
  // The token routes get one made to be revoked, so the fuzzers keep the token they call with.
  await tokenFor(board.app, participant, 'spare');
  const spareTokenId = (await board.store.db.selectFrom('api_tokens').select('id').where('name', '=', 'spare').executeTakeFirstOrThrow()).id;
  const upload = await apiUpload(board.app, token, { name: 'p.jsonl', content: predictionsJsonl(board.questions, (q) => q.answer) }, JSON.stringify({ name: 'Fuzzed model' }));
  const submission = (upload.json() as { submission: string }).submission;
  await board.settled(submission);
  const { created, tokens } = await openDemoStudy(board.store, 4, 1);
  const studyId = created.study.id;
  const reader = await readerCookie(board.app, tokens[0]!);
  const readerId = (await studyReaders(board.store, studyId))[0]!.id;
  const readerForm = await readerCsrf(board.app, studyId, reader);
  const { queue } = await createReviewQueue(board.store, 'test', { data: DEMO_DATASET, splits: ['test'], title: 'Fuzzed queue', reviewersPerItem: 1, reviewers: ['admin@lab.org', 'ana@lab.org'] });
  const sha = (await board.store.db.selectFrom('stored_images').select('sha256').executeTakeFirstOrThrow()).sha256;
  const callers: RouteCaller[] = [
    { name: 'anonymous', headers: {}, csrf: '' },
    { name: 'token', headers: { authorization: `Bearer ${token}` }, csrf: '' },
    { name: 'admin', headers: { cookie: admin.cookie }, csrf: admin.csrf },
    { name: 'reader', headers: { cookie: reader, 'x-csrf-token': readerForm }, csrf: readerForm },
  ];
  const realParam = (url: string, name: string): string => {
    if (name === 'id') {
      if (url.startsWith('/studies/') || url.startsWith('/read/')) return studyId;
      if (url.includes('/tokens/')) return spareTokenId;
      return submission;
    }
    const values: Record<string, string> = { slug: 'demo', action: 'close', rid: readerId, k: '1', token: tokens[0]!, sha, queue: queue.id, pos: '1', n: '1', file: 'key.jsonl', name: 'board.css' };
    return values[name] ?? name;
  };
  const fill = (url: string, value: (name: string) => string) => url.replace(/:([A-Za-z]+)/g, (_, name: string) => encodeURIComponent(value(name)));
  return { routes: board.app.routeTable, callers, realParam, fill };
}

/** The names of a route's parameters (`/read/:id/case/:k` → id, k). */
export function paramNames(url: string): string[] {
  return [...url.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]!);
}
