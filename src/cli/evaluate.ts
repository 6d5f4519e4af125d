import { createHash } from 'node:crypto';
import { createReadStream, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { CxrError } from '../core/errors.js';
import type { RunManifest } from '../core/manifest.js';
import type { Question } from '../core/question.js';
import { TOOL_VERSION } from '../core/version.js';
import { detectLayout, type DatasetLayout } from '../dataset/layout.js';
import { readQuestions } from '../dataset/read-dataset.js';
import { resolveImagePath } from '../dataset/validate.js';
import { extractorInfo } from '../extract/extract.js';
import { IMAGE_ORDER } from '../prompt/build-prompt.js';
import { loadTemplate } from '../prompt/template.js';
import { openRunFolder, runEvaluation, RUN_FILES, type RunProgress, type RunResult } from '../runner/run.js';
import { summarizeOutcomes, type RunSummary } from '../score/summary.js';
import { resolveModel, type EndpointOptions } from './model-spec.js';

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
  temperature: number;
  maxTokens: number;
  topP?: number;
  seed: number;
  concurrency: number;
  adaptive: boolean;
  maxAttempts: number;
  timeoutMs: number;
  retryBaseMs: number;
  tokenBudget: number | null;
  retryErrors: boolean;
  strict: boolean;
  limit: number | null;
  onProgress?: (p: RunProgress) => void;
  signal?: AbortSignal;
}

async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
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
}

/** Prepares and runs (or resumes) one evaluation, then writes its summary. */
export async function evaluate(settings: EvaluateSettings): Promise<Evaluation> {
  const layout: DatasetLayout = detectLayout(settings.data);
  const file = layout.files.find((f) => f.split === settings.split);
  if (!file) throw new CxrError('bad-option', `--split ${settings.split}: ${settings.data} has splits ${layout.files.map((f) => f.split).join(', ')}`);
  const trainFile = layout.files.find((f) => f.split === 'train');
  const { adapter, presetMaxImages } = await resolveModel(settings.model, settings, settings.seed, () => (trainFile ? readQuestions(layout, ['train']) : null));
  if (adapter.preflight) {
    try {
      await adapter.preflight(AbortSignal.timeout(15_000));
    } catch (error) {
      throw new CxrError('model-config', `--model ${settings.model}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const template = loadTemplate(settings.prompt);
  const maxImages = settings.maxImages ?? presetMaxImages;
  const questions = () => limited(readQuestions(layout, [settings.split]), settings.limit);
  let count = 0;
  for await (const _ of readQuestions(layout, [settings.split])) count++;
  const selected = settings.limit === null ? count : Math.min(count, settings.limit);
  const datasetName = basename(layout.root === '.' ? process.cwd() : layout.root);
  const outDir = settings.out ?? join('runs', safeName(`${datasetName}-${settings.split}-${adapter.spec.name}`));
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
    params: { temperature: settings.temperature, maxTokens: settings.maxTokens, ...(settings.topP !== undefined ? { topP: settings.topP } : {}), seed: settings.seed },
    seed: settings.seed,
  };
  const stored = openRunFolder(outDir, manifest);
  const result = await runEvaluation({
    outDir,
    manifest: stored,
    questions,
    resolveImage: (_question, image) => resolveImagePath(image.path, file.baseDir, settings.images ?? 'default'),
    adapter,
    template,
    patientContext: settings.patientContext,
    maxImages,
    imageEncoding: { maxPixels: settings.maxPixels },
    imageDetail: settings.imageDetail,
    params: { temperature: settings.temperature, maxTokens: settings.maxTokens, ...(settings.topP !== undefined ? { topP: settings.topP } : {}), seed: settings.seed },
    concurrency: settings.concurrency,
    adaptiveConcurrency: settings.adaptive,
    retry: { maxAttempts: settings.maxAttempts, baseDelayMs: settings.retryBaseMs, maxDelayMs: 60_000 },
    timeoutMs: settings.timeoutMs,
    tokenBudget: settings.tokenBudget,
    retryErrors: settings.retryErrors,
    strictExtraction: settings.strict,
    ...(settings.onProgress ? { onProgress: settings.onProgress } : {}),
    ...(settings.signal ? { signal: settings.signal } : {}),
  });
  const summary = summarizeOutcomes(result.outcomes, selected);
  writeFileSync(
    join(outDir, RUN_FILES.summary),
    JSON.stringify({ model: adapter.spec, baseline: adapter.spec.baseline, ...summary, stoppedBy: result.stoppedBy, tokens: result.tokens, corruptJournalLines: result.corruptJournalLines }, null, 2) + '\n',
  );
  return { outDir, manifest: stored, result, summary };
}
