import { once } from 'node:events';
import { createWriteStream, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CxrError } from '../core/errors.js';
import { manifestConflicts, RunManifest } from '../core/manifest.js';
import type { AnswerJudge, JudgeItem } from '../core/extraction.js';
import type { ContentPart, Failure, GenerationParams, ModelRequest, Outcome, Prediction } from '../core/model-io.js';
import type { ImageRef, Question } from '../core/question.js';
import { toOfficialRecord } from '../core/official-record.js';
import type { ModelAdapter } from '../models/adapter.js';
import { buildPrompt, type Prompt } from '../prompt/build-prompt.js';
import type { PromptTemplate } from '../prompt/template.js';
import { extractAnswer } from '../extract/extract.js';
import { ImageCache, type ImageEncoding } from './image-cache.js';
import { JournalIndex, JournalWriter } from './journal.js';
import { ConcurrencyLimiter } from './limiter.js';
import type { RetryPolicy } from './retry.js';
import { sendWithRetries } from './send.js';
import { judgeItemOf, outcomeOf, type JudgeVerdicts } from './outcomes.js';
import { budgetReached, type Budget } from './budget.js';

/** The files of a run folder. */
export const RUN_FILES = {
  manifest: 'manifest.json',
  journal: 'predictions.jsonl',
  outcomes: 'outcomes.jsonl',
  rexrank: 'rexrank-predictions.json',
  summary: 'summary.json',
  /** The answer judge's replies, keyed by what it was asked (only when a judge was used). */
  judge: 'judge.jsonl',
  imageCache: 'image-cache',
} as const;

/** Progress of a run, reported about once a second and at the end. */
export interface RunProgress {
  total: number;
  /** Answered before this process started (resumed) plus answered now. */
  done: number;
  doneNow: number;
  errors: number;
  unparseable: number;
  inFlight: number;
  concurrency: number;
  elapsedMs: number;
}

/** Everything a run needs. Questions are streamed twice (ask, then score), never held. */
export interface RunOptions {
  outDir: string;
  /** The selected questions of the split, in file order (same every call). */
  questions: () => AsyncIterable<Question>;
  /** Absolute path of an image of a question. */
  resolveImage: (question: Question, image: ImageRef) => string;
  adapter: ModelAdapter;
  template: PromptTemplate;
  patientContext: boolean;
  maxImages: number | null;
  imageEncoding: ImageEncoding;
  imageDetail: 'auto' | 'low' | 'high' | null;
  params: GenerationParams;
  concurrency: number;
  adaptiveConcurrency: boolean;
  retry: RetryPolicy;
  timeoutMs: number;
  /** Stop asking once the tokens or their cost reach a limit (in-flight requests finish). */
  budget: Budget;
  /** Ask again the questions whose last prediction is an error. */
  retryErrors: boolean;
  strictExtraction: boolean;
  /** Open-ended run (`eval --open`): answers are free text, read by the judge only (see `openAnswerExtraction`). */
  openEnded?: boolean;
  /** Reads the outputs the rules cannot (asked once the run has answered everything it will answer). */
  judge?: AnswerJudge;
  onProgress?: (progress: RunProgress) => void;
  /** Aborting stops asking; in-flight requests are abandoned and not journaled, so a rerun asks them again. */
  signal?: AbortSignal;
  random?: () => number;
}

/** How a run ended. */
export interface RunResult {
  outcomes: Outcome[];
  /** Selected questions with no prediction yet (stopped by budget or signal). */
  notRun: number;
  stoppedBy: 'complete' | 'budget' | 'signal';
  resumedFrom: number;
  corruptJournalLines: number;
  tokens: { prompt: number; completion: number };
  imageEncodes: number;
  /** Milliseconds from the first question sent to the last answer (startup and scoring excluded). */
  askMs: number;
  /** Questions whose latest prediction is an error, by failure kind. */
  errorsByKind: Record<string, number>;
}


/** Writes JSON to a file atomically. */
function writeJsonAtomically(file: string, value: unknown): void {
  const temp = `${file}.tmp-${process.pid}`;
  writeFileSync(temp, JSON.stringify(value, null, 2) + '\n');
  renameSync(temp, file);
}

/** Replaces a run folder's manifest atomically (after the extraction settings changed). */
export function writeManifest(outDir: string, manifest: RunManifest): void {
  writeJsonAtomically(join(outDir, RUN_FILES.manifest), manifest);
}

/**
 * Starts or resumes the manifest of a run folder. A folder whose manifest differs in dataset, model, prompt,
 * images or generation parameters is refused with every difference named: mixing them would corrupt the run.
 */
