import { randomUUID } from 'node:crypto';
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
export type Refusal = { reason: 'closed' | 'daily-limit' | 'total-limit'; message: string };

const today = () => new Date().toISOString().slice(0, 10);

/**
 * Stores a submission in state `scoring` if the team is within its limits. The check and the insert are one
 * transaction; on PostgreSQL the team's row is locked first, so concurrent uploads of one team queue up and
 * the limits hold exactly (SQLite runs one write transaction at a time anyway).
 */
export async function reserveSubmission(store: Store, input: NewSubmission): Promise<Submission | Refusal> {
  return store.db.transaction().execute(async (tx) => {
    const benchmark = await tx.selectFrom('benchmarks').select(['is_open', 'daily_limit', 'total_limit']).where('id', '=', input.benchmarkId).executeTakeFirstOrThrow();
    if (input.kind === 'participant') {
      if (!benchmark.is_open) return { reason: 'closed', message: 'this benchmark is closed for submissions' } as Refusal;
      if (input.teamId && store.dialect === 'postgres') await tx.selectFrom('teams').select('id').where('id', '=', input.teamId).forUpdate().execute();
      const counted = tx.selectFrom('submissions').select((eb) => eb.fn.countAll<string | number>().as('n')).where('benchmark_id', '=', input.benchmarkId).where('team_id', '=', input.teamId).where('kind', '=', 'participant');
      const total = Number((await counted.executeTakeFirstOrThrow()).n);
      if (total >= benchmark.total_limit) return { reason: 'total-limit', message: `your team has used all ${benchmark.total_limit} submissions to this benchmark` } as Refusal;
      const daily = Number((await counted.where('day', '=', today()).executeTakeFirstOrThrow()).n);
      if (daily >= benchmark.daily_limit) return { reason: 'daily-limit', message: `your team has made ${benchmark.daily_limit} submission(s) today (UTC), the daily limit; try again tomorrow` } as Refusal;
    }
    const submission: Submission = {
      id: randomUUID(), benchmark_id: input.benchmarkId, team_id: input.teamId, user_id: input.userId, kind: input.kind, state: 'scoring', day: today(),
      file_name: input.fileName.slice(0, 200), format: input.format, byte_size: Buffer.byteLength(input.content), content: input.content, model_json: input.modelJson,
      error: null, created_at: new Date().toISOString(), scored_at: null,
    };
    await tx.insertInto('submissions').values(submission).execute();
    return submission;
  });
}

/** Publishes a scored submission: the entry and the state change in one transaction, so no half-scored entry is ever visible. */
export async function completeSubmission(store: Store, submissionId: string, entry: Omit<Entry, 'submission_id' | 'created_at'>): Promise<void> {
  await store.db.transaction().execute(async (tx) => {
    await tx.deleteFrom('entries').where('submission_id', '=', submissionId).execute();
    await tx.insertInto('entries').values({ ...entry, submission_id: submissionId, created_at: new Date().toISOString() }).execute();
    await tx.updateTable('submissions').set({ state: 'scored', error: null, scored_at: new Date().toISOString() }).where('id', '=', submissionId).execute();
  });
}

export async function failSubmission(store: Store, submissionId: string, error: string): Promise<void> {
  await store.db.updateTable('submissions').set({ state: 'failed', error }).where('id', '=', submissionId).execute();
}

/** Marks scoring left unfinished by a crash as failed-and-retryable. Called when the server starts. */
export async function markInterrupted(store: Store): Promise<number> {
  const result = await store.db.updateTable('submissions').set({ state: 'failed', error: 'scoring was interrupted (server restart); retry it' }).where('state', '=', 'scoring').executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Puts a failed submission back into `scoring` for a retry; null when it is not the team's or not failed. */
export async function claimRetry(store: Store, submissionId: string, teamId: string | null, admin: boolean): Promise<Submission | null> {
  return store.db.transaction().execute(async (tx) => {
    let query = tx.selectFrom('submissions').selectAll().where('id', '=', submissionId).where('state', '=', 'failed');
    if (!admin) query = query.where('team_id', '=', teamId);
    const submission = await query.executeTakeFirst();
    if (!submission) return null;
    await tx.updateTable('submissions').set({ state: 'scoring', error: null }).where('id', '=', submissionId).execute();
    return { ...submission, state: 'scoring' as const };
  });
}

export async function teamSubmissions(store: Store, teamId: string) {
  return store.db.selectFrom('submissions').innerJoin('benchmarks', 'benchmarks.id', 'submissions.benchmark_id')
    .select(['submissions.id', 'submissions.state', 'submissions.error', 'submissions.file_name', 'submissions.byte_size', 'submissions.model_json', 'submissions.created_at', 'submissions.scored_at', 'benchmarks.slug'])
    .where('submissions.team_id', '=', teamId).orderBy('submissions.created_at', 'desc').execute();
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
    .select(['entries.submission_id', 'entries.benchmark_id', 'submissions.kind', 'teams.name as team_name', 'benchmarks.slug', 'benchmarks.title', 'benchmarks.version'])
    .where('entries.submission_id', '=', submissionId).executeTakeFirst()) ?? null;
}

export async function removeEntry(store: Store, actor: string, submissionId: string): Promise<boolean> {
  return store.db.transaction().execute(async (tx) => {
    const result = await tx.deleteFrom('entries').where('submission_id', '=', submissionId).executeTakeFirst();
    await tx.updateTable('submissions').set({ state: 'failed', error: 'withdrawn by an administrator' }).where('id', '=', submissionId).execute();
    if (Number(result.numDeletedRows) > 0) await audit(tx, actor, 'entry.remove', { submissionId });
    return Number(result.numDeletedRows) > 0;
  });
}
