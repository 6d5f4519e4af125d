/**
 * Benchmark: the leaderboard server under load (issue #5). A SQLite board with a 41,007-question hidden set and
 * 12 scored entries runs in its own process (`cxrbench serve`); autocannon in this process drives the
 * leaderboard page and the leaderboard API. Goal: ≥ 2,000 req/s with p99 < 50 ms on this 2-core machine.
 * Then a 41K-item submission is uploaded over HTTP and timed from request to ranked answer (goal < 2 s).
 * Run: `./run bench:board`.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { loadBenchmarkFromDataset } from '../src/board/load-benchmark.js';
import { scoreHere, submitPredictions } from '../src/board/submit.js';
import { detectLayout } from '../src/dataset/layout.js';
import { readQuestions } from '../src/dataset/read-dataset.js';
import { createToken, createUser } from '../src/store/accounts.js';
import { migrate, openStore } from '../src/store/connect.js';
import { writeSyntheticRexvqa } from '../test/helpers/synthetic-dataset.js';

const ITEMS = Number(process.env.BENCH_ITEMS ?? 41_007);
const ENTRIES = 12;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const bin = fileURLToPath(new URL('../bin/cxrbench.js', import.meta.url));

async function load(url: string, connections: number): Promise<{ rps: number; p99: number; p50: number; errors: number; non2xx: number }> {
  const result = await autocannon({ url, connections, duration: SECONDS, pipelining: 1 });
  return { rps: result.requests.average, p99: result.latency.p99, p50: result.latency.p50, errors: result.errors, non2xx: result.non2xx };
}

async function main(): Promise<void> {
  const dir = join(tmpdir(), `cxrbench-bench-board-${process.pid}`);
  const root = join(dir, 'data');
  mkdirSync(join(root, 'metadata'), { recursive: true });
  try {
    await writeSyntheticRexvqa(join(root, 'metadata', 'test_vqa_data.json'), { records: ITEMS, recordBytes: 600, seed: 11 });
    const questions = [];
    for await (const q of readQuestions(detectLayout(root), ['test'])) questions.push(q);
    const dataDir = join(dir, 'board');
    const store = await openStore({ sqliteFile: join(dataDir, 'board.sqlite') });
    await migrate(store);
    const benchmark = await loadBenchmarkFromDataset(store, 'bench', root, 'test', { slug: 'rexvqa', title: 'Synthetic ReXVQA-size test', version: '1', dailyLimit: 100, totalLimit: 1000, open: true });
    for (let e = 0; e < ENTRIES; e++) {
      const skill = 0.4 + (e * 0.5) / ENTRIES;
      const content = questions.map((q, i) => JSON.stringify({ id: q.id, prediction: (i * 7919 + e * 104729) % 1000 < skill * 1000 ? q.answer : 'A' })).join('\n');
      const r = await submitPredictions(store, scoreHere(store), benchmark, { fileName: 'p.jsonl', content, model: { name: `Model ${e}`, openWeights: e % 2 === 0 }, teamId: null, userId: null, kind: 'baseline' });
      if (!r.ok) throw new Error(JSON.stringify(r));
    }
    const user = await createUser(store, { email: 'bench@lab.org', password: 'bench password', displayName: 'bench', teamName: 'Bench' });
    const { token } = await createToken(store, user.id, 'bench');
    await store.close();

    const port = 30000 + Math.floor(Math.random() * 20000);
    const server = spawn(process.execPath, [bin, 'serve', '--data-dir', dataDir, '--port', String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    server.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    while (!out.includes('cxrbench board on')) await new Promise((r) => setTimeout(r, 50));
    const base = `http://127.0.0.1:${port}`;
    await load(`${base}/b/rexvqa`, 10); // warm-up
    const page = await load(`${base}/b/rexvqa`, 50);
    const api = await load(`${base}/api/benchmarks/rexvqa/leaderboard`, 50);

    // A 41K-item upload of raw model text (JSON answers), timed from request to the ranked answer.
    const content = questions.map((q, i) => JSON.stringify({ id: q.id, prediction: `{"answer": "${i % 3 ? q.answer : 'B'}", "explanation": "based on the film"}` })).join('\n');
    const form = new FormData();
    form.append('model', JSON.stringify({ name: 'Uploaded' }));
    form.append('file', new Blob([content]), 'p.jsonl');
    const started = process.hrtime.bigint();
    const res = await fetch(`${base}/api/benchmarks/rexvqa/submissions`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
    const uploadSeconds = Number(process.hrtime.bigint() - started) / 1e9;
    const body = (await res.json()) as { entry?: { rank: number } };
    server.kill('SIGTERM');

    const row = (name: string, r: Awaited<ReturnType<typeof load>>) => `| ${name} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.errors + r.non2xx} |`;
    process.stdout.write([
      `${new Date().toISOString().slice(0, 10)} · SQLite · ${ITEMS} hidden questions, ${ENTRIES + 1} entries · autocannon 50 connections × ${SECONDS} s from a second process · node ${process.version}`,
      '',
      '| route | req/s | p50 ms | p99 ms | errors |',
      '|---|---:|---:|---:|---:|',
      row('GET /b/rexvqa (leaderboard page)', page),
      row('GET /api/benchmarks/rexvqa/leaderboard', api),
      '',
      `goal ≥ 2,000 req/s and p99 < 50 ms: page ${(page.rps / 2000).toFixed(2)}× / p99 ${page.p99} ms; API ${(api.rps / 2000).toFixed(2)}× / p99 ${api.p99} ms`,
      `41K-item upload (raw JSON answers) checked, scored with 1,000 study-bootstrap resamples, ranked: ${uploadSeconds.toFixed(2)} s (goal < 2 s) · HTTP ${res.status}, rank ${body.entry?.rank}`,
      '',
    ].join('\n'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
