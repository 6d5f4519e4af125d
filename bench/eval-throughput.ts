/**
 * Benchmark: evaluation throughput against a local OpenAI-compatible stand-in at zero latency, in one run on
 * the same items (2 views each, ~150 KB PNGs, 2,000 items by default):
 *   (a) a bare client posting pre-encoded request bodies with node:http — the machine's limit;
 *   (b) cxrbench eval (reading, encoding each distinct image once, journaling, extracting, scoring);
 *   (c) promptfoo from npm with the same prompt and images (installed into bench/.peers on first use).
 * Then peak RSS of cxrbench on a generated 41K-item run, and image encodes versus distinct images.
 * The server runs in its own process. Run: `./run bench:eval` (env BENCH_ITEMS, BENCH_RSS_ITEMS, BENCH_REPEATS,
 * BENCH_SKIP_PROMPTFOO=1).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { LETTERS } from '../src/core/question.js';

const ITEMS = Number(process.env.BENCH_ITEMS ?? 2000);
const RSS_ITEMS = Number(process.env.BENCH_RSS_ITEMS ?? 41_007);
const CONCURRENCY = 16;
const REPEATS = Number(process.env.BENCH_REPEATS ?? 3);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const QUESTIONS_PER_STUDY = 4;
const repo = fileURLToPath(new URL('..', import.meta.url));
const bin = join(repo, 'bin', 'cxrbench.js');
const rusage = join(repo, 'bench', 'report-rusage.mjs');
const peers = join(repo, 'bench', '.peers');
const PROMPTFOO_VERSION = '0.123.1';

/** Noise compresses badly, so a side of 390 px gives PNGs of ~150 KB, like ReXGradient's quarter-resolution views. */
async function noisePng(file: string, side: number): Promise<void> {
  await sharp(randomBytes(side * side), { raw: { width: side, height: side, channels: 1 } }).toColourspace('b-w').png({ compressionLevel: 6 }).toFile(file);
}

/** A ReXVQA-layout dataset of `items` questions, four per study, two distinct views per study. */
async function makeDataset(root: string, items: number, side: number): Promise<{ images: number }> {
  mkdirSync(join(root, 'metadata'), { recursive: true });
  const studies = Math.ceil(items / QUESTIONS_PER_STUDY);
  for (let s = 0; s < studies; s++) {
    mkdirSync(join(root, 'deid_png', `s${s}`), { recursive: true });
    await noisePng(join(root, 'deid_png', `s${s}`, 'pa.png'), side);
    await noisePng(join(root, 'deid_png', `s${s}`, 'lat.png'), side);
  }
  let text = '{';
  for (let i = 0; i < items; i++) {
    const s = Math.floor(i / QUESTIONS_PER_STUDY);
    const record = {
      question: `Question ${i}: is there a pleural effusion on this study?`,
      options: ['A. Yes, small', 'B. Yes, large', 'C. No effusion', 'D. Cannot be determined'],
      correct_answer: LETTERS[i % 4], correct_answer_explanation: 'Stated in the findings section of the report.',
      task_name: 'Presence Assessment', category: 'Pleural Effusion', subcategory: 'Effusion', study_id: `s${s}`,
      ImagePath: [`../deid_png/s${s}/pa.png`, `../deid_png/s${s}/lat.png`], ImageViewPosition: ['PA', 'LATERAL'],
    };
    text += `${i ? ',' : ''}\n"q${i}": ${JSON.stringify(record)}`;
  }
  writeFileSync(join(root, 'metadata', 'test_vqa_data.json'), `${text}\n}\n`);
  return { images: studies * 2 };
}

interface FakeServerProcess {
  url: string;
  child: ChildProcess;
  /** Stops the server and returns how many requests and images it received. */
  stop(): Promise<{ requests: number; images: number }>;
}

