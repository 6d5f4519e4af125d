import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { scoreHere, submitPredictions } from '../../src/board/submit.js';
import { DEMO_DATASET } from '../../src/cli/commands/demo-dataset.js';
import { benchmarkBySlug, type Benchmark } from '../../src/store/benchmarks.js';
import type { Store } from '../../src/store/connect.js';
import { inviteByLink, readerByToken } from '../../src/store/study-readers.js';
import { setStudyState, studyItems, type StudyItem } from '../../src/store/studies.js';
import { storeBenchmarkImages } from '../../src/study/benchmark-images.js';
import { createStudyFromSet, type CreatedStudy } from '../../src/study/create-study.js';
import { readerOrder } from '../../src/study/sample.js';
import { predictionsJsonl, signUp, type Board } from './board.js';

/** Signs up through the real form and makes the account an administrator (a study host). */
export async function hostSession(app: FastifyInstance, store: Store, email = 'host@board.org'): Promise<{ cookie: string; csrf: string }> {
  const session = await signUp(app, email, `team-${email}`);
  await store.db.updateTable('users').set({ is_admin: 1 }).where('email', '=', email).execute();
  return session;
}

/** A study of `n` demo test cases (stratified, seed 7), opened, with `readers` invited by link. */
export async function openDemoStudy(store: Store, n: number, readers: number): Promise<{ created: CreatedStudy; tokens: string[] }> {
  const created = await createStudyFromSet(store, 'test', { data: DEMO_DATASET, splits: ['test'], title: 'Demo reader study', plan: { mode: 'stratified', n, task: null, seed: 7 } });
  await setStudyState(store, 'test', created.study.id, 'open');
  const tokens: string[] = [];
  for (let k = 0; k < readers; k++) tokens.push((await inviteByLink(store, 'test', created.study.id, '')).token);
  return { created, tokens };
}

/** Opens an invite link as a browser would: the reader cookie it leaves, for the study's pages. */
export async function readerCookie(app: FastifyInstance, token: string): Promise<string> {
  const res = await app.inject({ url: `/r/${token}` });
  if (res.statusCode !== 303) throw new Error(`invite link refused ${res.statusCode}: ${res.body.slice(0, 300)}`);
  return String(res.headers['set-cookie']).split(';')[0]!;
}

/** The reader's CSRF token, read off a case page. */
export async function readerCsrf(app: FastifyInstance, studyId: string, cookie: string): Promise<string> {
  const page = await app.inject({ url: `/read/${studyId}/case/1`, headers: { cookie } });
  const match = /data-csrf="([^"]+)"/.exec(page.body);
  if (!match) throw new Error(`no case page (${page.statusCode}): ${page.body.slice(0, 300)}`);
  return match[1]!;
}

/** The study's cases in the order the reader of `token` reads them (case k is element k − 1). */
export async function casesInReaderOrder(store: Store, studyId: string, token: string): Promise<StudyItem[]> {
  const found = await readerByToken(store, token);
  if ('status' in found) throw new Error(`no reader for the token: ${found.message}`);
  const items = await studyItems(store, studyId);
  return readerOrder(items.length, found.reader.order_seed).map((p) => items[p]!);
}

/** The demo benchmark with its images stored and one verified entry, Perfect-Model, that answers every question right. */
export async function benchmarkWithPerfectEntry(board: Board): Promise<Benchmark> {
  const benchmark = (await benchmarkBySlug(board.store, 'demo'))!;
  await storeBenchmarkImages(board.store, benchmark, DEMO_DATASET, 'test');
  const entry = await submitPredictions(board.store, scoreHere(board.store), benchmark, { fileName: 'p.jsonl', content: predictionsJsonl(board.questions, (q) => q.answer), model: { name: 'Perfect-Model', openWeights: true }, teamId: null, userId: null, kind: 'baseline' });
  assert.ok(entry.ok);
  return benchmark;
}

/**
 * Invites `name` by link and, through the autosave API as their page would, answers their first `cases` cases in
 * their order with `answer(item)` (confidence 3). Returns the reader's cookie and token.
 */
export async function readerWhoAnswered(app: FastifyInstance, store: Store, studyId: string, name: string, cases: number, answer: (item: StudyItem) => string): Promise<{ cookie: string; token: string }> {
  const { token } = await inviteByLink(store, 'test', studyId, name);
  const cookie = await readerCookie(app, token);
  if (cases === 0) return { cookie, token };
  const csrf = await readerCsrf(app, studyId, cookie);
  for (const item of (await casesInReaderOrder(store, studyId, token)).slice(0, cases)) {
    const res = await app.inject({ method: 'POST', url: `/read/${studyId}/api/save`, headers: { cookie, 'x-csrf-token': csrf }, payload: { position: item.position, answer: answer(item), confidence: 3, visitId: 'helper-visit', elapsedMs: 1000 } });
    assert.equal(res.statusCode, 200, res.body);
  }
  return { cookie, token };
}
