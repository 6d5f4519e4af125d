import type { PredictionFormat } from '../core/prediction-file.js';
import { readReportPairs, type Track } from '../rrg/report-pairs.js';
import { MODEL_METRICS, scoreReports, type MetricName, type RrgResults } from '../rrg/score-reports.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CxrError } from '../core/errors.js';
import { openAICompatibleAdapter } from '../models/openai-compatible.js';
import { GreenJudge } from '../rrg/green-judge.js';
import { firstOfBackends, HttpScoringService } from '../rrg/scoring-service.js';
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

/** GREEN's judge as the board's environment names it (docs/board.md), or null when CXRBENCH_RRG_GREEN is unset. */
export interface BoardGreenConfig {
  model: string;
  endpoints: string[];
  apiKeyEnv: string | null;
  journalDir: string;
}

/**
 * Reads CXRBENCH_RRG_GREEN (`openai:<model id>`), CXRBENCH_RRG_GREEN_ENDPOINT (base URLs, comma-separated),
 * CXRBENCH_RRG_GREEN_API_KEY_ENV and CXRBENCH_RRG_GREEN_JOURNAL_DIR; a wrong setting is an error naming the variable,
 * so a server refuses to start rather than fail every scoring.
 */
export function boardGreenConfig(env: NodeJS.ProcessEnv = process.env): BoardGreenConfig | null {
  const spec = env.CXRBENCH_RRG_GREEN;
  if (!spec) return null;
  const model = /^openai:(.+)$/.exec(spec)?.[1];
  if (!model) throw new CxrError('bad-option', `CXRBENCH_RRG_GREEN=${spec}: expected openai:<model id> (GREEN's judge behind an OpenAI-compatible endpoint)`);
  const endpoints = (env.CXRBENCH_RRG_GREEN_ENDPOINT ?? '').split(',').map((e) => e.trim()).filter(Boolean);
  if (endpoints.length === 0) throw new CxrError('bad-option', 'CXRBENCH_RRG_GREEN is set but CXRBENCH_RRG_GREEN_ENDPOINT is not: give the judge\'s base URL (e.g. http://127.0.0.1:8000/v1)');
  for (const e of endpoints) if (!/^https?:\/\/\S+$/.test(e)) throw new CxrError('bad-option', `CXRBENCH_RRG_GREEN_ENDPOINT: ${e} is not an http(s) URL`);
  // The server sets it to <data dir>/green-journal; a one-off scoring outside a server keeps its replies in the temp folder.
  const journalDir = env.CXRBENCH_RRG_GREEN_JOURNAL_DIR || join(tmpdir(), 'cxrbench-green-journal');
  const apiKeyEnv = env.CXRBENCH_RRG_GREEN_API_KEY_ENV || null;
  if (apiKeyEnv && !env[apiKeyEnv]) throw new CxrError('bad-option', `CXRBENCH_RRG_GREEN_API_KEY_ENV names ${apiKeyEnv}, which is not set`);
  return { model, endpoints, apiKeyEnv, journalDir };
}

/** The judge for one submission: its replies journaled in a file of its own, so a retried job asks only what is missing. */
function boardGreenJudge(config: BoardGreenConfig, submissionId: string): GreenJudge {
  const adapter = openAICompatibleAdapter({ name: config.model, model: config.model, endpoints: config.endpoints, apiKeyEnv: config.apiKeyEnv, headers: {}, query: {}, systemPrompt: true, imageDetail: null });
  return new GreenJudge({ adapter, journalFile: join(config.journalDir, `${submissionId.replace(/[^A-Za-z0-9_-]/g, '_')}.jsonl`) });
}

/**
 * Scores a stored report-generation upload: BLEU-2, ROUGE-L and, with a scoring service, the model metrics and
 * RadCliQ-v1; GREEN from the board's judge when one is configured. Ranked by 1/RadCliQ-v1; when its mean is ≤ 0, by
 * RadCliQ-v1 itself (said so); without the model metrics, by BLEU-2 (said so on the page). A judge that gave no reply
 * for some study fails the attempt (the queue retries it; replies given are kept) rather than store an entry
 * without GREEN.
 */
export async function scoreRrgUpload(content: string, format: PredictionFormat, benchmark: Pick<Benchmark, 'track'>, references: ReadonlyMap<string, string>, options: { resamples: number; seed: number; submissionId?: string }): Promise<RrgEntryMetrics> {
  const track = (benchmark.track ?? 'findings-impression') as Track;
  const read = readReportPairs(content, uploadName(format), track, references);
  if (read.problems.length > 0) throw new Error(`the upload no longer matches the references: ${read.problems[0]}`);
  const service = boardScoringService();
  const greenConfig = boardGreenConfig();
  const judge = greenConfig ? boardGreenJudge(greenConfig, options.submissionId ?? 'cli') : null;
  const backend = firstOfBackends([judge ? { name: `GREEN judge ${judge.spec.name}`, greenJudgements: (pairs) => judge.judge(pairs) } : null, service]);
  const metrics: MetricName[] = service ? ['bleu', 'rouge_l', ...MODEL_METRICS, 'radcliq_v1'] : judge ? ['bleu', 'rouge_l', 'green'] : ['bleu', 'rouge_l'];
  const results = await scoreReports(read.pairs, { metrics, backend, resamples: options.resamples, seed: options.seed, emptyPredictions: read.emptyPredictions });
  // Counts only: a judge's error text could quote what it was sent, and the references are hidden.
  if (results.green_failed.length > 0) throw new Error(`the GREEN judge gave no reply for ${results.green_failed.length} of ${read.pairs.length} studies; scoring is retried, asking about those only`);
  const ranking: RrgEntryMetrics['ranking'] = results.ranking
    ? { value: results.ranking.value, by: results.ranking.kind === 'inverse' ? 'inverse-radcliq' : 'radcliq' }
    : { value: results.metrics.bleu!.mean, by: 'bleu' };
  return { kind: 'rrg', track, metrics: results.metrics, not_computed: results.not_computed, ranking, n: read.pairs.length, emptyPredictions: read.emptyPredictions.length, backend: results.settings.backend };
}
