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
      is_open: meta.open ? 1 : 0, daily_limit: meta.dailyLimit, total_limit: meta.totalLimit, created_at: new Date().toISOString(), kind: 'vqa', track: null,
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

/**
 * Loads a report-generation benchmark: the reference report of each study for one track, hidden like VQA labels.
 * All rows in one transaction, audited; the slug rules and the one-slug check are the VQA loader's.
 */
export async function loadRrgBenchmark(store: Store, actor: string, meta: NewBenchmark & { track: string }, references: readonly { studyId: string; reference: string; publicRecord: Record<string, unknown> }[]): Promise<Benchmark> {
  if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(meta.slug)) throw new CxrError('bad-option', `--slug ${meta.slug}: use lowercase letters, digits and dashes`);
  if (references.length === 0) throw new CxrError('bad-option', 'a report-generation benchmark needs at least one reference report');
  return store.db.transaction().execute(async (tx) => {
    if (await tx.selectFrom('benchmarks').select('id').where('slug', '=', meta.slug).executeTakeFirst()) throw new CxrError('conflict', `a benchmark "${meta.slug}" exists already; choose another --slug (e.g. with the version)`);
    const benchmark: Benchmark = {
      id: randomUUID(), slug: meta.slug, title: meta.title, version: meta.version, content_sha256: meta.contentSha256, item_count: references.length,
      is_open: meta.open ? 1 : 0, daily_limit: meta.dailyLimit, total_limit: meta.totalLimit, created_at: new Date().toISOString(), kind: 'rrg', track: meta.track,
    };
    await tx.insertInto('benchmarks').values(benchmark).execute();
    for (let i = 0; i < references.length; i += 500) {
      await tx.insertInto('rrg_references').values(references.slice(i, i + 500).map((r, k) => ({ benchmark_id: benchmark.id, position: i + k, study_id: r.studyId, reference: r.reference, public_json: JSON.stringify(r.publicRecord) }))).execute();
    }
    await audit(tx, actor, 'benchmark.load-rrg', { slug: meta.slug, version: meta.version, sha256: meta.contentSha256, track: meta.track, studies: references.length });
    return benchmark;
  });
}

/** The hidden reference reports of a report-generation benchmark, by study id. Server-side only. */
export async function rrgReferences(store: Store, benchmarkId: string): Promise<Map<string, string>> {
  const rows = await store.db.selectFrom('rrg_references').select(['study_id', 'reference']).where('benchmark_id', '=', benchmarkId).orderBy('position', 'asc').execute();
  return new Map(rows.map((r) => [r.study_id, r.reference]));
}

export async function listBenchmarks(store: Store): Promise<Benchmark[]> {
  return store.db.selectFrom('benchmarks').selectAll().orderBy('created_at', 'asc').execute();
}

export async function benchmarkBySlug(store: Store, slug: string): Promise<Benchmark | null> {
  return (await store.db.selectFrom('benchmarks').selectAll().where('slug', '=', slug).executeTakeFirst()) ?? null;
}

export async function benchmarkById(store: Store, id: string): Promise<Benchmark | null> {
  return (await store.db.selectFrom('benchmarks').selectAll().where('id', '=', id).executeTakeFirst()) ?? null;
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

/** What participants may download: the public records, in order (a report-generation benchmark's study inputs). */
export async function publicRecords(store: Store, benchmarkId: string): Promise<{ id: string; record: unknown }[]> {
  const studies = await store.db.selectFrom('rrg_references').select(['study_id', 'public_json']).where('benchmark_id', '=', benchmarkId).orderBy('position', 'asc').execute();
  if (studies.length > 0) return studies.map((r) => ({ id: r.study_id, record: JSON.parse(r.public_json) as unknown }));
  const rows = await store.db.selectFrom('benchmark_items').select(['question_id', 'public_json']).where('benchmark_id', '=', benchmarkId).orderBy('position', 'asc').execute();
  return rows.map((r) => ({ id: r.question_id, record: JSON.parse(r.public_json) as unknown }));
}
