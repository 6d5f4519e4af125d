import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ModelRequest, Prediction } from '../core/model-io.js';
import type { BatchApi } from '../models/adapter.js';
import { buildPrompt } from '../prompt/build-prompt.js';
import { sleep } from './sleep.js';
import { ImageCache } from './image-cache.js';
import { JournalIndex, JournalWriter } from './journal.js';
import { errorsByKind, finalizeRun, requestFor, RUN_FILES, type RunOptions, type RunResult } from './run.js';

/** Settings of a batch-mode run. */
export interface BatchSettings {
  /** Seconds between status polls. */
  pollSeconds: number;
  /** Split the input into files of at most this many bytes and requests (OpenAI: 200 MB, 50,000). */
  maxFileBytes: number;
  maxRequests: number;
}

/** One batch job of a run, persisted in `batches.json` so an interrupted run resumes instead of resubmitting. */
interface BatchJob {
  file: string;
  questionIds: string[];
  jobId: string | null;
  state: 'written' | 'submitted' | 'collected';
  detail?: string;
}

function saveJobs(file: string, jobs: BatchJob[]): void {
  writeFileSync(`${file}.tmp`, JSON.stringify(jobs, null, 2));
  renameSync(`${file}.tmp`, file);
}


/** One request of a batch round: its journal key, and how to build it (only built when it must be sent). */
export interface BatchItem {
  id: string;
  request: () => Promise<ModelRequest>;
}

/** Where a batch round keeps its files and answers. */
export interface BatchRound {
  api: BatchApi;
  /** Folder for the input files. */
  dir: string;
  /** The round's jobs (`batches.json`): an interrupted round resumes instead of resubmitting. */
  jobsFile: string;
  latest: JournalIndex;
  journal: JournalWriter;
  settings: BatchSettings;
  signal: AbortSignal;
  /** Items already answered (or to be skipped) are not written into a batch. */
  skip: (id: string) => boolean;
  onAnswer?: (prediction: Prediction) => void;
  onPoll?: (submitted: number, started: number) => void;
}

/**
 * One round through a provider's batch API: writes the items not yet answered nor already in a batch into input
 * files, submits them, polls until they finish and collects every answer into the journal — each step saved, so a
 * rerun picks up where this one stopped and nothing is sent twice. Returns how many items it saw.
 */
export async function runBatchRound(items: AsyncIterable<BatchItem>, round: BatchRound): Promise<number> {
  const { api, dir, jobsFile, latest, journal, settings, signal } = round;
  mkdirSync(dir, { recursive: true });
  const jobs: BatchJob[] = existsSync(jobsFile) ? (JSON.parse(readFileSync(jobsFile, 'utf8')) as BatchJob[]) : [];
  const inBatch = new Set(jobs.filter((j) => j.state !== 'collected').flatMap((j) => j.questionIds));
  let current: BatchJob | null = null;
  let total = 0;
  for await (const item of items) {
    total++;
    if (round.skip(item.id) || inBatch.has(item.id)) continue;
    let line: string;
    try {
      line = api.line(await item.request(), item.id);
    } catch (error) {
      const failed: Prediction = { questionId: item.id, error: { kind: 'client', message: (error as Error).message }, attempts: 0, latencyMs: 0, at: new Date().toISOString() };
      latest.set(item.id, journal.append(failed));
      continue;
    }
    if (!current || current.questionIds.length >= settings.maxRequests || statSync(current.file).size + line.length + 1 > settings.maxFileBytes) {
      current = { file: join(dir, `input-${String(jobs.length + 1).padStart(3, '0')}.jsonl`), questionIds: [], jobId: null, state: 'written' };
      writeFileSync(current.file, '');
      jobs.push(current);
    }
    appendFileSync(current.file, `${line}\n`);
    current.questionIds.push(item.id);
  }
  saveJobs(jobsFile, jobs);
  for (const job of jobs.filter((j) => j.state === 'written' && j.questionIds.length > 0)) {
    if (signal.aborted) break;
    job.jobId = await api.submit(job.file, signal);
    job.state = 'submitted';
    saveJobs(jobsFile, jobs);
  }
  const started = Date.now();
  while (!signal.aborted && jobs.some((j) => j.state === 'submitted')) {
    for (const job of jobs.filter((j) => j.state === 'submitted')) {
      const status = await api.poll(job.jobId!, signal);
      job.detail = status.detail;
      if (status.state === 'running') continue;
      const results = status.state === 'done' ? await api.collect(job.jobId!, signal) : new Map();
      for (const id of job.questionIds) {
        const result = results.get(id);
        const prediction: Prediction = {
          questionId: id,
          ...(result?.response ? { response: result.response } : { error: result?.error ?? { kind: 'server', message: `batch ${job.jobId} ${status.detail}: no result for this request` } }),
          attempts: 1,
          latencyMs: Date.now() - started,
          at: new Date().toISOString(),
        };
        latest.set(id, journal.append(prediction));
        round.onAnswer?.(prediction);
      }
      job.state = 'collected';
      saveJobs(jobsFile, jobs);
    }
    round.onPoll?.(jobs.filter((j) => j.state === 'submitted').length, started);
    if (jobs.some((j) => j.state === 'submitted')) await sleep(settings.pollSeconds * 1000, signal);
  }
  return total;
}

