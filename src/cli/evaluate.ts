import { createHash } from 'node:crypto';
import { createReadStream, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { CxrError } from '../core/errors.js';
import type { RunManifest } from '../core/manifest.js';
import type { GenerationParams } from '../core/model-io.js';
import { mergeRequestParams, type RequestParams } from '../core/request-params.js';
import type { Question } from '../core/question.js';
import { TOOL_VERSION } from '../core/version.js';
import { detectLayout, type DatasetLayout } from '../dataset/layout.js';
import { readQuestions } from '../dataset/read-dataset.js';
import { drawStratifiedSample, type SampleSpec, type StratifiedSample } from '../dataset/stratified-sample.js';
import { resolveImagePath } from '../dataset/image-path.js';
import { extractorInfo } from '../extract/extract.js';
import { IMAGE_ORDER } from '../prompt/build-prompt.js';
import { DEFAULT_OPEN_TEMPLATE, isTemplatePath, loadTemplate } from '../prompt/template.js';
import type { OpenEndedScores } from '../core/open-ended.js';
import { openAnswers, openScoresOf } from './open-scores.js';
import { openSavedRun } from './run-folder.js';
import { savedRunOutcomes } from './saved-run-outcomes.js';
import { openRunFolder, runEvaluation, RUN_FILES, writeManifest, type RunOptions, type RunProgress, type RunResult } from '../runner/run.js';
import { runBatchEvaluation } from '../runner/batch.js';
import { summarizeOutcomes, type RunSummary } from '../score/summary.js';
import { consistencyReport, type AnswerPair, type ConsistencyReport } from '../score/consistency.js';
import { permuteOptions } from '../core/permute-options.js';
import { keyedSeed } from '../core/seeded-random.js';
import { resolveModel, type EndpointOptions } from './model-spec.js';
import { costUsd, type Pricing } from '../runner/budget.js';
import type { EndpointAnswerJudge, JudgeStats } from '../judge/answer-judge.js';
import { judgeFromFlags, judgeManifest, type JudgeFlags } from './judge-options.js';
import { makeOutputFolder, writeTextAtomically } from './write-output.js';
import { checkTextFile } from './read-text-file.js';

/** Everything `cxrbench eval` (and the demo) can set. */
export interface EvaluateSettings extends EndpointOptions {
  data: string;
  split: string;
  model: string;
  out?: string;
  prompt: string;
  patientContext: boolean;
  maxImages: number | null;
  maxPixels: number | null;
  images?: string;
  /** Null: the preset's, else 0. */
  temperature: number | null;
  /** Null: the preset's, else {@link DEFAULT_MAX_TOKENS}. */
  maxTokens: number | null;
  /** `--param key=<json>` texts, laid over the preset's request options. */
  requestParams: string[];
  topP?: number;
  seed: number;
  concurrency: number;
  adaptive: boolean;
  maxAttempts: number;
  timeoutMs: number;
  retryBaseMs: number;
  tokenBudget: number | null;
  /** Stop once the estimated cost reaches this many US dollars, at `pricing`. */
  costBudgetUsd: number | null;
  /** The provider's price, for the cost budget and the cost shown in the summary. */
  pricing: Pricing | null;
  retryErrors: boolean;
  strict: boolean;
  limit: number | null;
  /** Open-ended (`--open`): the questions without options, scored by text against the correct option (and by the judge). */
  open?: boolean;
  /** Ask a stratified sample of the split instead of all of it (`--sample`, `--stratify`; seeded by `seed`). */
  sample?: Omit<SampleSpec, 'seed'>;
  /** Use the provider's batch API instead of online requests, polling every this many seconds. */
  batchPollSeconds?: number;
  /** Re-ask this many answered questions with options permuted, and report answer consistency per task. */
  shuffleCheck?: number;
  /** Ask a judge model about the outputs the rules cannot read. */
  judge?: JudgeFlags;
  onProgress?: (p: RunProgress) => void;
  signal?: AbortSignal;
}

/** Completion tokens asked for when neither --max-tokens nor the preset says (enough for an answer and a short explanation, not for thinking). */
export const DEFAULT_MAX_TOKENS = 512;

/** The defaults of `cxrbench eval`, for callers that set only what they care about (the demo, tests). */
export function evaluateSettings(required: Pick<EvaluateSettings, 'data' | 'model'> & Partial<EvaluateSettings>): EvaluateSettings {
  return {
    split: 'test', endpoint: [], header: [], query: [], systemPrompt: true, imageDetail: null,
    prompt: 'rexvqa-json', patientContext: false, maxImages: null, maxPixels: null,
    temperature: null, maxTokens: null, requestParams: [], seed: 0, concurrency: 8, adaptive: false, maxAttempts: 5, timeoutMs: 120_000, retryBaseMs: 1000,
    tokenBudget: null, costBudgetUsd: null, pricing: null, retryErrors: false, strict: false, limit: null,
    ...required,
  };
}

/** The request options of a run (the preset's, overlaid by --param), or nothing when there are none (manifests of runs without stay as they were). */
function requestParamsOf(presetParams: RequestParams, given: readonly string[]): Pick<GenerationParams, 'requestParams'> {
  const merged = mergeRequestParams(presetParams, given);
  return Object.keys(merged).length > 0 ? { requestParams: merged } : {};
}

/** sha256 of a file's bytes, streamed (the dataset identity manifests record). */
export async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function* sampled(questions: AsyncIterable<Question>, ids: ReadonlySet<string>): AsyncGenerator<Question> {
  for await (const q of questions) if (ids.has(q.id)) yield q;
}

async function* limited(questions: AsyncIterable<Question>, limit: number | null): AsyncGenerator<Question> {
  if (limit === 0) return;
  let n = 0;
  for await (const q of questions) {
    yield q;
    if (limit !== null && ++n >= limit) return;
  }
}

function safeName(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]+/g, '_');
}

