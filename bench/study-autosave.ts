/**
 * Benchmark: a reader study under load (issue #13). 50 readers, each autosaving an answer every second for a
 * minute, against `cxrbench serve` in its own process — on SQLite, then on PostgreSQL (a private cluster).
 * Limit: p99 < 100 ms per save, and no answer lost: afterwards the database is read and every reader's last
 * answer to every case must be the last one that reader sent, and the event log must hold every accepted save.
 * Run: `./run bench:study` (BENCH_READERS, BENCH_SECONDS, BENCH_DIALECTS=sqlite,postgres to change it).
 */
import { createServer } from 'node:net';
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { DEMO_DATASET } from '../src/cli/commands/demo-dataset.js';
import { migrate, openStore, type Store } from '../src/store/connect.js';
import { inviteByLink } from '../src/store/study-readers.js';
import { setStudyState } from '../src/store/studies.js';
import { createStudyFromSet } from '../src/study/create-study.js';
import { startPostgres } from '../test/helpers/postgres.js';
import { startCxrbench, stopProcess } from '../test/helpers/processes.js';

const READERS = Number(process.env.BENCH_READERS ?? 50);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const DIALECTS = (process.env.BENCH_DIALECTS ?? 'sqlite,postgres').split(',');

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

async function run(dialect: string): Promise<void> {
  const dir = join(tmpdir(), `cxrbench-bench-study-${process.pid}-${dialect}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const cluster = dialect === 'postgres' ? await startPostgres() : null;
  const env = cluster ? { DATABASE_URL: cluster.url } : { DATABASE_URL: undefined };
  let store: Store = await openStore({ databaseUrl: cluster?.url, sqliteFile: join(dir, 'board.sqlite') });
  await migrate(store);
  const created = await createStudyFromSet(store, 'bench', { data: DEMO_DATASET, splits: ['test'], title: 'Load', plan: { mode: 'random', n: 1000, task: null, seed: 1 } });
  await setStudyState(store, 'bench', created.study.id, 'open');
  const tokens: string[] = [];
  for (let r = 0; r < READERS; r++) tokens.push((await inviteByLink(store, 'bench', created.study.id, '')).token);
  await store.close();
  const port = await freePort();
  const server = await startCxrbench(['serve', '--migrate', '--data-dir', dir, '--port', String(port), '--workers', '0', '--log-level', 'silent'], 'cxrbench board on', env, 30_000);
  const base = `http://127.0.0.1:${port}`;
  const studyId = created.study.id;
  try {
    // Each reader opens the link (its cookie) and the first case (its CSRF token), as a browser does.
    const readers = await Promise.all(tokens.map(async (token) => {
      const link = await fetch(`${base}/r/${token}`, { redirect: 'manual' });
      const cookie = (link.headers.get('set-cookie') ?? '').split(';')[0]!;
      const page = await (await fetch(`${base}/read/${studyId}/case/1`, { headers: { cookie } })).text();
      return { cookie, csrf: /data-csrf="([^"]+)"/.exec(page)![1]!, position: Number(/data-position="(\d+)"/.exec(page)![1]!) };
    }));
    const latencies: number[] = [];
    const lastSent = new Map<string, string>();
    let accepted = 0;
    let failed = 0;
    const until = performance.now() + SECONDS * 1000;
    await Promise.all(readers.map(async (reader, r) => {
      await sleep((1000 * r) / READERS); // readers do not all save on the same millisecond
      for (let tick = 0; performance.now() < until; tick++) {
        const started = performance.now();
        const answer = 'ABCD'[(tick + r) % 4]!;
        const response = await fetch(`${base}/read/${studyId}/api/save`, {
          method: 'POST', headers: { cookie: reader.cookie, 'x-csrf-token': reader.csrf, 'content-type': 'application/json' },
          body: JSON.stringify({ position: reader.position, answer, confidence: 1 + (tick % 5), visitId: `bench-${r}-visit`, elapsedMs: tick * 1000 }),
        });
        await response.arrayBuffer();
        latencies.push(performance.now() - started);
        if (response.ok) {
          accepted++;
          lastSent.set(`${r}`, answer);
        } else failed++;
        await sleep(Math.max(0, 1000 - (performance.now() - started)));
      }
    }));
    await stopProcess(server);
    store = await openStore({ databaseUrl: cluster?.url, sqliteFile: join(dir, 'board.sqlite') });
    const stored = await store.db.selectFrom('study_answers').innerJoin('study_readers', 'study_readers.id', 'study_answers.reader_id').select(['study_readers.token_hash', 'study_answers.answer']).where('study_answers.study_id', '=', studyId).execute();
    const { secretHash } = await import('../src/store/credentials.js');
    const byHash = new Map(stored.map((s) => [s.token_hash, s.answer]));
    const lost = tokens.filter((t, r) => lastSent.has(`${r}`) && byHash.get(secretHash(t)) !== lastSent.get(`${r}`)).length;
    const events = Number((await sql<{ n: number }>`select count(*) as n from study_answer_events`.execute(store.db)).rows[0]!.n);
    await store.close();
    latencies.sort((a, b) => a - b);
    const p50 = quantile(latencies, 0.5);
    const p99 = quantile(latencies, 0.99);
    process.stdout.write(`${dialect}: ${READERS} readers × ${SECONDS} s — ${latencies.length} saves (${(latencies.length / SECONDS).toFixed(1)}/s), accepted ${accepted}, failed ${failed}; ` +
      `latency p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${latencies.at(-1)!.toFixed(1)} ms (limit p99 < 100 ms: ${(p99 / 100).toFixed(2)} of it); ` +
      `events stored ${events} (accepted ${accepted}: ${events === accepted ? 'all kept' : 'MISMATCH'}); last answers lost ${lost} of ${READERS}\n`);
    if (p99 >= 100 || lost > 0 || events !== accepted || failed > 0) process.exitCode = 1;
  } finally {
    await stopProcess(server).catch(() => undefined);
    cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const dialect of DIALECTS) await run(dialect);
