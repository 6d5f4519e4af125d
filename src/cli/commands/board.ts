import { join } from 'node:path';
import type { Command } from 'commander';
import { importReported } from '../../board/import-reported.js';
import { importReportedRrg } from '../../board/import-reported-rrg.js';
import { loadRrgBenchmarkFromFile } from '../../board/load-rrg.js';
import { loadBenchmarkFromDataset } from '../../board/load-benchmark.js';
import { ModelCard } from '../../board/model-card.js';
import { scoreHere, submitPredictions } from '../../board/submit.js';
import { submissionStatus } from '../../store/submissions.js';
import { storeBenchmarkImages } from '../../study/benchmark-images.js';
import { CxrError } from '../../core/errors.js';
import { audit } from '../../store/audit.js';
import { createUser } from '../../store/accounts.js';
import { benchmarkBySlug, setBenchmarkOpen } from '../../store/benchmarks.js';
import { assertMigrated, migrate, openStore, type Store } from '../../store/connect.js';
import type { SubmissionKind } from '../../store/schema.js';
import { openJobQueue } from '../../jobs/open-queue.js';
import { PGBOSS_SCHEMA } from '../../jobs/pgboss-queue.js';
import { nonBlank, wholeNumber } from '../option-parsers.js';
import { checkTextFile, readTextFile } from '../read-text-file.js';

export const DATA_DIR_HELP = 'folder of the SQLite database (ignored when DATABASE_URL=postgres://… is set)';

/**
 * Opens the board's store (PostgreSQL from DATABASE_URL, else SQLite in the data dir), migrated. Only
 * `migrateFirst` creates a SQLite database: every other command refuses a missing one, naming the path.
 */
