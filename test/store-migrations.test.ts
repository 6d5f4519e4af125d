import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { after, test } from 'node:test';
import type { Kysely } from 'kysely';
import { Migrator } from 'kysely/migration';
import { migrate } from '../src/store/connect.js';
import { MIGRATIONS } from '../src/store/migrations.js';
import { DIALECTS, freshStore, lazyCluster } from './helpers/board.js';

const cluster = lazyCluster();
after(() => cluster.stop());

for (const dialect of DIALECTS) {
  test(`migration 0004 (${dialect}): uploaded files move out of the submissions table, every byte kept`, { timeout: 120_000 }, async () => {
    const store = await freshStore(dialect, cluster.get, { migrated: false });
    try {
      const migrator = new Migrator({ db: store.db, provider: { getMigrations: async () => MIGRATIONS } });
      const { error } = await migrator.migrateTo('0003-scoring-queue');
      assert.equal(error, undefined);
      // A board as 0003 left it: submissions carrying their files (written untyped: the current schema has no such column).
      const db = store.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
      const now = new Date().toISOString();
      await db.insertInto('benchmarks').values({ id: 'b', slug: 'b', title: 'B', version: '1', content_sha256: 'x', item_count: 1, daily_limit: 1, total_limit: 1, is_open: 1, created_at: now }).execute();
      const files = ['{"id":"q1","prediction":"A"}\n', `${'ü'.repeat(300_000)}\r\nid,prediction\n`];
      const ids: string[] = [];
      for (const content of files) {
        const id = randomUUID();
        ids.push(id);
        await db.insertInto('submissions').values({ id, benchmark_id: 'b', team_id: null, user_id: null, kind: 'baseline', state: 'queued', day: now.slice(0, 10), file_name: 'p', format: 'jsonl', byte_size: Buffer.byteLength(content), content, model_json: '{}', error: null, created_at: now, scored_at: null, attempts: 0, updated_at: now }).execute();
      }
      assert.deepEqual(await migrate(store), ['0004-submission-files', '0005-reader-studies-and-review', '0006-report-generation-board', '0007-review-rejection-without-ratings', '0008-study-publish-consent', '0009-change-notifications', '0010-review-others-seen', '0011-session-flash']);
      const moved = await store.db.selectFrom('submission_files').selectAll().orderBy('submission_id').execute();
      assert.deepEqual(moved.map((m) => [m.submission_id, m.content]), ids.map((id, i) => [id, files[i]]).sort((a, b) => a[0]!.localeCompare(b[0]!)));
      await assert.rejects(db.selectFrom('submissions').select('content').execute(), 'the column is gone');
      const hashes = await store.db.selectFrom('submissions').select(['id', 'content_sha256']).execute();
      for (const [i, id] of ids.entries()) assert.equal(hashes.find((h) => h.id === id)!.content_sha256, createHash('sha256').update(files[i]!).digest('hex'), 'earlier uploads get their hash');
      await store.db.deleteFrom('submissions').where('id', '=', ids[0]!).execute();
      assert.equal((await store.db.selectFrom('submission_files').selectAll().execute()).length, 1, 'a deleted submission takes its file with it');
    } finally {
      await store.close();
    }
  });

  test(`migration 0007 (${dialect}): a review decision may leave its ratings and difficulty out; every decision made before is kept as it was`, { timeout: 120_000 }, async () => {
    const store = await freshStore(dialect, cluster.get, { migrated: false });
    try {
      const migrator = new Migrator({ db: store.db, provider: { getMigrations: async () => MIGRATIONS } });
      assert.equal((await migrator.migrateTo('0006-report-generation-board')).error, undefined);
      const now = new Date().toISOString();
      await store.db.insertInto('users').values({ id: 'u', email: 'u@lab.org', display_name: 'U', password_hash: 'x', is_admin: 0, team_id: null, created_at: now }).execute();
      await store.db.insertInto('review_queues').values({ id: 'q', title: 'Q', source: 's', source_sha256: 'x', reviewers_per_item: 1, created_by: 'cli', created_at: now }).execute();
      const before = { queue_id: 'q', position: 0, user_id: 'u', adjudication: 0, clinical_quality: 4, explanation_clarity: 3, factual_correctness: 5, image_alignment: 2, difficulty: 'hard', category: 'Heart', decision: 'edit' as const, reason: null, note: 'a note', edited_json: '{"question":"q?"}', created_at: now, updated_at: now };
      await store.db.insertInto('review_decisions').values(before).execute();
      const applied = await migrator.migrateTo('0007-review-rejection-without-ratings');
      assert.deepEqual(applied.results?.map((r) => [r.migrationName, r.status]), [['0007-review-rejection-without-ratings', 'Success']]);
      assert.deepEqual(await store.db.selectFrom('review_decisions').selectAll().execute(), [before]);
      const rejection = { ...before, position: 1, clinical_quality: null, explanation_clarity: null, factual_correctness: null, image_alignment: null, difficulty: null, decision: 'reject' as const, reason: 'other', edited_json: null };
      await store.db.insertInto('review_decisions').values(rejection).execute();
      assert.deepEqual(await store.db.selectFrom('review_decisions').selectAll().orderBy('position').execute(), [before, rejection]);
      await assert.rejects(store.db.insertInto('review_decisions').values({ ...rejection, category: null as unknown as string }).execute(), 'the other columns keep their NOT NULL');
      await assert.rejects(store.db.insertInto('review_decisions').values(rejection).execute(), 'and the primary key');
      await store.db.deleteFrom('review_queues').where('id', '=', 'q').execute();
      assert.deepEqual(await store.db.selectFrom('review_decisions').selectAll().execute(), [], 'and the cascade from the queue');
    } finally {
      await store.close();
    }
  });

  test(`migration 0008 (${dialect}): studies made before the choice existed are "not published", and none is published`, { timeout: 120_000 }, async () => {
    const store = await freshStore(dialect, cluster.get, { migrated: false });
    try {
      const migrator = new Migrator({ db: store.db, provider: { getMigrations: async () => MIGRATIONS } });
      const names = Object.keys(MIGRATIONS).sort();
      const { error } = await migrator.migrateTo(names[names.indexOf('0008-study-publish-consent') - 1]!);
      assert.equal(error, undefined);
      // A closed study as the migrations before left it (written untyped: the current schema has columns they lack).
      const db = store.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
      const now = new Date().toISOString();
      await db.insertInto('studies').values({ id: 's1', title: 'Old study', benchmark_id: null, source: 'x', source_sha256: 'y', sampling_json: '{}', seed: 0, state: 'closed', allow_edits: 0, invites_expire_at: null, created_by: 'host', created_at: now, opened_at: now, closed_at: now }).execute();
      const applied = await migrator.migrateTo('0008-study-publish-consent');
      assert.deepEqual(applied.results?.map((r) => [r.migrationName, r.status]), [['0008-study-publish-consent', 'Success']]);
      assert.deepEqual(await store.db.selectFrom('studies').select(['id', 'publish_scores', 'published_at']).execute(), [{ id: 's1', publish_scores: 0, published_at: null }]);
    } finally {
      await store.close();
    }
  });
}