export function openRunFolder(outDir: string, manifest: RunManifest): RunManifest {
  mkdirSync(outDir, { recursive: true });
  const file = join(outDir, RUN_FILES.manifest);
  if (!existsSync(file)) {
    writeJsonAtomically(file, manifest);
    return manifest;
  }
  let stored: RunManifest;
  try {
    stored = RunManifest.parse(JSON.parse(readFileSync(file, 'utf8')));
  } catch (error) {
    throw new CxrError('resume-conflict', `${file}: not a cxrbench run manifest (${(error as Error).message.slice(0, 200)}); use another --out folder`);
  }
  const conflicts = manifestConflicts(stored, manifest);
  if (conflicts.length > 0) {
    throw new CxrError('resume-conflict', `${outDir} holds a run that differs from this one, so it cannot be resumed:\n  - ${conflicts.join('\n  - ')}\nUse another --out folder, or the original settings.`);
  }
  return stored;
}

/**
 * Runs (or resumes) an evaluation: asks every selected question not yet answered, journaling each prediction
 * as it arrives, then extracts and scores every question from the journal. Failed requests never abort the
 * run: they become predictions with an error.
 */
export async function runEvaluation(options: RunOptions): Promise<RunResult> {
  const started = Date.now();
  const journalFile = join(options.outDir, RUN_FILES.journal);
  let errors = 0;
  let unparseable = 0;
  const tokens = { prompt: 0, completion: 0 };
  // Progress counters of what the journal already holds (the latest line of a question wins).
  const latest = JournalIndex.open(journalFile, (prediction, previous) => {
    if (previous?.failed) errors--;
    if (prediction.error) errors++;
    else if (!options.openEnded && extractAnswer(prediction.response?.text, undefined, { strict: options.strictExtraction }).letter === null) unparseable++;
    tokens.prompt += prediction.response?.usage?.promptTokens ?? 0;
    tokens.completion += prediction.response?.usage?.completionTokens ?? 0;
  });
  const journal = new JournalWriter(journalFile);
  const images = new ImageCache(join(options.outDir, RUN_FILES.imageCache), options.imageEncoding);
  const limiter = new ConcurrencyLimiter(options.concurrency, options.adaptiveConcurrency);
  const random = options.random ?? Math.random;
  const stop = new AbortController();
  options.signal?.addEventListener('abort', () => stop.abort(), { once: true });

  let total = 0;
  let resumedFrom = 0;
  let doneNow = 0;
  let stoppedBy: RunResult['stoppedBy'] = 'complete';
  const progress = (): RunProgress => ({
    total, done: resumedFrom + doneNow, doneNow, errors, unparseable, inFlight: limiter.running, concurrency: limiter.limit, elapsedMs: Date.now() - started,
  });
  const ticker = options.onProgress ? setInterval(() => options.onProgress!(progress()), 1000) : null;

  const ask = async (question: Question, release: () => void): Promise<void> => {
    try {
      const prediction = await askWithRetries(question, options, images, limiter, stop.signal, random);
      if (prediction === null) return; // abandoned because the run stopped: asked again on resume
      const previous = latest.get(question.id);
      latest.set(question.id, journal.append(prediction));
      doneNow++;
      if (previous?.failed) errors--;
      if (prediction.error) errors++;
      else {
        tokens.prompt += prediction.response?.usage?.promptTokens ?? 0;
        tokens.completion += prediction.response?.usage?.completionTokens ?? 0;
        if (!options.openEnded && extractAnswer(prediction.response?.text, question.options, { strict: options.strictExtraction }).letter === null) unparseable++;
      }
      if (budgetReached(tokens, options.budget) && !stop.signal.aborted) {
        stoppedBy = 'budget';
        stop.abort();
      }
    } finally {
      release();
    }
  };

  const inFlight = new Set<Promise<void>>();
  const askStarted = Date.now();
  let askMs = 0;
  try {
    for await (const question of options.questions()) {
      total++;
      const previous = latest.get(question.id);
      if (previous && !(previous.failed && options.retryErrors)) {
        resumedFrom++;
        continue;
      }
      if (stop.signal.aborted) continue; // keep counting the selection
      const release = await limiter.acquire();
      if (stop.signal.aborted) {
        release();
        continue;
      }
      const task = ask(question, release).finally(() => inFlight.delete(task));
      inFlight.add(task);
    }
    await Promise.all(inFlight);
    askMs = Date.now() - askStarted;
  } finally {
    if (ticker) clearInterval(ticker);
    journal.close();
  }
  if (stoppedBy === 'complete' && options.signal?.aborted) stoppedBy = 'signal';
  options.onProgress?.(progress());

  const outcomes = await finalizeRun(options, latest);
  return {
    errorsByKind: errorsByKind(latest),
    outcomes,
    notRun: total - outcomes.filter((o) => latest.has(o.questionId)).length,
    stoppedBy,
    resumedFrom,
    corruptJournalLines: latest.corruptLines,
    tokens,
    imageEncodes: images.encodes,
    askMs,
  };
}

