/**
 * The test runner behind `./run test` (and so CI): node:test over every `*.test.ts`, several files at once, with
 * one private PostgreSQL cluster for the whole run (each test file makes its own databases in it), the longest
 * files started first, and the slowest files printed at the end so the next slowdown is seen.
 *
 * Why not plain `node --test`: on a 2-core machine it runs one file at a time (availableParallelism − 1), and
 * most files wait on child processes, Chromium or PostgreSQL rather than compute; every PostgreSQL test file also
 * started (initdb + pg_ctl) and stopped a cluster of its own.
 *
 * Usage: node --import tsx scripts/run-tests.ts [file or folder ...] [--concurrency n]
 */
import { existsSync, globSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';
import { fileURLToPath } from 'node:url';
import { startPostgres, SHARED_CLUSTER_ENV } from '../test/helpers/postgres.js';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
/** Where the last run's per-file times are kept (git-ignored), to start the longest files first next time. */
const DURATIONS_FILE = join(root, 'test-artifacts', 'test-durations.json');
/** Per-file times of a full run on the 2-core CI machine, used when no run has been kept here yet. */
const COMMITTED_DURATIONS = join(root, 'test', 'durations.json');
const SLOWEST_SHOWN = 12;
/** A test file (and any test without a timeout of its own) running longer than this fails, so one hung file cannot hang CI. */
const FILE_TIMEOUT_MS = 10 * 60_000;
/** Test files that use PostgreSQL say so through these helpers; a run of other files starts no cluster. */
const USES_POSTGRES = /\blazyCluster\(|\bstartPostgres\(/;

interface Args {
  files: string[];
  concurrency: number;
}

function parseArgs(argv: string[]): Args {
  let concurrency = Number(process.env.CXRBENCH_TEST_CONCURRENCY) || Math.max(3, availableParallelism() + 1);
  const paths: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--concurrency') concurrency = Number(argv[++i]);
    else if (a.startsWith('--concurrency=')) concurrency = Number(a.slice('--concurrency='.length));
    else paths.push(a);
  }
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`--concurrency must be a whole number ≥ 1 (got ${concurrency})`);
  const patterns = paths.length === 0 ? ['src/**/*.test.ts', 'test/**/*.test.ts'] : paths.map((p) => (p.endsWith('.ts') ? p : `${p.replace(/\/$/, '')}/**/*.test.ts`));
  const files = [...new Set(patterns.flatMap((p) => globSync(p, { cwd: root })))].map((f) => relative(root, resolve(root, f)));
  if (files.length === 0) throw new Error(`no test files match ${patterns.join(' ')}`);
  return { files, concurrency };
}

function readDurations(): Record<string, number> {
  for (const file of [DURATIONS_FILE, COMMITTED_DURATIONS]) {
    if (!existsSync(file)) continue;
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as Record<string, number>;
    } catch {
      // A damaged times file only costs the ordering.
    }
  }
  return {};
}

/** Longest first (a file never timed counts as long): with n workers, the run ends soonest when the long files do not start last. */
function longestFirst(files: string[], durations: Record<string, number>): string[] {
  const known = (f: string) => durations[f] ?? 60_000;
  return [...files].sort((a, b) => known(b) - known(a) || a.localeCompare(b));
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  process.chdir(root);
  const needsPostgres = args.files.some((f) => USES_POSTGRES.test(readFileSync(join(root, f), 'utf8')));
  const cluster = process.env[SHARED_CLUSTER_ENV] || !needsPostgres ? null : await startPostgres({ maxConnections: 400 });
  if (cluster) process.env[SHARED_CLUSTER_ENV] = cluster.url;
  // Interrupted (Ctrl-C, CI's timeout): the cluster is stopped, not left running on its port.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      cluster?.stop();
      process.exit(130);
    });
  }
  const started = Date.now();
  const fileMs = new Map<string, number>();
  let failed = false;
  try {
    const stream = run({ files: longestFirst(args.files, readDurations()), concurrency: args.concurrency, timeout: FILE_TIMEOUT_MS });
    stream.on('test:complete', (event) => {
      if (event.nesting === 0 && event.file && event.name === relative(root, event.file)) fileMs.set(event.name, event.details.duration_ms);
    });
    stream.on('test:fail', () => (failed = true));
    await new Promise<void>((done, fail) => {
      stream.compose(spec).on('end', done).on('error', fail).pipe(process.stdout, { end: false });
    });
  } finally {
    cluster?.stop();
  }
  const slowest = [...fileMs].sort((a, b) => b[1] - a[1]);
  const wallS = (Date.now() - started) / 1000;
  process.stdout.write(`\nSlowest test files (${args.files.length} files, ${args.concurrency} at a time, ${wallS.toFixed(0)} s wall):\n`);
  for (const [file, ms] of slowest.slice(0, SLOWEST_SHOWN)) process.stdout.write(`  ${(ms / 1000).toFixed(1).padStart(7)} s  ${file}\n`);
  // This run's times replace those of the same files; the others' are kept (a partial run refines, never forgets).
  const kept = { ...readDurations(), ...Object.fromEntries(slowest.map(([f, ms]) => [f, Math.round(ms)])) };
  mkdirSync(join(root, 'test-artifacts'), { recursive: true });
  writeFileSync(DURATIONS_FILE, `${JSON.stringify(Object.fromEntries(Object.entries(kept).sort((a, b) => b[1] - a[1])), null, 1)}\n`);
  return failed || process.exitCode ? 1 : 0;
}

main().then((code) => process.exit(code), (error: unknown) => {
  process.stderr.write(`run-tests: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
});
