import type { PredictionFormat } from '../core/prediction-file.js';
import { readReportPairs, type Track } from '../rrg/report-pairs.js';
import { MODEL_METRICS, scoreReports, type MetricName, type RrgResults } from '../rrg/score-reports.js';
import { HttpScoringService } from '../rrg/scoring-service.js';
import { rrgReferences, type Benchmark } from '../store/benchmarks.js';
import type { Store } from '../store/connect.js';
import type { SubmissionProblem } from './score-submission.js';

// References never change once loaded: read once per benchmark (per process or thread).
const referenceCache = new Map<string, Promise<Map<string, string>>>();

/** The hidden references of a report-generation benchmark, loaded once. */
export function referencesOf(store: Store, benchmarkId: string): Promise<Map<string, string>> {
  let refs = referenceCache.get(benchmarkId);
  if (!refs) {
    refs = rrgReferences(store, benchmarkId);
    refs.catch(() => referenceCache.delete(benchmarkId));
    referenceCache.set(benchmarkId, refs);
  }
  return refs;
}

const uploadName = (format: PredictionFormat) => (format === 'jsonl' ? 'upload.jsonl' : 'upload.json');

/**
 * Every problem of a report-generation upload against the hidden references, before anything is stored: not
 * JSON, a prediction that is not text, ids missing or extra (counted, first ones named). The references' text is
 * never in a message.
 */
export function checkRrgUpload(content: string, format: PredictionFormat, track: Track, references: ReadonlyMap<string, string>): SubmissionProblem[] {
  if (format === 'csv') return [{ code: 'not-parseable', count: 1, firstIds: [], message: "a report-generation benchmark takes ReXrank's JSON (keyed by study, with model_prediction) or JSONL {id, prediction}, not CSV" }];
  const read = readReportPairs(content, uploadName(format), track, references);
  return read.problems.map((message) => ({ code: 'not-parseable', count: 1, firstIds: [], message }));
}

/** What a report-generation entry stores: the metrics with intervals, what was not computed, and the ranking value. */
export interface RrgEntryMetrics {
  kind: 'rrg';
  track: Track;
  metrics: RrgResults['metrics'];
  not_computed: RrgResults['not_computed'];
  ranking: { value: number; by: 'inverse-radcliq' | 'radcliq' | 'bleu' };
  n: number;
  emptyPredictions: number;
  backend: string | null;
}

/** The scoring service the board's workers use for model-based metrics (CXRBENCH_RRG_SERVICE), or none. */
export function boardScoringService(): HttpScoringService | null {
  const url = process.env.CXRBENCH_RRG_SERVICE;
  return url && /^https?:\/\/\S+$/.test(url) ? new HttpScoringService(url) : null;
}

/**
 * Scores a stored report-generation upload: BLEU-2, ROUGE-L and, with a scoring service, the model metrics and
 * RadCliQ-v1. Ranked by 1/RadCliQ-v1; when its mean is ≤ 0, by RadCliQ-v1 itself (said so); without the model
 * metrics, by BLEU-2 (said so on the page).
 */
export async function scoreRrgUpload(content: string, format: PredictionFormat, benchmark: Pick<Benchmark, 'track'>, references: ReadonlyMap<string, string>, options: { resamples: number; seed: number }): Promise<RrgEntryMetrics> {
  const track = (benchmark.track ?? 'findings-impression') as Track;
  const read = readReportPairs(content, uploadName(format), track, references);
  if (read.problems.length > 0) throw new Error(`the upload no longer matches the references: ${read.problems[0]}`);
  const backend = boardScoringService();
  const metrics: MetricName[] = backend ? ['bleu', 'rouge_l', ...MODEL_METRICS, 'radcliq_v1'] : ['bleu', 'rouge_l'];
  const results = await scoreReports(read.pairs, { metrics, backend, resamples: options.resamples, seed: options.seed, emptyPredictions: read.emptyPredictions });
  const ranking: RrgEntryMetrics['ranking'] = results.ranking
    ? { value: results.ranking.value, by: results.ranking.kind === 'inverse' ? 'inverse-radcliq' : 'radcliq' }
    : { value: results.metrics.bleu!.mean, by: 'bleu' };
  return { kind: 'rrg', track, metrics: results.metrics, not_computed: results.not_computed, ranking, n: read.pairs.length, emptyPredictions: read.emptyPredictions.length, backend: results.settings.backend };
}
