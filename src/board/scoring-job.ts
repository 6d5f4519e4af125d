import type { PredictionFormat } from '../core/prediction-file.js';
import { parsePredictions } from '../core/prediction-file.js';
import { SCORING_QUEUE, scoringSettings, type JobHandler, type JobQueue } from '../jobs/queue.js';
import type { Store } from '../store/connect.js';
import { completeSubmission, failSubmission, setSubmissionJob, staleSubmissions, startScoring, touchSubmission } from '../store/submissions.js';
import { DEFAULT_SCORE_SETTINGS, scoreSubmission, type ScoreSettings } from './score-submission.js';
import { hiddenItemsOf } from './hidden-items.js';
import { benchmarkById } from '../store/benchmarks.js';
import { referencesOf, scoreRrgUpload } from './rrg-entries.js';

/** Sends a stored submission to be scored and records its job; a submission already waiting is not sent twice. */
export async function enqueueScoring(store: Store, queue: JobQueue, submissionId: string): Promise<void> {
  const jobId = await queue.send(SCORING_QUEUE, { submissionId }, submissionId, scoringSettings());
  if (jobId) await setSubmissionJob(store, submissionId, jobId);
}

/**
 * The scoring job: score a submission from its stored file with the CLI's extraction and scorer, and publish
 * the entry. Idempotent — delivery is at least once, so a submission scored already (or withdrawn) is left as it
 * is, and publishing twice leaves one entry. A failed attempt is retried by the queue; after the last one the
 * submission is marked failed, with why, for its team to retry.
 */
export function scoringHandler(store: Store, worker: string, settings: ScoreSettings = DEFAULT_SCORE_SETTINGS): JobHandler {
  return async (data, attempt) => {
    const submissionId = String(data.submissionId);
    const submission = await startScoring(store, submissionId, worker);
    if (!submission) return;
    try {
      const benchmark = await benchmarkById(store, submission.benchmark_id);
      if (benchmark?.kind === 'rrg') {
        const metrics = await scoreRrgUpload(submission.content, submission.format as PredictionFormat, benchmark, await referencesOf(store, benchmark.id), { ...settings, submissionId });
        // A report-generation entry: ranked by its ranking value; no per-item results (no tiers on continuous scores).
        await completeSubmission(store, submissionId, {
          benchmark_id: submission.benchmark_id, metrics_json: JSON.stringify(metrics), rexrank_overall: metrics.ranking.value, micro_accuracy: metrics.metrics.bleu?.mean ?? 0,
          n: metrics.n, unparseable: metrics.emptyPredictions, item_results: '',
        });
        return;
      }
      const items = await hiddenItemsOf(store, submission.benchmark_id);
      const parsed = parsePredictions(submission.content, submission.format as PredictionFormat);
      const { metrics, itemResults } = scoreSubmission(items, parsed.predictions, settings, parsed.cutShort);
      await completeSubmission(store, submissionId, {
        benchmark_id: submission.benchmark_id, metrics_json: JSON.stringify(metrics), rexrank_overall: metrics.rexrankOverall.value, micro_accuracy: metrics.overall.accuracy.value,
        n: metrics.n, unparseable: metrics.unparseable, item_results: itemResults,
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (attempt.final) await failSubmission(store, submissionId, `scoring failed after ${attempt.attempt} attempt(s): ${message}`);
      throw error;
    }
  };
}

/** How long a waiting or scoring submission may go untouched before the reconciler checks its job. */
export const STALE_AFTER_MS = 60_000;

/**
 * Checks on submissions nothing has touched for a while and puts right what a crash left: a submission stored
 * but never sent (the process died in between), or whose job is gone, is sent again; one whose job failed for
 * good (its last worker died) is marked failed, retryable. Any process may run it, any number of times.
 */
export async function reconcileScoring(store: Store, queue: JobQueue, staleAfterMs = STALE_AFTER_MS): Promise<{ resent: number; failed: number }> {
  const counts = { resent: 0, failed: 0 };
  for (const s of await staleSubmissions(store, new Date(Date.now() - staleAfterMs).toISOString())) {
    const state = s.job_id ? await queue.state(SCORING_QUEUE, s.job_id) : 'unknown';
    if (state === 'waiting' || state === 'active') await touchSubmission(store, s.id);
    else if (state === 'failed') {
      await failSubmission(store, s.id, `scoring did not finish after ${s.attempts} attempt(s) (a worker stopped or timed out); retry it`);
      counts.failed++;
    } else {
      // never sent, job deleted, or a job that ended without publishing (its submission was re-queued): send again
      await touchSubmission(store, s.id);
      await enqueueScoring(store, queue, s.id);
      counts.resent++;
    }
  }
  return counts;
}
