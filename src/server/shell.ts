import { join } from 'node:path';
import { boardGreenConfig } from '../board/rrg-entries.js';
import { CxrError, EXIT } from '../core/errors.js';
import { DEFAULT_SCORE_SETTINGS } from '../board/score-submission.js';
import { openJobQueue } from '../jobs/open-queue.js';
import type { JobQueue } from '../jobs/queue.js';
import { assertMigrated, migrate, openStore, type Store } from '../store/connect.js';
import { startScoringPool, type ScoringPool } from './scoring-pool.js';

/** The database, its queue and (optionally) scoring threads, as `serve` and `worker` both start them. */
export interface BoardServices {
  store: Store;
  queue: JobQueue;
  pool: ScoringPool | null;
  close(): Promise<void>;
}

/** Scoring thread settings; tests shorten the intervals through CXRBENCH_* variables (documented in docs/board.md). */
function poolSettings() {
  const seconds = (name: string, fallback: number) => {
    const v = Number(process.env[name]);
    return Number.isFinite(v) && v > 0 ? v : fallback;
  };
  const supervise = seconds('CXRBENCH_QUEUE_SUPERVISE_SECONDS', 30);
  return {
    score: DEFAULT_SCORE_SETTINGS,
    pollMs: seconds('CXRBENCH_QUEUE_POLL_MS', 500),
    reconcileMs: seconds('CXRBENCH_RECONCILE_SECONDS', 30) * 1000,
    staleAfterMs: seconds('CXRBENCH_STALE_SECONDS', 60) * 1000,
    stopTimeoutMs: 30_000,
    timing: { superviseIntervalSeconds: supervise, pollingIntervalSeconds: Math.max(0.5, seconds('CXRBENCH_QUEUE_POLL_MS', 1000) / 1000) },
  };
}

/**
 * Opens the board's database (PostgreSQL with DATABASE_URL, else SQLite in `dataDir`), migrated (or migrating
 * it with `migrateFirst`), its scoring queue, and `threads` scoring threads.
 */
export async function startBoardServices(options: { dataDir: string; migrateFirst: boolean; threads: number; label: string; log: (level: string, message: string) => void }): Promise<BoardServices> {
  // GREEN's judge keeps its replies under the data folder (scoring threads inherit the environment); a wrong
  // setting stops the server here, naming the variable, rather than failing every report-generation scoring.
  if (process.env.CXRBENCH_RRG_GREEN && !process.env.CXRBENCH_RRG_GREEN_JOURNAL_DIR) process.env.CXRBENCH_RRG_GREEN_JOURNAL_DIR = join(options.dataDir, 'green-journal');
  const green = boardGreenConfig();
  if (green) options.log('info', `GREEN judge ${green.model} at ${green.endpoints.join(', ')}; replies kept in ${green.journalDir}`);
  // Only --migrate creates a SQLite database: a mistyped --data-dir is said, not served empty.
  const store = await openStore({ databaseUrl: process.env.DATABASE_URL, sqliteFile: join(options.dataDir, 'board.sqlite'), create: options.migrateFirst });
  try {
    if (options.migrateFirst) await migrate(store);
    await assertMigrated(store);
    const queue = await openJobQueue(store, { workerName: `${options.label}-${process.pid}`, install: options.migrateFirst, onError: (e) => options.log('warn', `queue: ${e.message}`) });
    const pool = options.threads > 0 ? await startScoringPool(store, options.threads, { ...poolSettings(), label: options.label, log: options.log }) : null;
    return {
      store, queue, pool,
      async close() {
        await pool?.stop();
        await queue.stop();
        await store.close();
      },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** Runs a shell's main: user errors print one line and exit with their code; anything else is a bug (70). */
export function runShell(name: string, main: () => Promise<void>): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(EXIT.ok);
      throw error;
    });
  }
  main().catch((error: unknown) => {
    if (error instanceof CxrError) {
      process.stderr.write(`${name}: ${error.message}\n`);
      process.exit(error.exitCode);
    }
    if (error && typeof error === 'object' && 'exitCode' in error && (error as { code?: string }).code?.startsWith('commander.')) process.exit((error as { exitCode: number }).exitCode === 0 ? 0 : EXIT.badInput);
    process.stderr.write(`${name}: internal error: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(EXIT.internal);
  });
}
