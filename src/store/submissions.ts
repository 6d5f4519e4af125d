import { createHash, randomUUID } from 'node:crypto';
import type { Store } from './connect.js';
import { audit } from './audit.js';
import type { EntryTable, SubmissionKind, SubmissionTable } from './schema.js';

export type Submission = SubmissionTable;
export type Entry = EntryTable;

export interface NewSubmission {
  benchmarkId: string;
  teamId: string | null;
  userId: string | null;
  kind: SubmissionKind;
  fileName: string;
  format: string;
  content: string;
  modelJson: string;
}

/** Why a submission was refused before it was stored. */
export type Refusal = { reason: 'closed' | 'daily-limit' | 'total-limit' | 'duplicate'; message: string };

const today = () => new Date().toISOString().slice(0, 10);

/**
 * Stores a submission in state `queued` if the team is within its limits. The check and the insert are one
 * transaction; on PostgreSQL the team's row is locked first, so concurrent uploads of one team queue up and
 * the limits hold exactly (SQLite runs one write transaction at a time anyway).
 */
export async function reserveSubmission(store: Store, input: NewSubmission): Promise<Submission | Refusal> {
  const contentHash = createHash('sha256').update(input.content).digest('hex');
  return store.db.transaction().execute(async (tx) => {
    const benchmark = await tx.selectFrom('benchmarks').select(['is_open', 'daily_limit', 'total_limit']).where('id', '=', input.benchmarkId).executeTakeFirstOrThrow();
    if (input.kind === 'participant') {
      if (!benchmark.is_open) return { reason: 'closed', message: 'this benchmark is closed for submissions' } as Refusal;
      if (input.teamId && store.dialect === 'postgres') await tx.selectFrom('teams').select('id').where('id', '=', input.teamId).forUpdate().execute();
      const counted = tx.selectFrom('submissions').select((eb) => eb.fn.countAll<string | number>().as('n')).where('benchmark_id', '=', input.benchmarkId).where('team_id', '=', input.teamId).where('kind', '=', 'participant');
      const total = Number((await counted.executeTakeFirstOrThrow()).n);
      if (total >= benchmark.total_limit) return { reason: 'total-limit', message: `your team has used all ${benchmark.total_limit} submissions to this benchmark` } as Refusal;
      const daily = Number((await counted.where('day', '=', today()).executeTakeFirstOrThrow()).n);
      if (daily >= benchmark.daily_limit) return { reason: 'daily-limit', message: `your team has made ${benchmark.daily_limit === 1 ? 'its submission' : `${benchmark.daily_limit} submissions`} today (UTC), the daily limit; try again tomorrow` } as Refusal;
      // The same file again (a double click, a script rerun) would spend a submission and add a copy to the board.
      const same = await tx.selectFrom('submissions').select(['id', 'created_at', 'model_json', 'state']).where('benchmark_id', '=', input.benchmarkId).where('team_id', '=', input.teamId)
        .where('kind', '=', 'participant').where('content_sha256', '=', contentHash).where('state', '!=', 'failed').orderBy('created_at').executeTakeFirst();
      if (same) {
        const name = (JSON.parse(same.model_json) as { name?: string }).name ?? 'a model';
        return { reason: 'duplicate', message: `your team sent this exact file on ${same.created_at.slice(0, 16).replace('T', ' ')} UTC (as "${name}", submission ${same.id}, ${same.state}); it was not stored again and no submission was used` } as Refusal;
      }
    }
    const now = new Date().toISOString();
    const submission: Submission = {
      id: randomUUID(), benchmark_id: input.benchmarkId, team_id: input.teamId, user_id: input.userId, kind: input.kind, state: 'queued', day: today(),
      file_name: input.fileName.slice(0, 200), format: input.format, byte_size: Buffer.byteLength(input.content), model_json: input.modelJson, content_sha256: contentHash,
      error: null, created_at: now, scored_at: null, job_id: null, attempts: 0, worker: null, updated_at: now,
    };
    await tx.insertInto('submissions').values(submission).execute();
    await tx.insertInto('submission_files').values({ submission_id: submission.id, content: input.content }).execute();
    return submission;
  });
}