const SERVER_SCRIPT = `
import { startFakeOpenAI } from ${JSON.stringify(join(repo, 'test/helpers/fake-openai-server.ts'))};
const s = await startFakeOpenAI();
process.stdout.write(s.url + '\\n');
process.on('SIGTERM', async () => {
  process.stdout.write(JSON.stringify({ requests: s.requests.length, images: s.requests.reduce((n, r) => n + r.images.length, 0) }) + '\\n');
  s.requests.length = 0;
  await s.close();
  process.exit(0);
});
setInterval(() => { for (const r of s.requests) { r.images = r.images.map(() => ''); r.body = {}; } }, 1000);
`;

async function startServer(dir: string): Promise<FakeServerProcess> {
  const script = join(dir, 'server.mts');
  writeFileSync(script, SERVER_SCRIPT);
  const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'inherit'], cwd: repo });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  while (!out.includes('\n')) await new Promise((r) => setTimeout(r, 50));
  const url = out.split('\n')[0]!;
  return {
    url,
    child,
    async stop() {
      const before = out.length;
      child.kill('SIGTERM');
      await new Promise((r) => child.on('exit', r));
      return JSON.parse(out.slice(before).trim().split('\n')[0]!) as { requests: number; images: number };
    },
  };
}

interface Timed {
  seconds: number;
  maxRssMb: number | null;
  code: number | null;
  stdout: string;
}

function timed(command: string, args: string[], env: NodeJS.ProcessEnv = {}, cwd = repo): Promise<Timed> {
  return new Promise((resolve) => {
    const start = process.hrtime.bigint();
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-20000)));
    child.on('close', (code) => {
      const kb = /BENCH_MAX_RSS_KB=(\d+)/.exec(stderr)?.[1];
      if (code !== 0) process.stderr.write(`${command} ${args.slice(0, 3).join(' ')} exited ${code}: ${stderr.slice(-1500)}\n`);
      resolve({ seconds: Number(process.hrtime.bigint() - start) / 1e9, maxRssMb: kb ? Number(kb) / 1024 : null, code, stdout });
    });
  });
}

const bareAgent = new http.Agent({ keepAlive: true });

/** node:http with a keep-alive pool: the cheapest way Node has to post a body (fetch costs ~3× the CPU). */
function barePost(url: string, body: Buffer): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: 'POST', agent: bareAgent, headers: { 'content-type': 'application/json', authorization: 'Bearer none', 'content-length': body.length } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (c: Buffer) => chunks.push(c));
      response.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}

/**
 * (a) The limit: request bodies built and images encoded beforehand, then only HTTP. With `includeImageReads`,
 * (a′) the clock also covers reading and base64-encoding each distinct image once — the work any evaluator must do.
 */
async function bareClient(root: string, url: string, includeImageReads = false): Promise<number> {
  const readStart = process.hrtime.bigint();
  const bodies: Buffer[] = []; // bytes ready for the socket: no encoding left inside the clock
  const encoded = new Map<string, string>();
  for (let i = 0; i < ITEMS; i++) {
    const s = Math.floor(i / QUESTIONS_PER_STUDY);
    const urls = ['pa', 'lat'].map((v) => {
      const file = join(root, 'deid_png', `s${s}`, `${v}.png`);
      if (!encoded.has(file)) encoded.set(file, `data:image/png;base64,${readFileSync(file).toString('base64')}`);
      return encoded.get(file)!;
    });
    bodies.push(Buffer.from(JSON.stringify({
      model: 'fake-model', temperature: 0, max_tokens: 512,
      messages: [{ role: 'system', content: 'You are an expert radiologist.' }, { role: 'user', content: [...urls.map((u) => ({ type: 'image_url', image_url: { url: u } })), { type: 'text', text: `Question: Question ${i}: is there a pleural effusion on this study?\nOptions:\nA. Yes, small\nB. Yes, large\nC. No effusion\nD. Cannot be determined` }] }],
    })));
  }
  const start = includeImageReads ? readStart : process.hrtime.bigint();
  let next = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < bodies.length) await barePost(`${url}/chat/completions`, bodies[next++]!);
  }));
  return Number(process.hrtime.bigint() - start) / 1e9;
}