/**
 * Runs an evaluation through the provider's batch API: writes the pending requests into batch input files in
 * the run folder, submits them, polls until they finish, and collects the answers into the same journal as an
 * online run — so outcomes, resume and reports are identical. Rerunning resumes: written files are submitted,
 * submitted jobs are polled, nothing is sent twice.
 */
export async function runBatchEvaluation(options: RunOptions, settings: BatchSettings): Promise<RunResult> {
  const api = options.adapter.batch;
  if (!api) throw new Error(`${options.adapter.spec.name} has no batch API`);
  const journalFile = join(options.outDir, RUN_FILES.journal);
  const tokens = { prompt: 0, completion: 0 };
  const countTokens = (p: Prediction) => {
    tokens.prompt += p.response?.usage?.promptTokens ?? 0;
    tokens.completion += p.response?.usage?.completionTokens ?? 0;
  };
  const latest = JournalIndex.open(journalFile, countTokens);
  const journal = new JournalWriter(journalFile);
  const images = new ImageCache(join(options.outDir, RUN_FILES.imageCache), options.imageEncoding);
  const signal = options.signal ?? new AbortController().signal;
  const started = Date.now();
  let total = 0;
  async function* items(): AsyncGenerator<BatchItem> {
    for await (const question of options.questions()) {
      total++;
      yield { id: question.id, request: () => requestFor(question, buildPrompt(question, options.template, { maxImages: options.maxImages, patientContext: options.patientContext }), options, images) };
    }
  }
  await runBatchRound(items(), {
    api, dir: join(options.outDir, 'batches'), jobsFile: join(options.outDir, 'batches.json'), latest, journal, settings, signal,
    skip: (id) => {
      const previous = latest.get(id);
      return !!previous && !(previous.failed && options.retryErrors);
    },
    onAnswer: countTokens,
    onPoll: (submitted, since) => options.onProgress?.({ total, done: latest.size, doneNow: 0, errors: 0, unparseable: 0, inFlight: submitted, concurrency: 1, elapsedMs: Date.now() - since }),
  });
  journal.close();
  const stoppedBy: RunResult['stoppedBy'] = signal.aborted ? 'signal' : 'complete';
  const outcomes = await finalizeRun(options, latest);
  return { outcomes, notRun: total - outcomes.length, stoppedBy, resumedFrom: 0, corruptJournalLines: latest.corruptLines, tokens, imageEncodes: images.encodes, askMs: Date.now() - started, errorsByKind: errorsByKind(latest) };
}
