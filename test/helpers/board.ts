import { join } from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { loadBenchmarkFromDataset } from '../../src/board/load-benchmark.js';
import { detectLayout } from '../../src/dataset/layout.js';
import { readQuestions } from '../../src/dataset/read-dataset.js';
import type { Question } from '../../src/core/question.js';
import { createApp } from '../../src/server/create-app.js';
import { scoringHandler } from '../../src/board/scoring-job.js';
import { openJobQueue } from '../../src/jobs/open-queue.js';
import { SCORING_QUEUE, type JobQueue } from '../../src/jobs/queue.js';
import { submissionStatus } from '../../src/store/submissions.js';
import type { BoardOptions } from '../../src/server/context.js';
import { migrate, openStore, type Store } from '../../src/store/connect.js';
import { watchChanges } from '../../src/store/change-watch.js';
import { DEMO_DATASET } from '../../src/cli/commands/demo-dataset.js';
import { startPostgres, type PostgresCluster } from './postgres.js';
import { tempDir } from './records.js';

export const DIALECTS = ['sqlite', 'postgres'] as const;
export type Dialect = (typeof DIALECTS)[number];

/**
 * A fresh, migrated store of the given kind (a new database per call; PostgreSQL from a shared private cluster),
 * with the URL a server process would use for it (PostgreSQL) — SQLite's file is its `location`.
 */
export async function freshStore(dialect: Dialect, cluster: () => Promise<PostgresCluster>, options: { migrated?: boolean } = {}): Promise<Store & { url?: string }> {
  const migrated = options.migrated ?? true;
  if (dialect === 'sqlite') {
    const store = await openStore({ sqliteFile: join(tempDir(), 'board.sqlite') });
    if (migrated) await migrate(store);
    return store;
  }
  const pg = await cluster();
  const name = `board_${Math.random().toString(36).slice(2, 10)}`;
  const admin = await openStore({ databaseUrl: pg.url, sqliteFile: '' });
  await sql`create database ${sql.raw(name)}`.execute(admin.db);
  await admin.close();
  const url = pg.url.replace(/\/postgres$/, `/${name}`);
  const store = await openStore({ databaseUrl: url, sqliteFile: '' });
  if (!migrated) return Object.assign(store, { url });
  await migrate(store);
  // As `cxrbench db migrate` does: the scoring queue's own schema too.
  await (await openJobQueue(store, { workerName: 'migrate', install: true })).stop();
  return Object.assign(store, { url });
}

/** One private PostgreSQL cluster per test file, started on first use. */
export function lazyCluster(): { get: () => Promise<PostgresCluster>; stop: () => void } {
  let started: Promise<PostgresCluster> | null = null;
  return {
    get: () => (started ??= startPostgres()),
    stop: () => {
      if (started) void started.then((c) => c.stop());
    },
  };
}

/** The demo test split's questions (gold answers included: the test knows them, the server must not tell). */
export async function demoTestQuestions(): Promise<Question[]> {
  const out: Question[] = [];
  for await (const q of readQuestions(detectLayout(DEMO_DATASET), ['test'])) out.push(q);
  return out;
}

export interface Board {
  app: FastifyInstance;
  store: Store;
  queue: JobQueue;
  questions: Question[];
  /** Waits until a submission is scored or failed (a scoring worker runs in the test process); returns its state. */
  settled(submissionId: string, timeoutMs?: number): Promise<{ state: string; error: string | null }>;
  close(): Promise<void>;
}

/** Queue timings short enough for tests (a dead worker's job is noticed within seconds). */
export const TEST_QUEUE_TIMING = { superviseIntervalSeconds: 1, pollingIntervalSeconds: 0.5 };

/** The scoring queue of a test store, installed if needed. */
export function testQueue(store: Store, workerName = `test-${process.pid}`): Promise<JobQueue> {
  return openJobQueue(store, { workerName, install: true, timing: TEST_QUEUE_TIMING });
}

