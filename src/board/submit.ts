import { formatOfFileName, parsePredictions, type PredictionFormat } from '../core/prediction-file.js';
import { benchmarkById, type Benchmark } from '../store/benchmarks.js';
import type { Track } from '../rrg/report-pairs.js';
import { checkRrgUpload, referencesOf } from './rrg-entries.js';
import type { Store } from '../store/connect.js';
import { claimRetry, reserveSubmission, type Refusal, type Submission } from '../store/submissions.js';
import type { JobQueue } from '../jobs/queue.js';
import { hiddenItemsOf } from './hidden-items.js';
import { enqueueScoring, scoringHandler } from './scoring-job.js';
import type { ScoreSettings } from './score-submission.js';
import type { SubmissionKind } from '../store/schema.js';
import type { ModelCard } from './model-card.js';
import { checkSubmission, type SubmissionProblem } from './score-submission.js';

export interface SubmissionInput {
  fileName: string;
  content: string;
  format?: PredictionFormat;
  model: ModelCard;
  teamId: string | null;
  userId: string | null;
  kind: SubmissionKind;
}

export type SubmitResult =
  | { ok: true; submission: Submission }
  | { ok: false; status: 400; problems: SubmissionProblem[] }
  | { ok: false; status: 403 | 409 | 429; message: string };

/**
 * Takes an upload through the request's part of the path: parse and check every id before anything is stored
 * (all problems listed at once), reserve a slot within the team's limits, store it `queued` (`intake`: here, or
 * in the server's upload thread), and send it to the scoring queue. Scoring happens in a worker, never in the
 * request. A crash after storing and before sending is put right by the reconciler.
 */
export async function submitPredictions(store: Store, dispatch: ScoringDispatch, benchmark: Benchmark, input: SubmissionInput, intake: UploadIntake = intakeHere(store)): Promise<SubmitResult> {
  const taken = await intake(benchmark.id, input);
  if ('problems' in taken) return { ok: false, status: 400, problems: taken.problems };
  if ('refusal' in taken) return { ok: false, status: taken.refusal.reason === 'closed' ? 403 : taken.refusal.reason === 'duplicate' ? 409 : 429, message: taken.refusal.message };
  await dispatch(taken.submission.id);
  return { ok: true, submission: taken.submission };
}

/** What taking an upload in came to: its problems (nothing stored), a refusal by the team's limits, or the stored submission. */
export type IntakeResult = { problems: SubmissionProblem[] } | { refusal: Refusal } | { submission: Submission };

/** Checks an upload and, when it has no problem, stores it within the team's limits. */
export type UploadIntake = (benchmarkId: string, input: SubmissionInput) => Promise<IntakeResult>;

/**
 * The intake run in this thread (the CLI). The server runs it in a thread of its own (server/check-pool.ts):
 * parsing, hashing and writing a 41K-line file there keeps the web thread's pages fast while uploads arrive.
 */
export function intakeHere(store: Store): UploadIntake {
  const check = checkHere(store);
  return async (benchmarkId, input) => {
    const format = input.format ?? formatOfFileName(input.fileName);
    const problems = await check(benchmarkId, input.content, format);
    if (problems.length > 0) return { problems };
    const reserved = await reserveSubmission(store, { benchmarkId, teamId: input.teamId, userId: input.userId, kind: input.kind, fileName: input.fileName, format, content: input.content, modelJson: JSON.stringify(input.model) });
    return 'reason' in reserved ? { refusal: reserved } : { submission: reserved };
  };
}

/** Parses an upload and checks it against a benchmark's hidden items: every problem, or none. */
export type UploadCheck = (benchmarkId: string, content: string, format: PredictionFormat) => Promise<SubmissionProblem[]>;

/** The check alone (parse, then every id against the hidden set), in this thread. */
export function checkHere(store: Store): UploadCheck {
  return async (benchmarkId, content, format) => {
    const benchmark = await benchmarkById(store, benchmarkId);
    if (benchmark?.kind === 'rrg') return checkRrgUpload(content, format, (benchmark.track ?? 'findings-impression') as Track, await referencesOf(store, benchmarkId));
    return checkSubmission(parsePredictions(content, format), await hiddenItemsOf(store, benchmarkId));
  };
}

/** Puts a failed (e.g. interrupted) submission back in the scoring queue; null when it is not the caller's to retry. */
export async function retrySubmission(store: Store, dispatch: ScoringDispatch, submissionId: string, teamId: string | null, admin: boolean): Promise<Submission | null> {
  const submission = await claimRetry(store, submissionId, teamId, admin);
  if (!submission) return null;
  await dispatch(submission.id);
  return submission;
}

/** What happens to a stored submission: sent to the queue (the server), or scored at once (the admin CLI). */
export type ScoringDispatch = (submissionId: string) => Promise<void>;

/** Dispatch to the scoring queue; a failed send is left to the reconciler (the submission is stored). */
export function viaQueue(store: Store, queue: JobQueue): ScoringDispatch {
  return (submissionId) => enqueueScoring(store, queue, submissionId).catch(() => undefined);
}

/** Dispatch that scores in this process (the admin CLI, which has no workers to wait for). */
export function scoreHere(store: Store, settings?: ScoreSettings): ScoringDispatch {
  const handler = scoringHandler(store, `cli-${process.pid}`, settings);
  return (submissionId) => handler({ submissionId }, { id: 'inline', attempt: 1, final: true });
}