export async function requestFor(question: Question, prompt: Prompt, options: RunOptions, images: ImageCache): Promise<ModelRequest> {
  const content: ContentPart[] = [];
  if (options.adapter.needsImages) {
    for (const image of prompt.images) {
      const url = await images.dataUrl(options.resolveImage(question, image));
      content.push(options.imageDetail ? { type: 'image', url, detail: options.imageDetail } : { type: 'image', url });
    }
  }
  content.push({ type: 'text', text: prompt.text });
  return {
    questionId: question.id,
    messages: [...(prompt.system ? [{ role: 'system' as const, content: prompt.system }] : []), { role: 'user', content }],
    params: options.params,
  };
}

/** Asks one question, retrying what is worth retrying. Returns null when the run stopped before an answer. */
async function askWithRetries(question: Question, options: RunOptions, images: ImageCache, limiter: ConcurrencyLimiter, stop: AbortSignal, random: () => number): Promise<Prediction | null> {
  const started = Date.now();
  const prompt = buildPrompt(question, options.template, { maxImages: options.maxImages, patientContext: options.patientContext });
  let request: ModelRequest;
  try {
    request = await requestFor(question, prompt, options, images);
  } catch (error) {
    const failure: Failure = { kind: 'client', message: error instanceof Error ? error.message : String(error) };
    return { questionId: question.id, error: failure, attempts: 0, latencyMs: Date.now() - started, at: new Date().toISOString() };
  }
  return sendWithRetries(request, question, { adapter: options.adapter, retry: options.retry, timeoutMs: options.timeoutMs, limiter, stop, random }, started);
}

/** The failure kinds of the questions whose latest prediction is an error. */
export function errorsByKind(latest: JournalIndex): Record<string, number> {
  const counts: Record<string, number> = {};
  if (latest.failedCount() === 0) return counts;
  const reader = latest.reader();
  try {
    for (const id of latest.failedIds()) {
      const kind = reader.read(id)?.error?.kind ?? 'unknown';
      counts[kind] = (counts[kind] ?? 0) + 1;
    }
  } finally {
    reader.close();
  }
  return counts;
}

/**
 * Extracts and scores every selected question from the journal and writes outcomes, the ReXrank file and the
 * summary inputs. With a judge, the outputs the rules cannot read are first put to it (one pass to collect
 * them, the judge's own journal makes this resumable), and the outcomes take its verdicts.
 */
export async function finalizeRun(options: RunOptions, latest: JournalIndex): Promise<Outcome[]> {
  const journal = latest.reader();
  try {
    const predictionOf = (id: string) => journal.read(id);
    let judged: JudgeVerdicts | undefined;
    if (options.judge) {
      const items: JudgeItem[] = [];
      for await (const question of options.questions()) {
        const item = judgeItemOf(question, predictionOf(question.id), options.strictExtraction, options.openEnded);
        if (item) items.push(item);
      }
      judged = { model: options.judge.model, verdicts: items.length > 0 ? await options.judge.decide(items, options.signal) : new Map() };
    }
    return await writeRunFiles(options, predictionOf, judged);
  } finally {
    journal.close();
  }
}

async function writeRunFiles(options: RunOptions, predictionOf: (questionId: string) => Prediction | undefined, judged: JudgeVerdicts | undefined): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  const rexrankFile = join(options.outDir, RUN_FILES.rexrank);
  const outcomesFile = join(options.outDir, RUN_FILES.outcomes);
  const temp = `.tmp-${process.pid}`;
  const rexrank = createWriteStream(rexrankFile + temp);
  const outcomeLines = createWriteStream(outcomesFile + temp);
  let first = true;
  rexrank.write('{');
  for await (const question of options.questions()) {
    const prediction = predictionOf(question.id);
    const outcome = outcomeOf(question, prediction, options.strictExtraction, judged, options.openEnded);
    if (outcome) {
      outcomes.push(outcome);
      if (!outcomeLines.write(`${JSON.stringify(outcome)}\n`)) await once(outcomeLines, 'drain');
    }
    // A reply cut at the token limit says so, so a board scoring this file counts it truncated rather than unparseable.
    const cut = prediction?.response?.finishReason === 'length' ? { finish_reason: 'length' } : {};
    const record = { ...toOfficialRecord(question), model_prediction: prediction?.response?.text ?? null, ...cut };
    if (!rexrank.write(`${first ? '\n' : ',\n'}  ${JSON.stringify(question.id)}: ${JSON.stringify(record)}`)) await once(rexrank, 'drain');
    first = false;
  }
  rexrank.end(first ? '}\n' : '\n}\n');
  outcomeLines.end();
  await Promise.all([once(rexrank, 'finish'), once(outcomeLines, 'finish')]);
  renameSync(rexrankFile + temp, rexrankFile);
  renameSync(outcomesFile + temp, outcomesFile);
  return outcomes;
}