/**
 * Publishes a scored submission: the entry and the state change in one transaction, so no half-scored entry is
 * ever visible. Idempotent: scoring the same submission twice (at-least-once delivery) leaves one entry; a
 * submission withdrawn meanwhile stays withdrawn. Returns whether it published.
 */
export async function completeSubmission(store: Store, submissionId: string, entry: Omit<Entry, 'submission_id' | 'created_at'>): Promise<boolean> {
  return store.db.transaction().execute(async (tx) => {
    let query = tx.selectFrom('submissions').select(['state', 'error']).where('id', '=', submissionId);
    if (store.dialect === 'postgres') query = query.forUpdate(); // two workers finishing at once: one publishes
    const current = await query.executeTakeFirst();
    if (!current || current.state === 'scored' || current.error === WITHDRAWN) return false;
    const at = new Date().toISOString();
    await tx.deleteFrom('entries').where('submission_id', '=', submissionId).execute();
    await tx.insertInto('entries').values({ ...entry, submission_id: submissionId, created_at: at }).execute();
    await tx.updateTable('submissions').set({ state: 'scored', error: null, worker: null, scored_at: at, updated_at: at }).where('id', '=', submissionId).execute();
    return true;
  });
}

const WITHDRAWN = 'withdrawn by an administrator';

/** Marks a submission failed (retryable by its team), unless it was scored meanwhile. */
export async function failSubmission(store: Store, submissionId: string, error: string): Promise<void> {
  await store.db.updateTable('submissions').set({ state: 'failed', error, worker: null, updated_at: new Date().toISOString() }).where('id', '=', submissionId).where('state', '!=', 'scored').execute();
}

/** A worker takes a submission: `scoring`, by whom, which attempt. Null when there is nothing to do (scored, withdrawn, gone). */
export async function startScoring(store: Store, submissionId: string, worker: string): Promise<(Submission & { content: string }) | null> {
  return store.db.transaction().execute(async (tx) => {
    const submission = await tx.selectFrom('submissions').selectAll().where('id', '=', submissionId).executeTakeFirst();
    if (!submission || submission.state === 'scored' || submission.error === WITHDRAWN) return null;
    const at = new Date().toISOString();
    await tx.updateTable('submissions').set({ state: 'scoring', worker, attempts: submission.attempts + 1, error: null, updated_at: at }).where('id', '=', submissionId).execute();
    const file = await tx.selectFrom('submission_files').select('content').where('submission_id', '=', submissionId).executeTakeFirstOrThrow();
    return { ...submission, state: 'scoring' as const, worker, attempts: submission.attempts + 1, content: file.content };
  });
}

/** Records the scoring job that carries a submission. */
export async function setSubmissionJob(store: Store, submissionId: string, jobId: string): Promise<void> {
  await store.db.updateTable('submissions').set({ job_id: jobId, updated_at: new Date().toISOString() }).where('id', '=', submissionId).execute();
}

/** Submissions waiting or being scored that nothing has touched since `before` (ISO): for the reconciler to check on. */
export async function staleSubmissions(store: Store, before: string, limit = 100) {
  return store.db.selectFrom('submissions').select(['id', 'state', 'job_id', 'attempts', 'updated_at']).where('state', 'in', ['queued', 'scoring'])
    .where((eb) => eb.or([eb('updated_at', '<', before), eb('updated_at', 'is', null)])).orderBy('created_at').limit(limit).execute();
}

/** Marks a submission as looked at by the reconciler (so it is not checked again at once). */
export async function touchSubmission(store: Store, submissionId: string): Promise<void> {
  await store.db.updateTable('submissions').set({ updated_at: new Date().toISOString() }).where('id', '=', submissionId).execute();
}

/** One submission's state, for its status page and the API (no file content). */
export async function submissionStatus(store: Store, submissionId: string) {
  return (await store.db.selectFrom('submissions').innerJoin('benchmarks', 'benchmarks.id', 'submissions.benchmark_id')
    .select(['submissions.id', 'submissions.team_id', 'submissions.benchmark_id', 'submissions.state', 'submissions.error', 'submissions.file_name', 'submissions.byte_size', 'submissions.model_json', 'submissions.created_at', 'submissions.scored_at', 'submissions.attempts', 'submissions.updated_at', 'benchmarks.slug', 'benchmarks.title'])
    .where('submissions.id', '=', submissionId).executeTakeFirst()) ?? null;
}