/** (c) promptfoo with the same prompt and images (file:// variables, loaded as base64 by promptfoo). */
async function promptfoo(root: string, url: string, dir: string): Promise<Timed | null> {
  const pf = join(peers, 'node_modules', '.bin', 'promptfoo');
  if (!existsSync(pf)) {
    process.stderr.write(`installing promptfoo@${PROMPTFOO_VERSION} into bench/.peers (large; once)…\n`);
    mkdirSync(peers, { recursive: true });
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', '--prefix', peers, `promptfoo@${PROMPTFOO_VERSION}`], { stdio: 'inherit' });
  }
  writeFileSync(join(dir, 'prompt.json'), JSON.stringify([
    { role: 'system', content: 'You are an expert radiologist.' },
    { role: 'user', content: [
      { type: 'image_url', image_url: { url: 'data:image/png;base64,{{image1}}' } },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,{{image2}}' } },
      { type: 'text', text: 'Question: {{question}}\nOptions:\n{{options}}' },
    ] },
  ]));
  const tests = Array.from({ length: ITEMS }, (_, i) => {
    const s = Math.floor(i / QUESTIONS_PER_STUDY);
    return { vars: { image1: `file://${join(root, 'deid_png', `s${s}`, 'pa.png')}`, image2: `file://${join(root, 'deid_png', `s${s}`, 'lat.png')}`, question: `Question ${i}: is there a pleural effusion on this study?`, options: 'A. Yes, small\nB. Yes, large\nC. No effusion\nD. Cannot be determined' } };
  });
  writeFileSync(join(dir, 'tests.json'), JSON.stringify(tests));
  writeFileSync(join(dir, 'promptfooconfig.yaml'), [
    `prompts: [file://${join(dir, 'prompt.json')}]`,
    'providers:',
    '  - id: openai:chat:fake-model',
    `    config: {apiBaseUrl: "${url}", apiKey: "none", temperature: 0, max_tokens: 512}`,
    `tests: file://${join(dir, 'tests.json')}`,
  ].join('\n'));
  const env = { PROMPTFOO_DISABLE_TELEMETRY: '1', PROMPTFOO_DISABLE_UPDATE: '1', PROMPTFOO_CONFIG_DIR: join(dir, 'pf-config'), PROMPTFOO_CACHE_ENABLED: 'false' };
  return timed(pf, ['eval', '-c', join(dir, 'promptfooconfig.yaml'), '-j', String(CONCURRENCY), '--no-cache', '--no-table', '--no-progress-bar'], env, dir);
}

