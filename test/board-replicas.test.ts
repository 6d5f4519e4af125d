import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadBenchmarkFromDataset } from '../src/board/load-benchmark.js';
import { createToken, createUser } from '../src/store/accounts.js';
import { detectLayout } from '../src/dataset/layout.js';
import { readQuestions } from '../src/dataset/read-dataset.js';
import { freshStore, lazyCluster } from './helpers/board.js';
import { tempDir } from './helpers/records.js';
import { writeSyntheticRexvqa } from './helpers/synthetic-dataset.js';
import { FAST_QUEUE, startCxrbench, stopProcess } from './helpers/processes.js';

const cluster = lazyCluster();
after(() => cluster.stop());

/** Starts `cxrbench <args>` on the database and waits for its start line. */
const start = (args: string[], databaseUrl: string, ready: string) => startCxrbench(args, ready, { ...FAST_QUEUE, DATABASE_URL: databaseUrl });
const stop = stopProcess;

const port = () => 20000 + Math.floor(Math.random() * 20000);

/** A multipart upload body, whole. */
function multipart(content: string, model: string): { boundary: string; body: Buffer } {
  const boundary = `cxr${Math.random().toString(36).slice(2)}`;
  const body = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\n${model}\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="p.jsonl"\r\nContent-Type: application/octet-stream\r\n\r\n${content}\r\n--${boundary}--\r\n`);
  return { boundary, body };
}

test('two web replicas and workers on one PostgreSQL: limits hold across replicas, a replica killed mid-request loses nothing, a worker killed mid-job is replaced', { timeout: 240_000 }, async () => {
  const root = tempDir();
  mkdirSync(join(root, 'metadata'));
  await writeSyntheticRexvqa(join(root, 'metadata', 'test_vqa_data.json'), { records: 20_000, recordBytes: 400, seed: 5 });
  const store = await freshStore('postgres', cluster.get);
  const url = store.url!;
  await loadBenchmarkFromDataset(store, 'test', root, 'test', { slug: 'big', title: 'Big', version: '1', dailyLimit: 50, totalLimit: 100, open: true });
  const user = await createUser(store, { email: 'r@lab.org', password: 'the right password', displayName: 'r', teamName: 'R' });
  const { token } = await createToken(store, user.id, 'ci');
  const lines: string[] = [];
  for await (const q of readQuestions(detectLayout(root), ['test'])) lines.push(JSON.stringify({ id: q.id, prediction: q.answer }));
  const content = lines.join('\n');
  const model = JSON.stringify({ name: 'Replicated', openWeights: true });
  const [p1, p2] = [port(), port()];
  const web = ['--workers', '0', '--login-attempts', '4', '--uploads-per-hour', '5', '--log-level', 'warn'];
  let r1 = await start(['serve', '--port', String(p1), ...web], url, 'cxrbench board on');
  let r2 = await start(['serve', '--port', String(p2), ...web], url, 'cxrbench board on');
  const workers: ChildProcess[] = [];
  const submissions = () => store.db.selectFrom('submissions').select(['id', 'state', 'attempts']).orderBy('created_at').execute();
  try {
    assert.match(r1.output(), /pg-boss queue; 0 scoring thread/);

    // 1. Limits live in the database: sign-in failures and uploads counted across both replicas.
    const login = (p: number, password: string) => fetch(`http://127.0.0.1:${p}/login`, { method: 'POST', body: new URLSearchParams({ email: 'r@lab.org', password }), redirect: 'manual' }).then((r) => r.status);
    const failures = [await login(p1, 'wrong 1'), await login(p2, 'wrong 2'), await login(p1, 'wrong 3'), await login(p2, 'wrong 4')];
    assert.deepEqual(failures, [401, 401, 401, 401]);
    assert.deepEqual([await login(p1, 'wrong 5'), await login(p2, 'the right password')], [429, 429], 'the fifth attempt is refused on either replica');
    const badUpload = (p: number) => fetch(`http://127.0.0.1:${p}/api/benchmarks/big/submissions`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: (() => { const f = new FormData(); f.append('model', model); f.append('file', new Blob(['{broken']), 'p.jsonl'); return f; })() }).then((r) => r.status);
    const uploads = [];
    for (let i = 0; i < 5; i++) uploads.push(await badUpload(i % 2 ? p2 : p1));
    assert.deepEqual(uploads, [400, 400, 400, 400, 400]);
    assert.equal(await badUpload(p2), 429, 'the sixth upload of the hour from this address is refused, whichever replica gets it');
    await store.db.deleteFrom('rate_limits').execute(); // the administrator lifts the limits for the rest of the test

    // 2. A replica killed in the middle of receiving an upload stores nothing; one killed after answering 202 loses nothing.
    const { boundary, body } = multipart(content, model);
    const cut = await new Promise<string>((resolve) => {
      const req = request({ host: '127.0.0.1', port: p1, method: 'POST', path: '/api/benchmarks/big/submissions', headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': body.length } }, () => resolve('answered'));
      req.on('error', (e) => resolve(`error ${(e as NodeJS.ErrnoException).code}`));
      req.write(body.subarray(0, body.length >> 1));
      setTimeout(() => r1.kill('SIGKILL'), 300);
    });
    assert.match(cut, /^error/);
    await new Promise((r) => r1.once('exit', r));
    assert.deepEqual(await submissions(), [], 'a request cut in half stores nothing');
    const form = (file = content) => { const f = new FormData(); f.append('model', model); f.append('file', new Blob([file]), 'p.jsonl'); return f; };
    const accepted = await fetch(`http://127.0.0.1:${p2}/api/benchmarks/big/submissions`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form() });
    assert.equal(accepted.status, 202);
    await stop(r2, 'SIGKILL'); // killed right after answering: the stored submission and its job live in the database
    workers.push(await start(['worker'], url, 'cxrbench worker'));
    for (let i = 0; i < 600 && (await submissions())[0]?.state !== 'scored'; i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal((await submissions())[0]?.state, 'scored', 'a worker scored what the dead replica had accepted');
    r1 = await start(['serve', '--port', String(p1), ...web], url, 'cxrbench board on');
    r2 = await start(['serve', '--port', String(p2), ...web], url, 'cxrbench board on');
    const board = (await (await fetch(`http://127.0.0.1:${p1}/api/benchmarks/big/leaderboard`)).json()) as { entries: { n: number; micro: number }[] };
    assert.deepEqual(board.entries.map((e) => [e.n, e.micro]), [[20_000, 1]], 'both replicas show the entry');

    // 3. A worker killed while scoring: another worker takes the job once its heartbeats stop.
    // Another file (the same one again would be refused as a duplicate).
    const second = await fetch(`http://127.0.0.1:${p1}/api/benchmarks/big/submissions`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form(`${content}\n`) });
    assert.equal(second.status, 202);
    const id = ((await second.json()) as { submission: string }).submission;
    const stateOf = async () => (await store.db.selectFrom('submissions').select(['state', 'attempts']).where('id', '=', id).executeTakeFirstOrThrow());
    for (let i = 0; i < 4000 && (await stateOf()).state !== 'scoring'; i++) await new Promise((r) => setTimeout(r, 5));
    assert.equal((await stateOf()).state, 'scoring', 'caught the worker while scoring');
    await stop(workers[0]!, 'SIGKILL');
    workers.push(await start(['worker'], url, 'cxrbench worker'));
    for (let i = 0; i < 900 && (await stateOf()).state !== 'scored'; i++) {
      const rows = ((await (await fetch(`http://127.0.0.1:${p2}/api/benchmarks/big/leaderboard`)).json()) as { entries: unknown[] }).entries;
      // The job may finish between the state check and this read; then, and only then, two entries show.
      if (rows.length !== 1) assert.deepEqual([rows.length, (await stateOf()).state], [2, 'scored'], 'no half-scored second entry is ever visible');
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.deepEqual(await stateOf(), { state: 'scored', attempts: 2 });
    const after = (await (await fetch(`http://127.0.0.1:${p2}/api/benchmarks/big/leaderboard`)).json()) as { entries: unknown[] };
    assert.equal(after.entries.length, 2);
  } finally {
    for (const w of workers) await stop(w, 'SIGKILL');
    await stop(r1);
    await stop(r2);
    await store.close();
  }
});