/** Puts a failed submission back in the queue for a retry; null when it is not the team's, not failed, or withdrawn. */
export async function claimRetry(store: Store, submissionId: string, teamId: string | null, admin: boolean): Promise<Submission | null> {
  return store.db.transaction().execute(async (tx) => {
    let query = tx.selectFrom('submissions').selectAll().where('id', '=', submissionId).where('state', '=', 'failed');
    if (!admin) query = query.where('team_id', '=', teamId);
    const submission = await query.executeTakeFirst();
    if (!submission || submission.error === WITHDRAWN) return null;
    const at = new Date().toISOString();
    await tx.updateTable('submissions').set({ state: 'queued', error: null, job_id: null, updated_at: at }).where('id', '=', submissionId).execute();
    return { ...submission, state: 'queued' as const, error: null, job_id: null, updated_at: at };
  });
}

export async function teamSubmissions(store: Store, teamId: string) {
  return store.db.selectFrom('submissions').innerJoin('benchmarks', 'benchmarks.id', 'submissions.benchmark_id')
    .select(['submissions.id', 'submissions.state', 'submissions.error', 'submissions.file_name', 'submissions.byte_size', 'submissions.model_json', 'submissions.created_at', 'submissions.scored_at', 'benchmarks.slug'])
    .where('submissions.team_id', '=', teamId).orderBy('submissions.created_at', 'desc').execute();
}

/** What changes whenever a benchmark's entries change (an entry published or removed): for caches to compare. */
export async function entriesVersion(store: Store, benchmarkId: string): Promise<string> {
  const row = await store.db.selectFrom('entries').select((eb) => [eb.fn.countAll<string | number>().as('n'), eb.fn.max('created_at').as('last')]).where('benchmark_id', '=', benchmarkId).executeTakeFirst();
  return `${Number(row?.n ?? 0)}|${row?.last ?? ''}`;
}

/** A published entry with its model card and team, for pages; no per-item results. */
export async function publicEntries(store: Store, benchmarkId: string) {
  return store.db.selectFrom('entries').innerJoin('submissions', 'submissions.id', 'entries.submission_id').leftJoin('teams', 'teams.id', 'submissions.team_id')
    .select(['entries.submission_id', 'entries.metrics_json', 'entries.rexrank_overall', 'entries.micro_accuracy', 'entries.n', 'entries.unparseable', 'entries.item_results', 'entries.created_at', 'submissions.kind', 'submissions.model_json', 'teams.name as team_name'])
    .where('entries.benchmark_id', '=', benchmarkId).execute();
}

/** Where an entry belongs (its benchmark) and who made it; its figures come from the leaderboard rows. */
export async function entryById(store: Store, submissionId: string) {
  return (await store.db.selectFrom('entries').innerJoin('submissions', 'submissions.id', 'entries.submission_id').innerJoin('benchmarks', 'benchmarks.id', 'entries.benchmark_id').leftJoin('teams', 'teams.id', 'submissions.team_id')
    .select(['entries.submission_id', 'entries.benchmark_id', 'submissions.kind', 'teams.name as team_name', 'benchmarks.slug', 'benchmarks.title', 'benchmarks.version', 'submissions.created_at'])
    .where('entries.submission_id', '=', submissionId).executeTakeFirst()) ?? null;
}

export async function removeEntry(store: Store, actor: string, submissionId: string): Promise<boolean> {
  return store.db.transaction().execute(async (tx) => {
    const result = await tx.deleteFrom('entries').where('submission_id', '=', submissionId).executeTakeFirst();
    await tx.updateTable('submissions').set({ state: 'failed', error: WITHDRAWN, updated_at: new Date().toISOString() }).where('id', '=', submissionId).execute();
    if (Number(result.numDeletedRows) > 0) await audit(tx, actor, 'entry.remove', { submissionId });
    return Number(result.numDeletedRows) > 0;
  });
}