async function main(): Promise<void> {
  const dir = join(tmpdir(), `cxrbench-bench-eval-${process.pid}`);
  const root = join(dir, 'data');
  mkdirSync(root, { recursive: true });
  try {
    process.stderr.write(`generating ${ITEMS} items with ~150 KB PNG views…\n`);
    const { images } = await makeDataset(root, ITEMS, 390);
    const rows: string[] = [];
    const line = (name: string, seconds: number, extra = '') => rows.push(`| ${name} | ${seconds.toFixed(2)} | ${(ITEMS / seconds).toFixed(0)} | ${extra} |`);

    // (a) and (b) alternate, REPEATS times each, and the medians are compared: on this shared 2-core machine one
    // pair of runs moves by ±15% from one minute to the next.
    const bareTimes: number[] = [];
    const cxTimes: number[] = [];
    const askTimes: number[] = [];
    let cx: Timed | null = null;
    let seen = { requests: 0, images: 0 };
    let server: FakeServerProcess;
    for (let r = 0; r < REPEATS; r++) {
      server = await startServer(dir);
      bareTimes.push(await bareClient(root, server.url));
      await server.stop();
      server = await startServer(dir);
      rmSync(join(dir, 'run'), { recursive: true, force: true });
      cx = await timed(process.execPath, [bin, 'eval', '--data', root, '--split', 'test', '--model', 'openai:fake-model', '--endpoint', server.url, '--concurrency', String(CONCURRENCY), '--quiet', '--out', join(dir, 'run')], { NODE_OPTIONS: `--import=${rusage}` });
      seen = await server.stop();
      cxTimes.push(cx.seconds);
      askTimes.push((JSON.parse(readFileSync(join(dir, 'run', 'summary.json'), 'utf8')) as { askSeconds: number }).askSeconds);
    }
    const bare = median(bareTimes);
    const cxSeconds = median(cxTimes);
    const askSeconds = median(askTimes);
    line('(a) bare client, pre-encoded bodies (limit)', bare, `median of ${bareTimes.map((t) => t.toFixed(2)).join(', ')}`);
    server = await startServer(dir);
    const bareWithReads = await bareClient(root, server.url, true);
    await server.stop();
    line("(a′) bare client, reading and encoding each image once inside the clock", bareWithReads);
    const summary = JSON.parse(readFileSync(join(dir, 'run', 'summary.json'), 'utf8')) as { imageEncodes: number; overall: { n: number } };
    line("(b′) cxrbench eval, request phase (first question sent → last answer, as the runner timed it; images read and encoded inside)", askSeconds, `median of ${askTimes.map((t) => t.toFixed(2)).join(', ')}`);
    line('(b) cxrbench eval (whole command, startup included)', cxSeconds, `median of ${cxTimes.map((t) => t.toFixed(2)).join(', ')}; peak RSS ${cx!.maxRssMb?.toFixed(0)} MB; ${summary.overall.n} outcomes; ${seen.images} images sent; encodes ${summary.imageEncodes} = distinct ${images}: ${summary.imageEncodes === images}`);

    let pf: Timed | null = null;
    if (process.env.BENCH_SKIP_PROMPTFOO !== '1') {
      server = await startServer(dir);
      pf = await promptfoo(root, server.url, dir);
      const pfSeen = await server.stop();
      if (pf) line(`(c) promptfoo ${PROMPTFOO_VERSION} eval`, pf.seconds, `exit ${pf.code}; ${pfSeen.requests} requests, ${pfSeen.images} images received`);
    }

    process.stderr.write(`generating ${RSS_ITEMS} items (small images) for the memory run…\n`);
    const big = join(dir, 'big');
    const bigImages = (await makeDataset(big, RSS_ITEMS, 48)).images;
    server = await startServer(dir);
    const rss = await timed(process.execPath, [bin, 'eval', '--data', big, '--split', 'test', '--model', 'openai:fake-model', '--endpoint', server.url, '--concurrency', String(CONCURRENCY), '--quiet', '--out', join(dir, 'big-run')], { NODE_OPTIONS: `--import=${rusage}` });
    await server.stop();
    const bigSummary = JSON.parse(readFileSync(join(dir, 'big-run', 'summary.json'), 'utf8')) as { imageEncodes: number; overall: { n: number } };

    const node = execFileSync(process.execPath, ['--version']).toString().trim();
    const out = [
      `${new Date().toISOString().slice(0, 10)} · ${ITEMS} items, 2 views each (~150 KB PNG), concurrency ${CONCURRENCY}, fake server in its own process at zero latency · node ${node}`,
      '',
      '| run | seconds | items/s | notes |',
      '|---|---:|---:|---|',
      ...rows,
      '',
      `cxrbench / bare limit: request phase ${(bare / askSeconds).toFixed(2)}, whole command ${(bare / cxSeconds).toFixed(2)} (goal ≥ 0.80); whole command / bare with image reads: ${(bareWithReads / cxSeconds).toFixed(2)}`,
      pf && pf.code === 0 ? `cxrbench / promptfoo: ${(pf.seconds / cxSeconds).toFixed(1)}× faster (goal ≥ 10×)` : 'promptfoo: not measured',
      `41K run: ${bigSummary.overall.n} outcomes in ${rss.seconds.toFixed(1)} s, peak RSS ${rss.maxRssMb?.toFixed(0)} MB (goal ≤ 300 MB); image encodes ${bigSummary.imageEncodes} = distinct ${bigImages}: ${bigSummary.imageEncodes === bigImages}`,
    ];
    process.stdout.write(out.join('\n') + '\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