/** The result of an evaluation: where it is, what it found. */
export interface Evaluation {
  outDir: string;
  manifest: RunManifest;
  result: RunResult;
  summary: RunSummary;
  shuffleCheck?: ConsistencyReport;
  /** What the judge did, when one was used. */
  judge?: JudgeStats;
  /** The text scores of an open-ended run. */
  openEnded?: OpenEndedScores;
}

/**
 * Records the extraction settings of the latest scoring in a resumed run's manifest (outcomes are recomputed
 * from the journal each time, so the manifest must say how the current ones were read).
 */
function recordExtractor(outDir: string, stored: RunManifest, extractor: RunManifest['extractor']): RunManifest {
  if (JSON.stringify(stored.extractor) === JSON.stringify(extractor)) return stored;
  const updated = { ...stored, extractor };
  writeManifest(outDir, updated);
  return updated;
}

async function warnIfUnreachable(judge: EndpointAnswerJudge): Promise<void> {
  try {
    await judge.preflight(AbortSignal.timeout(15_000));
  } catch (error) {
    process.stderr.write(`cxrbench: warning: the judge ${judge.model} cannot be reached now (${error instanceof Error ? error.message : String(error)}); outputs the rules cannot read stay unparseable unless it answers\n`);
  }
}

/** Prepares and runs (or resumes) one evaluation, then writes its summary. */
export async function evaluate(settings: EvaluateSettings): Promise<Evaluation> {
  if (settings.costBudgetUsd !== null && !settings.pricing) throw new CxrError('bad-option', '--cost-budget needs --price <input>/<output> (US dollars per million tokens, from your provider\'s price list)');
  const layout: DatasetLayout = detectLayout(settings.data);
  const file = layout.files.find((f) => f.split === settings.split);
  if (!file) throw new CxrError('bad-option', `--split ${settings.split}: ${settings.data} has splits ${layout.files.map((f) => f.split).join(', ')}`);
  const trainFile = layout.files.find((f) => f.split === 'train');
  const { adapter, presetMaxImages, preset } = await resolveModel(settings.model, settings, settings.seed, () => (trainFile ? readQuestions(layout, ['train']) : null));
  if (adapter.preflight) {
    try {
      await adapter.preflight(AbortSignal.timeout(15_000));
    } catch (error) {
      throw new CxrError('model-config', `--model ${settings.model}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  // A template named by path is read whole: checked first (a device or pipe would never end).
  // --open with the default template asks with the open one; any template must be of the run's mode.
  const promptName = settings.open && settings.prompt === 'rexvqa-json' ? DEFAULT_OPEN_TEMPLATE : settings.prompt;
  if (isTemplatePath(promptName)) checkTextFile(promptName, '--prompt');
  const template = loadTemplate(promptName);
  if (settings.open && template.mode !== 'open') throw new CxrError('bad-option', `--prompt ${promptName}: a multiple-choice template; --open needs an open one (${DEFAULT_OPEN_TEMPLATE}, or a file with "mode": "open")`);
  if (!settings.open && template.mode === 'open') throw new CxrError('bad-option', `--prompt ${promptName}: an open-ended template (no options); add --open, or choose a multiple-choice template`);
  if (settings.open && settings.shuffleCheck) throw new CxrError('bad-option', '--shuffle-check permutes the options, which an --open run does not show; run it on the multiple-choice run');
  if (settings.open && adapter.spec.baseline) throw new CxrError('bad-option', `--open: the baseline ${adapter.spec.name} picks letters and cannot answer without options; evaluate a model (or replay a file of open answers)`);
  const maxImages = settings.maxImages ?? presetMaxImages;
  if (preset?.retired) process.stderr.write(`cxrbench: warning: preset ${preset.name} is retired: ${preset.retired}\n`);
  const params: GenerationParams = {
    temperature: settings.temperature ?? preset?.temperature ?? 0, maxTokens: settings.maxTokens ?? preset?.maxTokens ?? DEFAULT_MAX_TOKENS, ...(settings.topP !== undefined ? { topP: settings.topP } : {}), seed: settings.seed,
    ...requestParamsOf(preset?.params ?? {}, settings.requestParams),
  };
  if (settings.sample && settings.limit !== null) throw new CxrError('bad-option', '--limit and --sample cannot be combined: --limit takes the first n questions of the split, --sample a stratified sample of it; give one');
  const sampleSpec = settings.sample ? { ...settings.sample, seed: settings.seed } : null;
  let count = 0;
  let sample: StratifiedSample | null = null;
  if (sampleSpec) ({ count, sample } = await drawStratifiedSample(readQuestions(layout, [settings.split]), sampleSpec));
  else for await (const _ of readQuestions(layout, [settings.split])) count++;
  const questions = () => (sample ? sampled(readQuestions(layout, [settings.split]), sample.ids) : limited(readQuestions(layout, [settings.split]), settings.limit));
  const selected = sample ? sample.size : settings.limit === null ? count : Math.min(count, settings.limit);
  const datasetName = basename(layout.root === '.' ? process.cwd() : layout.root);
  const outDir = settings.out ?? join('runs', safeName(`${datasetName}-${settings.split}-${adapter.spec.name}${settings.open ? '-open' : ''}`));
  makeOutputFolder(outDir, '--out');
  const extractor = extractorInfo({ strict: settings.strict });
  const manifest: RunManifest = {
    schema: 1,
    toolVersion: TOOL_VERSION,
    createdAt: new Date().toISOString(),
    dataset: { name: datasetName, path: file.path, split: settings.split, sha256: await sha256File(file.path), count, selected },
    adapter: adapter.spec,
    prompt: { name: template.name, version: template.version, sha256: template.sha256, patientContext: settings.patientContext },
    images: { maxImages, maxPixels: settings.maxPixels, detail: settings.imageDetail, order: IMAGE_ORDER },
    extractor: { name: extractor.name, version: extractor.version, strict: extractor.strict },
    params,
    seed: settings.seed,
    ...(settings.open ? { mode: 'open' as const } : {}),
    ...(sample && sampleSpec ? { sample: { size: sample.size, share: sampleSpec.size.kind === 'share' ? sampleSpec.size.share : null, stratify: sampleSpec.stratify, seed: sampleSpec.seed, strata: sample.strata } } : {}),
  };
  const judge = settings.judge ? await judgeFromFlags(settings.judge, join(outDir, RUN_FILES.judge)) : null;
  if (judge) manifest.extractor.judge = judgeManifest(judge, settings.open === true);
  const stored = recordExtractor(outDir, openRunFolder(outDir, manifest), manifest.extractor);
  if (judge) await warnIfUnreachable(judge);
  if (settings.batchPollSeconds !== undefined && !adapter.batch) {
    throw new CxrError('model-config', `--batch: ${adapter.spec.kind}:${adapter.spec.name} has no batch API (OpenAI-compatible endpoints with /v1/files and /v1/batches do)`);
  }
  const batch = settings.batchPollSeconds !== undefined ? { pollSeconds: settings.batchPollSeconds, maxFileBytes: 190_000_000, maxRequests: 50_000 } : null;
  const run = (dir: string, items: () => AsyncIterable<Question>) => (batch ? (o: RunOptions) => runBatchEvaluation(o, batch) : runEvaluation)({
    outDir: dir,
    questions: items,
    resolveImage: (_question, image) => resolveImagePath(image.path, file.baseDir, settings.images ?? 'default'),
    adapter,
    template,
    patientContext: settings.patientContext,
    maxImages,
    imageEncoding: { maxPixels: settings.maxPixels },
    imageDetail: settings.imageDetail,
    params,
    concurrency: settings.concurrency,
    adaptiveConcurrency: settings.adaptive,
    retry: { maxAttempts: settings.maxAttempts, baseDelayMs: settings.retryBaseMs, maxDelayMs: 60_000 },
    timeoutMs: settings.timeoutMs,
    budget: { tokens: settings.tokenBudget, usd: settings.costBudgetUsd !== null && settings.pricing ? { limit: settings.costBudgetUsd, pricing: settings.pricing } : null },
    retryErrors: settings.retryErrors,
    strictExtraction: settings.strict,
    ...(settings.open ? { openEnded: true } : {}),
    ...(judge ? { judge } : {}),
    ...(settings.onProgress ? { onProgress: settings.onProgress } : {}),
    ...(settings.signal ? { signal: settings.signal } : {}),
  });
  const result = await run(outDir, questions);
  const summary = summarizeOutcomes(result.outcomes, selected);
  const openEnded = settings.open ? await writeOpenAnswers(outDir) : undefined;
  writeFileSync(
    join(outDir, RUN_FILES.summary),
    JSON.stringify({ model: adapter.spec, baseline: adapter.spec.baseline, ...summary, ...(openEnded ? { openEnded } : {}), ...(judge ? { judge: { model: judge.spec, ...judge.stats } } : {}), stoppedBy: result.stoppedBy, tokens: result.tokens, ...(settings.pricing ? { pricing: settings.pricing, estimatedCostUsd: costUsd(result.tokens, settings.pricing) } : {}), imageEncodes: result.imageEncodes, askSeconds: result.askMs / 1000, corruptJournalLines: result.corruptJournalLines }, null, 2) + '\n',
  );
  const evaluation: Evaluation = { outDir, manifest: stored, result, summary, ...(judge ? { judge: judge.stats } : {}), ...(openEnded ? { openEnded } : {}) };
  if (settings.shuffleCheck && result.stoppedBy === 'complete') {
    evaluation.shuffleCheck = await shuffleCheck(settings.shuffleCheck, settings.seed, outDir, stored, result, questions, run);
  }
  return evaluation;
}

/** Scores an open run's answers by text from its journal, writes them one per line, and returns their means. */
async function writeOpenAnswers(outDir: string): Promise<OpenEndedScores> {
  const { items } = await savedRunOutcomes(openSavedRun(outDir), null, false);
  const records = openAnswers(items);
  await writeTextAtomically(join(outDir, OPEN_ANSWERS_FILE), records.map((r) => `${JSON.stringify(r)}\n`).join(''));
  return openScoresOf(records);
}

/** The per-question text scores of an open-ended run, in its folder. */
export const OPEN_ANSWERS_FILE = 'open-answers.jsonl';

/**
 * The position-bias check: re-asks `n` answered questions (a seeded sample) with their options permuted so the
 * gold option moves, through the same runner (its own resumable run folder), and compares the option chosen.
 */
async function shuffleCheck(
  n: number, seed: number, outDir: string, manifest: RunManifest, main: RunResult, questions: () => AsyncIterable<Question>,
  run: (dir: string, items: () => AsyncIterable<Question>) => Promise<RunResult>,
): Promise<ConsistencyReport> {
  const answered = main.outcomes.filter((o) => o.status !== 'error').map((o) => o.questionId);
  const rank = (id: string) => keyedSeed(seed + 1, id); // a seeded sample, independent of file order
  const chosen = new Set(answered.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b)).slice(0, n));
  const permuted = async function* () {
    for await (const q of questions()) if (chosen.has(q.id)) yield permuteOptions(q, seed).question;
  };
  const dir = join(outDir, 'shuffle-check');
  const variantManifest: RunManifest = { ...manifest, variant: `shuffle-check n=${chosen.size} seed=${seed}`, dataset: { ...manifest.dataset, selected: chosen.size } };
  openRunFolder(dir, variantManifest);
  const shuffled = await run(dir, permuted);
  const original = new Map(main.outcomes.map((o) => [o.questionId, o]));
  const optionText = new Map<string, { original: readonly string[]; shuffled: readonly string[] }>();
  for await (const q of questions()) if (chosen.has(q.id)) optionText.set(q.id, { original: q.options, shuffled: permuteOptions(q, seed).question.options });
  const textOf = (options: readonly string[], letter: string | null) => (letter === null ? null : options['ABCD'.indexOf(letter)] ?? null);
  const pairs: AnswerPair[] = shuffled.outcomes.map((s) => {
    const o = original.get(s.questionId)!;
    const texts = optionText.get(s.questionId)!;
    return { task: s.task, original: textOf(texts.original, o.predicted), shuffled: textOf(texts.shuffled, s.predicted), correctOriginal: o.status === 'correct', correctShuffled: s.status === 'correct' };
  });
  const report = consistencyReport(pairs);
  writeFileSync(join(dir, 'consistency.json'), JSON.stringify(report, null, 2) + '\n');
  return report;
}
