/**
 * Benchmark: `cxrbench data validate` and `data stats` on a generated full-size ReXVQA train file
 * (572,419 records of ~2 KB with report text, as in the real distribution), against the issue's limits
 * (≤ 30 s, ≤ 500 MB each on the 2-core machine) and against a named peer: Python's `json.load` of the same
 * file followed by a task count — what most ReXVQA users write first. Then the full-size streaming check: both
 * commands read a 572,419-record file with the JavaScript heap capped at 160 MB and count every record exactly
 * (the test suite runs the same check on a quarter of the file under 64 MB). Run: `./run bench`.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkStreamingUnderHeapCap } from '../test/helpers/streaming-check.js';
import { writeSyntheticRexvqa } from '../test/helpers/synthetic-dataset.js';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 572_419);
const LIMIT_SECONDS = 30;
const LIMIT_MB = 500;
/** The heap cap of the full-size streaming check (the file is ~590 MB). */
const STREAMING_HEAP_CAP_MB = 160;
const bin = fileURLToPath(new URL('../bin/cxrbench.js', import.meta.url));
const rusage = fileURLToPath(new URL('./report-rusage.mjs', import.meta.url));

interface Measured {
  seconds: number;
  maxRssMb: number;
  code: number | null;
  stderrTail: string;
}

function measure(command: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Measured> {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    child.on('close', (code) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const kb = Number(/BENCH_MAX_RSS_KB=(\d+)/.exec(stderr)?.[1] ?? NaN);
      resolve({ seconds, maxRssMb: kb / 1024, code, stderrTail: stderr.replace(/\nBENCH_MAX_RSS_KB=\d+\n/, '').slice(-300) });
    });
  });
}

const PYTHON_PEER = `
import json, resource, sys, collections
with open(sys.argv[1]) as f:
    data = json.load(f)
tasks = collections.Counter(r.get('task_name') for r in data.values())
sys.stderr.write("\\nBENCH_MAX_RSS_KB=%d\\n" % resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
`;

async function main(): Promise<void> {
  const root = join(tmpdir(), `cxrbench-bench-${process.pid}`);
  mkdirSync(join(root, 'metadata'), { recursive: true });
  try {
    const file = join(root, 'metadata', 'train_vqa_data.json');
    const written = await writeSyntheticRexvqa(file, { records: RECORDS, recordBytes: 2000, seed: 1 });
    const env = { NODE_OPTIONS: `--import=${rusage}` };
    const validate = await measure(process.execPath, [bin, 'data', 'validate', root, '--format', 'json'], env);
    const stats = await measure(process.execPath, [bin, 'data', 'stats', root, '--format', 'json'], env);
    const python = await measure('python3', ['-c', PYTHON_PEER, file]);
    const node = execFileSync(process.execPath, ['--version']).toString().trim();
    const row = (name: string, m: Measured) =>
      `| ${name} | ${m.code === 0 ? m.seconds.toFixed(1) : `failed (exit ${m.code})`} | ${m.maxRssMb.toFixed(0)} |`;
    const lines = [
      `${new Date().toISOString().slice(0, 10)} · ${RECORDS.toLocaleString('en')} records, ${(written.bytes / 1e9).toFixed(2)} GB · node ${node} · ${process.platform}`,
      '',
      '| run | wall s | peak RSS MB |',
      '|---|---:|---:|',
      row('cxrbench data validate', validate),
      row('cxrbench data stats', stats),
      row('peer: python3 json.load + task count', python),
      '',
      `validate: ${(validate.seconds / LIMIT_SECONDS).toFixed(2)} × the ${LIMIT_SECONDS} s limit, ${(validate.maxRssMb / LIMIT_MB).toFixed(2)} × the ${LIMIT_MB} MB limit`,
      `stats:    ${(stats.seconds / LIMIT_SECONDS).toFixed(2)} × the ${LIMIT_SECONDS} s limit, ${(stats.maxRssMb / LIMIT_MB).toFixed(2)} × the ${LIMIT_MB} MB limit`,
      `vs python json.load: validate takes ${(validate.seconds / python.seconds).toFixed(2)}× its time and ${(validate.maxRssMb / python.maxRssMb).toFixed(2)}× its memory`,
    ];
    for (const m of [validate, stats]) if (m.code !== 0) lines.push(`cxrbench failed: ${m.stderrTail}`);
    process.stdout.write(lines.join('\n') + '\n');
    rmSync(file);
    const capped = await checkStreamingUnderHeapCap(RECORDS, STREAMING_HEAP_CAP_MB);
    process.stdout.write(`streaming: stats and validate read ${capped.records.toLocaleString('en')} records (${(capped.fileBytes / 1e6).toFixed(0)} MB) with the heap capped at ${capped.heapCapMb} MB, every count exact\n`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
