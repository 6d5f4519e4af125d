import { createHash } from 'node:crypto';
import { PostgresAdapter, sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * The migrations, in order. One set for SQLite and PostgreSQL: only types both understand (text, integer,
 * double precision), so the same schema runs on both. Never edit a shipped migration; add the next one.
 */
const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');

/** The PostgreSQL channel every committed change to the board's tables is announced on (store/change-watch.ts). */
export const CHANGES_CHANNEL = 'cxrbench_changes';

/**
 * PostgreSQL: announce every committed change to `table` on CHANGES_CHANNEL (one NOTIFY per statement, folded
 * per transaction, sent at commit). A migration that creates a table calls this for it; store-migrations.test.ts
 * checks that every table has it. SQLite needs nothing: its `data_version` moves on any commit.
 */
async function notifyOnChange(db: Kysely<unknown>, table: string): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`create trigger ${sql.id(`${table}_notify_change`)} after insert or update or delete or truncate on ${sql.table(table)} for each statement execute function cxrbench_notify_change()`.execute(db);
}

export const MIGRATIONS: Record<string, Migration> = {
  '0001-initial': {
    async up(db: Kysely<unknown>) {
      await db.schema.createTable('teams')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull().unique())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createTable('users')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('email', 'text', (c) => c.notNull().unique())
        .addColumn('display_name', 'text', (c) => c.notNull())
        .addColumn('password_hash', 'text', (c) => c.notNull())
        .addColumn('is_admin', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('team_id', 'text', (c) => c.references('teams.id'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createTable('sessions')
        .addColumn('id_hash', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('csrf', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createTable('api_tokens')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('token_hash', 'text', (c) => c.notNull().unique())
        .addColumn('prefix', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('revoked_at', 'text')
        .addColumn('last_used_at', 'text')
        .execute();
      await db.schema.createTable('benchmarks')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('slug', 'text', (c) => c.notNull().unique())
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('version', 'text', (c) => c.notNull())
        .addColumn('content_sha256', 'text', (c) => c.notNull())
        .addColumn('item_count', 'integer', (c) => c.notNull())
        .addColumn('is_open', 'integer', (c) => c.notNull())
        .addColumn('daily_limit', 'integer', (c) => c.notNull())
        .addColumn('total_limit', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createTable('benchmark_items')
        .addColumn('benchmark_id', 'text', (c) => c.notNull().references('benchmarks.id').onDelete('cascade'))
        .addColumn('position', 'integer', (c) => c.notNull())
        .addColumn('question_id', 'text', (c) => c.notNull())
        .addColumn('study_id', 'text', (c) => c.notNull())
        .addColumn('task', 'text', (c) => c.notNull())
        .addColumn('category', 'text', (c) => c.notNull())
        .addColumn('subcategory', 'text', (c) => c.notNull())
        .addColumn('gold', 'text', (c) => c.notNull())
        .addColumn('options_json', 'text', (c) => c.notNull())
        .addColumn('public_json', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('benchmark_items_pk', ['benchmark_id', 'position'])
        .addUniqueConstraint('benchmark_items_question', ['benchmark_id', 'question_id'])
        .execute();
      await db.schema.createTable('submissions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('benchmark_id', 'text', (c) => c.notNull().references('benchmarks.id').onDelete('cascade'))
        .addColumn('team_id', 'text', (c) => c.references('teams.id'))
        .addColumn('user_id', 'text', (c) => c.references('users.id'))
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('file_name', 'text', (c) => c.notNull())
        .addColumn('format', 'text', (c) => c.notNull())
        .addColumn('byte_size', 'integer', (c) => c.notNull())
        .addColumn('content', 'text', (c) => c.notNull())
        .addColumn('model_json', 'text', (c) => c.notNull())
        .addColumn('error', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('scored_at', 'text')
        .execute();
      await db.schema.createIndex('submissions_team_day').on('submissions').columns(['team_id', 'benchmark_id', 'day']).execute();
      await db.schema.createTable('entries')
        .addColumn('submission_id', 'text', (c) => c.primaryKey().references('submissions.id').onDelete('cascade'))
        .addColumn('benchmark_id', 'text', (c) => c.notNull().references('benchmarks.id').onDelete('cascade'))
        .addColumn('metrics_json', 'text', (c) => c.notNull())
        .addColumn('rexrank_overall', 'double precision', (c) => c.notNull())
        .addColumn('micro_accuracy', 'double precision', (c) => c.notNull())
        .addColumn('n', 'integer', (c) => c.notNull())
        .addColumn('unparseable', 'integer', (c) => c.notNull())
        .addColumn('item_results', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('entries_benchmark').on('entries').column('benchmark_id').execute();
      await db.schema.createTable('audit_log')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('at', 'text', (c) => c.notNull())
        .addColumn('actor', 'text', (c) => c.notNull())
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('detail_json', 'text', (c) => c.notNull())
        .execute();
    },
  },
  '0002-team-invites': {
    async up(db: Kysely<unknown>) {
      // sha256 of the team's current invite code (shown once to a member; a new code replaces the old one).
      await db.schema.alterTable('teams').addColumn('invite_hash', 'text').execute();
    },
  },
  '0003-scoring-queue': {
    async up(db: Kysely<unknown>) {
      // Scoring leaves the request: a submission is `queued`, then `scoring` by a worker, then `scored` or `failed`.
      await db.schema.alterTable('submissions').addColumn('job_id', 'text').execute();
      await db.schema.alterTable('submissions').addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.alterTable('submissions').addColumn('worker', 'text').execute();
      await db.schema.alterTable('submissions').addColumn('updated_at', 'text').execute();
      await db.schema.createIndex('submissions_state').on('submissions').columns(['state', 'updated_at']).execute();
      // The job table of the single-machine queue (SQLite); on PostgreSQL, pg-boss keeps its own schema.
      await db.schema.createTable('jobs')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('queue', 'text', (c) => c.notNull())
        .addColumn('job_key', 'text', (c) => c.notNull())
        .addColumn('data_json', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('retry_limit', 'integer', (c) => c.notNull())
        .addColumn('retry_delay_ms', 'integer', (c) => c.notNull())
        .addColumn('expire_ms', 'integer', (c) => c.notNull())
        .addColumn('run_after', 'text', (c) => c.notNull())
        .addColumn('lease_until', 'text')
        .addColumn('worker', 'text')
        .addColumn('last_error', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('jobs_claim').on('jobs').columns(['queue', 'state', 'run_after']).execute();
      await db.schema.createIndex('jobs_key').on('jobs').columns(['queue', 'job_key', 'state']).execute();
      // Limits (failed logins, uploads) counted in fixed windows that every web replica shares.
      await db.schema.createTable('rate_limits')
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('window_start', 'text', (c) => c.notNull())
        .addColumn('count', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('rate_limits_pk', ['key', 'window_start'])
        .execute();
    },
  },
  '0004-submission-files': {
    async up(db: Kysely<unknown>) {
      // Uploaded files leave the submissions table (see SubmissionFileTable): reads and updates of a submission's
      // state stop touching its megabytes.
      await db.schema.createTable('submission_files')
        .addColumn('submission_id', 'text', (c) => c.primaryKey().references('submissions.id').onDelete('cascade'))
        .addColumn('content', 'text', (c) => c.notNull())
        .execute();
      await sql`insert into submission_files (submission_id, content) select id, content from submissions`.execute(db);
      await db.schema.alterTable('submissions').dropColumn('content').execute();
      // The file's sha256, so the same file sent twice by one team is recognised (filled here for earlier uploads).
      await db.schema.alterTable('submissions').addColumn('content_sha256', 'text').execute();
      const files = db as unknown as Kysely<{ submission_files: { submission_id: string; content: string }; submissions: { id: string; content_sha256: string | null } }>;
      for (const { submission_id } of await files.selectFrom('submission_files').select('submission_id').execute()) {
        const { content } = await files.selectFrom('submission_files').select('content').where('submission_id', '=', submission_id).executeTakeFirstOrThrow();
        await files.updateTable('submissions').set({ content_sha256: sha256Hex(content) }).where('id', '=', submission_id).execute();
      }
      await db.schema.createIndex('submissions_duplicate').on('submissions').columns(['benchmark_id', 'team_id', 'content_sha256']).execute();
    },
  },
  '0005-reader-studies-and-review': {
    async up(db: Kysely<unknown>) {
      // Images of studies and reviews, by content: replicas share the database, not a disk.
      await db.schema.createTable('stored_images')
        .addColumn('sha256', 'text', (c) => c.primaryKey())
        .addColumn('content_type', 'text', (c) => c.notNull())
        .addColumn('byte_size', 'integer', (c) => c.notNull())
        .addColumn('content_base64', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      // The images of a benchmark's questions, when it was loaded with them (reader studies sample from it).
      await db.schema.createTable('benchmark_images')
        .addColumn('benchmark_id', 'text', (c) => c.notNull().references('benchmarks.id').onDelete('cascade'))
        .addColumn('path', 'text', (c) => c.notNull())
        .addColumn('sha256', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('benchmark_images_pk', ['benchmark_id', 'path'])
        .execute();
      await db.schema.createTable('studies')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('benchmark_id', 'text', (c) => c.references('benchmarks.id').onDelete('set null'))
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('source_sha256', 'text', (c) => c.notNull())
        .addColumn('sampling_json', 'text', (c) => c.notNull())
        .addColumn('seed', 'integer', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('allow_edits', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('invites_expire_at', 'text')
        .addColumn('created_by', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('opened_at', 'text')
        .addColumn('closed_at', 'text')
        .execute();
      await db.schema.createTable('study_items')
        .addColumn('study_id', 'text', (c) => c.notNull().references('studies.id').onDelete('cascade'))
        .addColumn('position', 'integer', (c) => c.notNull())
        .addColumn('question_id', 'text', (c) => c.notNull())
        .addColumn('study_ref', 'text', (c) => c.notNull())
        .addColumn('task', 'text', (c) => c.notNull())
        .addColumn('category', 'text', (c) => c.notNull())
        .addColumn('question', 'text', (c) => c.notNull())
        .addColumn('options_json', 'text', (c) => c.notNull())
        .addColumn('gold', 'text', (c) => c.notNull())
        .addColumn('explanation', 'text')
        .addColumn('images_json', 'text', (c) => c.notNull())
        .addColumn('missing_images', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('study_items_pk', ['study_id', 'position'])
        .execute();
      await db.schema.createTable('study_readers')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('study_id', 'text', (c) => c.notNull().references('studies.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
        .addColumn('token_hash', 'text', (c) => c.unique())
        .addColumn('csrf', 'text', (c) => c.notNull())
        .addColumn('order_seed', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('revoked_at', 'text')
        .addColumn('submitted_at', 'text')
        .addColumn('last_seen_at', 'text')
        .execute();
      await db.schema.createIndex('study_readers_study').on('study_readers').column('study_id').execute();
      await db.schema.createTable('study_answers')
        .addColumn('reader_id', 'text', (c) => c.notNull().references('study_readers.id').onDelete('cascade'))
        .addColumn('study_id', 'text', (c) => c.notNull().references('studies.id').onDelete('cascade'))
        .addColumn('position', 'integer', (c) => c.notNull())
        .addColumn('answer', 'text', (c) => c.notNull())
        .addColumn('confidence', 'integer')
        .addColumn('visit_id', 'text', (c) => c.notNull())
        .addColumn('first_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('study_answers_pk', ['reader_id', 'position'])
        .execute();
      await db.schema.createTable('study_answer_events')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('reader_id', 'text', (c) => c.notNull().references('study_readers.id').onDelete('cascade'))
        .addColumn('position', 'integer', (c) => c.notNull())
        .addColumn('answer', 'text')
        .addColumn('confidence', 'integer')
        .addColumn('visit_id', 'text', (c) => c.notNull())
        .addColumn('elapsed_ms', 'integer', (c) => c.notNull())
        .addColumn('client_at', 'text')
        .addColumn('at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('study_answer_events_reader').on('study_answer_events').columns(['reader_id', 'position']).execute();
      await db.schema.createTable('study_models')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('study_id', 'text', (c) => c.notNull().references('studies.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('answers_json', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('study_models_name', ['study_id', 'name'])
        .execute();
      await db.schema.createTable('review_queues')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('source_sha256', 'text', (c) => c.notNull())
        .addColumn('reviewers_per_item', 'integer', (c) => c.notNull())
        .addColumn('created_by', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createTable('review_items')
        .addColumn('queue_id', 'text', (c) => c.notNull().references('review_queues.id').onDelete('cascade'))
        .addColumn('position', 'integer', (c) => c.notNull())
        .addColumn('question_id', 'text', (c) => c.notNull())
        .addColumn('split', 'text', (c) => c.notNull())
        .addColumn('record_json', 'text', (c) => c.notNull())
        .addColumn('report_text', 'text')
        .addColumn('images_json', 'text', (c) => c.notNull())
        .addColumn('missing_images', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('review_items_pk', ['queue_id', 'position'])
        .execute();
      await db.schema.createTable('review_assignments')
        .addColumn('queue_id', 'text', (c) => c.notNull().references('review_queues.id').onDelete('cascade'))
        .addColumn('position', 'integer', (c) => c.notNull())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addPrimaryKeyConstraint('review_assignments_pk', ['queue_id', 'position', 'user_id'])
        .execute();
      await db.schema.createIndex('review_assignments_user').on('review_assignments').columns(['user_id', 'queue_id']).execute();
      await db.schema.createTable('review_decisions')
        .addColumn('queue_id', 'text', (c) => c.notNull().references('review_queues.id').onDelete('cascade'))
        .addColumn('position', 'integer', (c) => c.notNull())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('adjudication', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('clinical_quality', 'integer', (c) => c.notNull())
        .addColumn('explanation_clarity', 'integer', (c) => c.notNull())
        .addColumn('factual_correctness', 'integer', (c) => c.notNull())
        .addColumn('image_alignment', 'integer', (c) => c.notNull())
        .addColumn('difficulty', 'text', (c) => c.notNull())
        .addColumn('category', 'text', (c) => c.notNull())
        .addColumn('decision', 'text', (c) => c.notNull())
        .addColumn('reason', 'text')
        .addColumn('note', 'text')
        .addColumn('edited_json', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('review_decisions_pk', ['queue_id', 'position', 'user_id'])
        .execute();
      await db.schema.createTable('review_versions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('queue_id', 'text', (c) => c.notNull().references('review_queues.id').onDelete('cascade'))
        .addColumn('number', 'integer', (c) => c.notNull())
        .addColumn('created_by', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('disputed_policy', 'text', (c) => c.notNull())
        .addColumn('summary_json', 'text', (c) => c.notNull())
        .addColumn('items_json', 'text', (c) => c.notNull())
        .addUniqueConstraint('review_versions_number', ['queue_id', 'number'])
        .execute();
    },
  },
  '0006-report-generation-board': {
    async up(db: Kysely<unknown>) {
      // A benchmark is VQA (hidden letters) or report generation (hidden reference reports of one track).
      await db.schema.alterTable('benchmarks').addColumn('kind', 'text', (c) => c.notNull().defaultTo('vqa')).execute();
      await db.schema.alterTable('benchmarks').addColumn('track', 'text').execute();
      await db.schema.createTable('rrg_references')
        .addColumn('benchmark_id', 'text', (c) => c.notNull().references('benchmarks.id').onDelete('cascade'))
        .addColumn('position', 'integer', (c) => c.notNull())
        .addColumn('study_id', 'text', (c) => c.notNull())
        .addColumn('reference', 'text', (c) => c.notNull())
        .addColumn('public_json', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('rrg_references_pk', ['benchmark_id', 'position'])
        .addUniqueConstraint('rrg_references_study', ['benchmark_id', 'study_id'])
        .execute();
    },
  },
  '0007-review-rejection-without-ratings': {
    async up(db: Kysely<unknown>) {
      // A rejection needs no ratings or difficulty (docs/review.md): those columns become nullable. SQLite cannot drop
      // NOT NULL in place, so the table is rebuilt the same way on both dialects: rows copied aside, the table made
      // again as before but for those five columns, the rows copied back.
      await sql`create table review_decisions_before_0007 as select * from review_decisions`.execute(db);
      await db.schema.dropTable('review_decisions').execute();
      await db.schema.createTable('review_decisions')
        .addColumn('queue_id', 'text', (c) => c.notNull().references('review_queues.id').onDelete('cascade'))
        .addColumn('position', 'integer', (c) => c.notNull())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('adjudication', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('clinical_quality', 'integer')
        .addColumn('explanation_clarity', 'integer')
        .addColumn('factual_correctness', 'integer')
        .addColumn('image_alignment', 'integer')
        .addColumn('difficulty', 'text')
        .addColumn('category', 'text', (c) => c.notNull())
        .addColumn('decision', 'text', (c) => c.notNull())
        .addColumn('reason', 'text')
        .addColumn('note', 'text')
        .addColumn('edited_json', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('review_decisions_pk', ['queue_id', 'position', 'user_id'])
        .execute();
      const columns = sql.raw('queue_id, position, user_id, adjudication, clinical_quality, explanation_clarity, factual_correctness, image_alignment, difficulty, category, decision, reason, note, edited_json, created_at, updated_at');
      await sql`insert into review_decisions (${columns}) select ${columns} from review_decisions_before_0007`.execute(db);
      await db.schema.dropTable('review_decisions_before_0007').execute();
    },
  },
  '0008-study-publish-consent': {
    async up(db: Kysely<unknown>) {
      // Readers are told before they start whether their scores may go public; studies made before are "no".
      await db.schema.alterTable('studies').addColumn('publish_scores', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      // When the host, closing the study, chose to publish (null: never published).
      await db.schema.alterTable('studies').addColumn('published_at', 'text').execute();
    },
  },
  '0009-change-notifications': {
    async up(db: Kysely<unknown>) {
      // Pages are made once per change of the data they show; on PostgreSQL the server learns of a change by
      // LISTEN instead of asking the database on every request.
      if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
      await sql.raw(`create or replace function cxrbench_notify_change() returns trigger language plpgsql as $$ begin perform pg_notify('${CHANGES_CHANNEL}', ''); return null; end $$`).execute(db);
      const tables = await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE' and table_name not like 'kysely_migration%' order by table_name`.execute(db);
      for (const { name } of tables.rows) await notifyOnChange(db, name);
    },
  },
  '0010-review-others-seen': {
    async up(db: Kysely<unknown>) {
      // When a reviewer first saw the other reviewers' decisions in a queue (its report, a version, a download): from
      // then on their own decisions on the items they share are final (docs/review.md), so a dispute cannot be
      // erased by the one who saw the other side.
      await db.schema.createTable('review_others_seen')
        .addColumn('queue_id', 'text', (c) => c.notNull().references('review_queues.id').onDelete('cascade'))
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('first_seen_at', 'text', (c) => c.notNull())
        .addColumn('first_seen_via', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('review_others_seen_pk', ['queue_id', 'user_id'])
        .execute();
      await notifyOnChange(db, 'review_others_seen');
    },
  },
  '0011-session-flash': {
    async up(db: Kysely<unknown>) {
      // A secret made by a form (a new API token, a team invite code) waits here for the page the form redirects
      // to, sealed with a key only the session's cookie gives (store/session-flash.ts): the plaintext is never stored.
      await db.schema.createTable('session_flashes')
        .addColumn('session_hash', 'text', (c) => c.primaryKey().references('sessions.id_hash').onDelete('cascade'))
        .addColumn('sealed', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .execute();
      await notifyOnChange(db, 'session_flashes');
    },
  },
};
