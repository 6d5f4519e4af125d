import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Prediction } from '../core/model-io.js';
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


/**
 * Runs an evaluation through the provider's batch API: writes the pending requests into batch input files in
 * the run folder, submits them, polls until they finish, and collects the answers into the same journal as an
 * online run — so outcomes, resume and reports are identical. Rerunning resumes: written files are submitted,
 * submitted jobs are polled, nothing is sent twice.
 */
export async function runBatchEvaluation(options: RunOptions, settings: BatchSettings): Promise<RunResult> {
  const api = options.adapter.batch;
  if (!api) throw new Error(`${options.adapter.spec.name} has no batch API`);
  const dir = join(options.outDir, 'batches');
  mkdirSync(dir, { recursive: true });
  const jobsFile = join(options.outDir, 'batches.json');
  const jobs: BatchJob[] = existsSync(jobsFile) ? (JSON.parse(readFileSync(jobsFile, 'utf8')) as BatchJob[]) : [];
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

  // 1. Write the questions neither answered nor already in a batch into new input files.
  const inBatch = new Set(jobs.filter((j) => j.state !== 'collected').flatMap((j) => j.questionIds));
  let current: BatchJob | null = null;
  let total = 0;
  for await (const question of options.questions()) {
    total++;
    const previous = latest.get(question.id);
    if ((previous && !(previous.failed && options.retryErrors)) || inBatch.has(question.id)) continue;
    const prompt = buildPrompt(question, options.template, { maxImages: options.maxImages, patientContext: options.patientContext });
    let line: string;
    try {
      line = api.line(await requestFor(question, prompt, options, images), question.id);
    } catch (error) {
      const failed: Prediction = { questionId: question.id, error: { kind: 'client', message: (error as Error).message }, attempts: 0, latencyMs: 0, at: new Date().toISOString() };
      latest.set(question.id, journal.append(failed));
      continue;
    }
    if (!current || current.questionIds.length >= settings.maxRequests || statSync(current.file).size + line.length + 1 > settings.maxFileBytes) {
      current = { file: join(dir, `input-${String(jobs.length + 1).padStart(3, '0')}.jsonl`), questionIds: [], jobId: null, state: 'written' };
      writeFileSync(current.file, '');
      jobs.push(current);
    }
    appendFileSync(current.file, `${line}\n`);
    current.questionIds.push(question.id);
  }
  saveJobs(jobsFile, jobs);

  // 2. Submit, 3. poll, 4. collect — each step saved, so a rerun picks up where this one stopped.
  let stoppedBy: RunResult['stoppedBy'] = 'complete';
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
        countTokens(prediction);
      }
      job.state = 'collected';
      saveJobs(jobsFile, jobs);
    }
    options.onProgress?.({ total, done: latest.size, doneNow: 0, errors: 0, unparseable: 0, inFlight: jobs.filter((j) => j.state === 'submitted').length, concurrency: 1, elapsedMs: Date.now() - started });
    if (jobs.some((j) => j.state === 'submitted')) await sleep(settings.pollSeconds * 1000, signal);
  }
  journal.close();
  if (signal.aborted) stoppedBy = 'signal';
  const outcomes = await finalizeRun(options, latest);
  return { outcomes, notRun: total - outcomes.length, stoppedBy, resumedFrom: 0, corruptJournalLines: latest.corruptLines, tokens, imageEncodes: images.encodes, askMs: Date.now() - started, errorsByKind: errorsByKind(latest) };
}
