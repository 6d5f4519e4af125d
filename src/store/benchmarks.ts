import { randomUUID } from 'node:crypto';
import { CxrError } from '../core/errors.js';
import { audit } from './audit.js';
import type { Store } from './connect.js';
import type { BenchmarkItemTable, BenchmarkTable } from './schema.js';

export type Benchmark = BenchmarkTable;
export type BenchmarkItemRow = Omit<BenchmarkItemTable, 'benchmark_id'>;

export interface NewBenchmark {
  slug: string;
  title: string;
  version: string;
  contentSha256: string;
  dailyLimit: number;
  totalLimit: number;
  open: boolean;
}

/** Loads a hidden test set as a new benchmark (slug unique), all rows in one transaction, audited. */
export async function loadBenchmark(store: Store, actor: string, meta: NewBenchmark, items: readonly BenchmarkItemRow[]): Promise<Benchmark> {
  if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(meta.slug)) throw new CxrError('bad-option', `--slug ${meta.slug}: use lowercase letters, digits and dashes`);
  return store.db.transaction().execute(async (tx) => {
    if (await tx.selectFrom('benchmarks').select('id').where('slug', '=', meta.slug).executeTakeFirst()) throw new CxrError('conflict', `a benchmark "${meta.slug}" exists already; choose another --slug (e.g. with the version)`);
    const benchmark: Benchmark = {
      id: randomUUID(), slug: meta.slug, title: meta.title, version: meta.version, content_sha256: meta.contentSha256, item_count: items.length,
      is_open: meta.open ? 1 : 0, daily_limit: meta.dailyLimit, total_limit: meta.totalLimit, created_at: new Date().toISOString(),
    };
    await tx.insertInto('benchmarks').values(benchmark).execute();
    // Batches keep each statement under the parameter limits of both databases.
    for (let i = 0; i < items.length; i += 500) {
      await tx.insertInto('benchmark_items').values(items.slice(i, i + 500).map((item) => ({ ...item, benchmark_id: benchmark.id }))).execute();
    }
    await audit(tx, actor, 'benchmark.load', { slug: meta.slug, version: meta.version, sha256: meta.contentSha256, items: items.length });
    return benchmark;
  });
}

export async function listBenchmarks(store: Store): Promise<Benchmark[]> {
  return store.db.selectFrom('benchmarks').selectAll().orderBy('created_at', 'asc').execute();
}

export async function benchmarkBySlug(store: Store, slug: string): Promise<Benchmark | null> {
  return (await store.db.selectFrom('benchmarks').selectAll().where('slug', '=', slug).executeTakeFirst()) ?? null;
}

export async function setBenchmarkOpen(store: Store, actor: string, slug: string, open: boolean): Promise<void> {
  await store.db.transaction().execute(async (tx) => {
    const result = await tx.updateTable('benchmarks').set({ is_open: open ? 1 : 0 }).where('slug', '=', slug).executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) throw new CxrError('not-found', `no benchmark "${slug}"`);
    await audit(tx, actor, open ? 'benchmark.open' : 'benchmark.close', { slug });
  });
}

/** The hidden items of a benchmark in position order. Server-side only. */
export async function benchmarkItems(store: Store, benchmarkId: string): Promise<BenchmarkItemRow[]> {
  return store.db.selectFrom('benchmark_items').select(['position', 'question_id', 'study_id', 'task', 'category', 'subcategory', 'gold', 'options_json', 'public_json']).where('benchmark_id', '=', benchmarkId).orderBy('position', 'asc').execute();
}

/** What participants may download: the public records, in order. */
export async function publicRecords(store: Store, benchmarkId: string): Promise<{ id: string; record: unknown }[]> {
  const rows = await store.db.selectFrom('benchmark_items').select(['question_id', 'public_json']).where('benchmark_id', '=', benchmarkId).orderBy('position', 'asc').execute();
  return rows.map((r) => ({ id: r.question_id, record: JSON.parse(r.public_json) as unknown }));
}
