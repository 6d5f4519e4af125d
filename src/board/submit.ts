import { formatOfFileName, parsePredictions, type PredictionFormat } from '../core/prediction-file.js';
import type { Letter } from '../core/question.js';
import { benchmarkItems, type Benchmark } from '../store/benchmarks.js';
import type { Store } from '../store/connect.js';
import { claimRetry, completeSubmission, failSubmission, reserveSubmission, type Submission } from '../store/submissions.js';
import type { SubmissionKind } from '../store/schema.js';
import type { HiddenItem } from './hidden-item.js';
import type { ModelCard } from './model-card.js';
import { checkSubmission, DEFAULT_SCORE_SETTINGS, scoreSubmission, type ScoreSettings, type SubmissionProblem } from './score-submission.js';

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
  | { ok: false; status: 403 | 429; message: string }
  | { ok: false; status: 500; submissionId: string; message: string };

// Hidden items never change once loaded: cache them per benchmark so a submission does not re-read 41K rows.
const itemCache = new Map<string, Promise<HiddenItem[]>>();

export function hiddenItemsOf(store: Store, benchmarkId: string): Promise<HiddenItem[]> {
  let items = itemCache.get(benchmarkId);
  if (!items) {
    items = benchmarkItems(store, benchmarkId).then((rows) => rows.map((r) => ({
      position: r.position, questionId: r.question_id, studyId: r.study_id, task: r.task, category: r.category, subcategory: r.subcategory,
      gold: r.gold as Letter, options: JSON.parse(r.options_json) as HiddenItem['options'],
    })));
    items.catch(() => itemCache.delete(benchmarkId));
    itemCache.set(benchmarkId, items);
  }
  return items;
}

async function scoreAndPublish(store: Store, submission: Submission, items: readonly HiddenItem[], predictions: ReadonlyMap<string, string>, settings: ScoreSettings): Promise<SubmitResult> {
  try {
    const { metrics, itemResults } = scoreSubmission(items, predictions, settings);
    await completeSubmission(store, submission.id, {
      benchmark_id: submission.benchmark_id, metrics_json: JSON.stringify(metrics), rexrank_overall: metrics.rexrankOverall.value, micro_accuracy: metrics.overall.accuracy.value,
      n: metrics.n, unparseable: metrics.unparseable, item_results: itemResults,
    });
    return { ok: true, submission: { ...submission, state: 'scored' } };
  } catch (error) {
    const message = `scoring failed: ${(error as Error).message}`;
    await failSubmission(store, submission.id, message);
    return { ok: false, status: 500, submissionId: submission.id, message };
  }
}

/**
 * Takes an upload through the whole path: parse and check every id before anything is stored (all problems
 * listed), reserve a slot within the team's limits, score with the CLI's extraction and scorer, and publish
 * the entry atomically. A crash between reserve and publish leaves a `scoring` submission and no entry;
 * `markInterrupted` at start-up turns it into a retryable failure.
 */
export async function submitPredictions(store: Store, benchmark: Benchmark, input: SubmissionInput, settings: ScoreSettings = DEFAULT_SCORE_SETTINGS): Promise<SubmitResult> {
  const items = await hiddenItemsOf(store, benchmark.id);
  const format = input.format ?? formatOfFileName(input.fileName);
  const parsed = parsePredictions(input.content, format);
  const problems = checkSubmission(parsed, items);
  if (problems.length > 0) return { ok: false, status: 400, problems };
  const reserved = await reserveSubmission(store, { benchmarkId: benchmark.id, teamId: input.teamId, userId: input.userId, kind: input.kind, fileName: input.fileName, format, content: input.content, modelJson: JSON.stringify(input.model) });
  if ('reason' in reserved) return { ok: false, status: reserved.reason === 'closed' ? 403 : 429, message: reserved.message };
  return scoreAndPublish(store, reserved, items, parsed.predictions, settings);
}

/** Scores a failed (e.g. interrupted) submission again from its stored file. */
export async function retrySubmission(store: Store, submissionId: string, teamId: string | null, admin: boolean, settings: ScoreSettings = DEFAULT_SCORE_SETTINGS): Promise<SubmitResult | null> {
  const submission = await claimRetry(store, submissionId, teamId, admin);
  if (!submission) return null;
  const items = await hiddenItemsOf(store, submission.benchmark_id);
  const parsed = parsePredictions(submission.content, submission.format as PredictionFormat);
  return scoreAndPublish(store, submission, items, parsed.predictions, settings);
}