export async function openBoardStore(dataDir: string, migrateFirst = false): Promise<Store> {
  const store = await openStore({ databaseUrl: process.env.DATABASE_URL, sqliteFile: join(dataDir, 'board.sqlite'), create: migrateFirst });
  try {
    if (migrateFirst) await migrate(store);
    await assertMigrated(store);
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}

export async function withStore<T>(dataDir: string, work: (store: Store) => Promise<T>): Promise<T> {
  const store = await openBoardStore(dataDir);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/** Reads a secret from a named environment variable: never from the command line (shell history, ps). */
function secretFrom(env: string): string {
  const value = process.env[env];
  if (!value) throw new CxrError('bad-option', `--password-env ${env}: that environment variable is not set`);
  return value;
}

/** `cxrbench db migrate` and `cxrbench board …`: set up and administer a board from the shell. */
export function registerBoard(program: Command): void {
  const db = program.command('db').description('the leaderboard database (SQLite file, or PostgreSQL with DATABASE_URL)');
  db.command('migrate')
    .description('apply pending migrations')
    .option('--data-dir <dir>', DATA_DIR_HELP, 'board-data')
    .action(async (opts: { dataDir: string }) => {
      const store = await openStore({ databaseUrl: process.env.DATABASE_URL, sqliteFile: join(opts.dataDir, 'board.sqlite') });
      try {
        const applied = await migrate(store);
        process.stdout.write(`${store.location}: ${applied.length ? `applied ${applied.join(', ')}` : 'already up to date'}\n`);
        if (store.dialect === 'postgres') {
          // The scoring queue (pg-boss) keeps its tables in a schema of its own: installed or upgraded here too.
          const queue = await openJobQueue(store, { workerName: 'db-migrate', install: true });
          await queue.stop();
          process.stdout.write(`${store.location}: scoring queue (pg-boss, schema ${PGBOSS_SCHEMA}) installed\n`);
        }
      } finally {
        await store.close();
      }
    });

  const board = program.command('board').description('administer a self-hosted leaderboard (serve it with `cxrbench serve`)');
  board.command('user')
    .description('create an account (an administrator with --admin); the password comes from an environment variable')
    .requiredOption('--email <email>')
    .requiredOption('--password-env <name>', 'environment variable holding the password')
    .option('--name <display name>', 'display name', nonBlank('--name'), '')
    .option('--team <name>', 'create a team for this user', nonBlank('--team'))
    .option('--admin', 'an administrator')
    .option('--data-dir <dir>', DATA_DIR_HELP, 'board-data')
    .action(async (opts: { email: string; passwordEnv: string; name: string; team?: string; admin?: boolean; dataDir: string }) => {
      await withStore(opts.dataDir, async (store) => {
        const user = await createUser(store, { email: opts.email, password: secretFrom(opts.passwordEnv), displayName: opts.name, teamName: opts.team ?? null, admin: opts.admin === true });
        if (opts.admin) await audit(store.db, 'cli', 'user.create-admin', { email: user.email });
        process.stdout.write(`created ${opts.admin ? 'administrator' : 'user'} ${user.email}${user.team_name ? ` in team ${user.team_name}` : ''}\n`);
      });
    });

  board.command('load')
    .description('load a hidden test set (official ReXVQA layout or JSONL) as a benchmark')
    .requiredOption('--data <dir>', 'dataset')
    .option('--split <name>', 'split holding the test set', 'test')
    .requiredOption('--slug <slug>', 'short name in URLs, e.g. rexvqa-test-v1')
    .option('--title <text>', 'title shown on the board', nonBlank('--title'))
    .option('--version <text>', 'version of the test set', '1')
    .option('--daily-limit <n>', 'submissions per team per day', wholeNumber('--daily-limit'), 3)
    .option('--total-limit <n>', 'submissions per team in all', wholeNumber('--total-limit'), 100)
    .option('--closed', 'load it closed for submissions')
    .option('--with-images', 'also store its images in the database, so reader studies can be drawn from it in the browser')
    .option('--data-dir <dir>', DATA_DIR_HELP, 'board-data')
    .action(async (opts: { data: string; split: string; slug: string; title?: string; version: string; dailyLimit: number; totalLimit: number; closed?: boolean; withImages?: boolean; dataDir: string }) => {
      await withStore(opts.dataDir, async (store) => {
        const b = await loadBenchmarkFromDataset(store, 'cli', opts.data, opts.split, { slug: opts.slug, title: opts.title ?? opts.slug, version: opts.version, dailyLimit: opts.dailyLimit, totalLimit: opts.totalLimit, open: opts.closed !== true });
        process.stdout.write(`loaded ${b.slug}: ${b.item_count} hidden questions, sha256 ${b.content_sha256}\n`);
        if (opts.withImages) {
          const images = await storeBenchmarkImages(store, b, opts.data, opts.split);
          process.stdout.write(`stored ${images.stored} image(s)${images.missing.length ? `; ${images.missing.length} not found (first: ${images.missing.slice(0, 3).join(', ')})` : ''}\n`);
        }
      });
    });

  board.command('import-reported')
    .description('add the eight published ReXrank V2.0 results as reference rows ("reported, not verified here")')
    .requiredOption('--slug <slug>')
    .option('--data-dir <dir>', DATA_DIR_HELP, 'board-data')
    .action(async (opts: { slug: string; dataDir: string }) => {
      await withStore(opts.dataDir, async (store) => {
        const b = await benchmarkBySlug(store, opts.slug);
        if (!b) throw new CxrError('not-found', `no benchmark "${opts.slug}"`);
        process.stdout.write(`added ${await importReported(store, 'cli', b)} reported row(s) to ${b.slug}\n`);
      });
    });

  board.command('load-rrg')
    .description("load a report-generation test set (ReXrank's RRG JSON with the reference sections) as a benchmark with hidden references")
    .requiredOption('--data <file>', "ReXrank's RRG JSON, keyed by study")
    .requiredOption('--slug <slug>', 'short name in URLs, e.g. iu-xray-findings-v1')
    .option('--track <track>', 'findings | findings-impression', 'findings-impression')
    .option('--title <text>', 'title shown on the board', nonBlank('--title'))
    .option('--version <text>', 'version of the test set', '1')
    .option('--daily-limit <n>', 'submissions per team per day', wholeNumber('--daily-limit'), 3)
    .option('--total-limit <n>', 'submissions per team in all', wholeNumber('--total-limit'), 100)
    .option('--closed', 'load it closed for submissions')
    .option('--data-dir <dir>', DATA_DIR_HELP, 'board-data')
    .action(async (opts: { data: string; slug: string; track: string; title?: string; version: string; dailyLimit: number; totalLimit: number; closed?: boolean; dataDir: string }) => {
      await withStore(opts.dataDir, async (store) => {
        checkTextFile(opts.data, '--data');
        const b = await loadRrgBenchmarkFromFile(store, 'cli', opts.data, opts.track, { slug: opts.slug, title: opts.title ?? opts.slug, version: opts.version, dailyLimit: opts.dailyLimit, totalLimit: opts.totalLimit, open: opts.closed !== true });
        process.stdout.write(`loaded ${b.slug}: ${b.item_count} studies with hidden ${opts.track} references, sha256 ${b.content_sha256}\n`);
      });
    });

  board.command('import-reported-rrg')
    .description('add published ReXrank V1.0 report-generation rows of one dataset and track ("reported, not verified here")')
    .requiredOption('--slug <slug>')
    .requiredOption('--file <published.json>', 'published rows with their source (e.g. test/fixtures/rexrank-v1/published.json)')
    .requiredOption('--dataset <name>', 'e.g. MIMIC-CXR, IU-Xray, CheXpert Plus, ReXGradient')
    .option('--track <name>', 'the published table: Findings or Findings+Impression', 'Findings')
    .option('--data-dir <dir>', DATA_DIR_HELP, 'board-data')
    .action(async (opts: { slug: string; file: string; dataset: string; track: string; dataDir: string }) => {
      await withStore(opts.dataDir, async (store) => {
        const b = await benchmarkBySlug(store, opts.slug);
        if (!b) throw new CxrError('not-found', `no benchmark "${opts.slug}"`);
        checkTextFile(opts.file, '--file');
        process.stdout.write(`added ${await importReportedRrg(store, 'cli', b, opts.file, opts.dataset, opts.track)} reported row(s) to ${b.slug}\n`);
      });
    });

  board.command('add-run')
    .description('score a predictions file (e.g. a run\'s rexrank-predictions.json) onto a benchmark as a baseline or an admin entry')
    .requiredOption('--slug <slug>')
    .requiredOption('--predictions <file>')
    .requiredOption('--model <json>', 'model card as JSON, e.g. {"name":"text-only"}')
    .option('--baseline', 'mark the entry as a baseline')
    .option('--data-dir <dir>', DATA_DIR_HELP, 'board-data')
    .action(async (opts: { slug: string; predictions: string; model: string; baseline?: boolean; dataDir: string }) => {
      await withStore(opts.dataDir, async (store) => {
        const b = await benchmarkBySlug(store, opts.slug);
        if (!b) throw new CxrError('not-found', `no benchmark "${opts.slug}"`);
        let model: unknown;
        try {
          model = JSON.parse(opts.model);
        } catch (error) {
          throw new CxrError('bad-option', `--model: not JSON (${(error as Error).message}); give the model card as JSON, e.g. {"name":"text-only"}`);
        }
        const card = ModelCard.safeParse(model);
        if (!card.success) throw new CxrError('bad-option', `--model: ${card.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
        const kind: SubmissionKind = opts.baseline ? 'baseline' : 'participant';
        const result = await submitPredictions(store, scoreHere(store), b, { fileName: opts.predictions, content: readTextFile(opts.predictions, '--predictions'), model: card.data, teamId: null, userId: null, kind });
        if (!result.ok) throw new CxrError('unreadable-file', `${opts.predictions}: ${'problems' in result ? result.problems.map((p) => p.message).join('; ') : result.message}`);
        const status = await submissionStatus(store, result.submission.id);
        if (status?.state !== 'scored') throw new Error(`scoring ${opts.predictions} failed: ${status?.error ?? 'unknown'}`);
        process.stdout.write(`scored ${card.data.name} onto ${b.slug} (entry ${result.submission.id})\n`);
      });
    });

  for (const action of ['open', 'close'] as const) {
    board.command(action)
      .description(`${action} a benchmark for submissions`)
      .requiredOption('--slug <slug>')
      .option('--data-dir <dir>', DATA_DIR_HELP, 'board-data')
      .action(async (opts: { slug: string; dataDir: string }) => {
        await withStore(opts.dataDir, (store) => setBenchmarkOpen(store, 'cli', opts.slug, action === 'open'));
        process.stdout.write(`${opts.slug}: ${action === 'open' ? 'open' : 'closed'}\n`);
      });
  }
}