/** Waits until a submission leaves `queued`/`scoring`. */
export async function settled(store: Store, submissionId: string, timeoutMs = 30_000): Promise<{ state: string; error: string | null }> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const s = await submissionStatus(store, submissionId);
    if (s && s.state !== 'queued' && s.state !== 'scoring') return { state: s.state, error: s.error };
    if (Date.now() > until) throw new Error(`submission ${submissionId} still ${s?.state ?? 'missing'} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * A board app over a fresh store with the demo test split loaded as benchmark "demo", and a scoring worker in
 * this process working its queue (as a `serve` thread would).
 */
export async function demoBoard(dialect: Dialect, cluster: () => Promise<PostgresCluster>, options: Partial<BoardOptions> = {}, limits = { dailyLimit: 5, totalLimit: 50 }): Promise<Board> {
  const store = await freshStore(dialect, cluster);
  await loadBenchmarkFromDataset(store, 'test', DEMO_DATASET, 'test', { slug: 'demo', title: 'Demo', version: '1', ...limits, open: true });
  const score = { resamples: 200, seed: 0, minPublicCell: 2, strict: false };
  const queue = await testQueue(store);
  await queue.work(SCORING_QUEUE, scoringHandler(store, 'test-worker', score), { pollMs: 50 });
  // As `serve` does: pages kept until the database changes (on PostgreSQL, heard by LISTEN).
  const changes = await watchChanges(store);
  const app = createApp({ store, queue, changes }, { score, log: { level: 'silent' }, ...options });
  await app.ready();
  return {
    app, store, queue, questions: await demoTestQuestions(), settled: (id, timeoutMs) => settled(store, id, timeoutMs),
    close: async () => {
      await app.close();
      await changes.close();
      await queue.stop(5000);
      await store.close();
    },
  };
}

/** Session cookie + CSRF token of a browser signed up through the real form. */
export async function signUp(app: FastifyInstance, email: string, team: string, password = 'correct horse battery'): Promise<{ cookie: string; csrf: string }> {
  const res = await app.inject({ method: 'POST', url: '/signup', payload: { email, password, displayName: email.split('@')[0], team } });
  if (res.statusCode !== 303) throw new Error(`signup failed ${res.statusCode}: ${res.body.slice(0, 300)}`);
  const cookie = String(res.headers['set-cookie']).split(';')[0]!;
  const account = await app.inject({ method: 'GET', url: '/account', headers: { cookie } });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(account.body)![1]!;
  return { cookie, csrf };
}

/** Creates an API token through the account page's form, follows its redirect and reads the token off the page (shown once). */
export async function tokenFor(app: FastifyInstance, session: { cookie: string; csrf: string }, name = 'script'): Promise<string> {
  return (await shownOnce(app, session, '/account/tokens', { name }, 'new-token')).secret;
}

/**
 * Sends one of the account page's forms that make a secret (a token, an invite code), follows its 303 to the
 * account page as a browser does, and returns that page and the secret it shows (`<code id=…>`).
 */
export async function shownOnce(app: FastifyInstance, session: { cookie: string; csrf: string }, url: string, fields: Record<string, string>, id: string, headers: Record<string, string> = {}): Promise<{ page: string; secret: string }> {
  const posted = await app.inject({ method: 'POST', url, headers: { cookie: session.cookie, ...headers }, payload: { _csrf: session.csrf, ...fields } });
  if (posted.statusCode !== 303 || posted.headers.location !== '/account') throw new Error(`${url} answered ${posted.statusCode} ${String(posted.headers.location)}: ${posted.body.slice(0, 300)}`);
  const page = (await app.inject({ url: '/account', headers: { cookie: session.cookie, ...headers } })).body;
  const secret = new RegExp(`<code id="${id}">([^<]+)</code>`).exec(page)?.[1];
  if (!secret) throw new Error(`the account page shows no #${id} after ${url}`);
  return { page, secret };
}

/** A multipart body for an upload. */
/** The k-th of many different files that all answer every question right (runs differ in what they write around the letter). */
export function distinctPredictions(questions: Question[], k: number): string {
  return predictionsJsonl(questions, (q) => `${q.answer} (run ${k})`);
}

export function uploadForm(file: { name: string; content: string | Buffer }, fields: Record<string, string>): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('file', new Blob([typeof file.content === 'string' ? file.content : new Uint8Array(file.content)]), file.name);
  return form;
}

/** A JSONL predictions file answering each question with `answer(question)`. */
export function predictionsJsonl(questions: Question[], answer: (q: Question, i: number) => string): string {
  return questions.map((q, i) => JSON.stringify({ id: q.id, prediction: answer(q, i) })).join('\n') + '\n';
}

/** POSTs an upload to the demo benchmark's submission API with a token. */
export function apiUpload(app: FastifyInstance, token: string, file: { name: string; content: string }, model: string): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'POST', url: '/api/benchmarks/demo/submissions', headers: { authorization: `Bearer ${token}` }, payload: uploadForm(file, { model }) });
}
