import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { CorpusReport } from '../../corpus/corpus-report.js';
import { reportStage, type ReportStage } from './report-stage.js';
import { threadEntry } from '../../core/thread-entry.js';

/** Below this many reports, threads cost more to start (each loads the reading rules) than they save. */
const THREADS_FROM = 2_000;
/** Reports per message: large enough that messaging is a small part of the work, small enough to spread it. */
const BATCH = 250;

/**
 * The offline per-report stage of every report, in corpus order: on the main thread for a small corpus, else on one
 * thread per core in batches (the stage is pure, so the result is the same either way — tested). A thread that
 * fails fails the run with its reason; nothing is written before every report is done.
 */
export async function offlineStages(reports: readonly { safe: CorpusReport; seedKey: string }[], seed: number, metadataDir: string, threads = availableParallelism()): Promise<ReportStage[]> {
  if (reports.length < THREADS_FROM || threads < 2) return reports.map((r) => reportStage(r.safe, 'offline', seed, r.seedKey, metadataDir));
  const { url, execArgv } = threadEntry('report-thread', import.meta.url);
  const batches: { safe: CorpusReport; seedKey: string }[][] = [];
  for (let i = 0; i < reports.length; i += BATCH) batches.push(reports.slice(i, i + BATCH));
  const results: ReportStage[][] = new Array(batches.length);
  const workers = Array.from({ length: Math.min(threads, batches.length) }, () => new Worker(url, { execArgv }));
  let next = 0;
  try {
    await Promise.all(workers.map((worker) => new Promise<void>((resolve, reject) => {
      const send = () => {
        if (next >= batches.length) return resolve();
        const id = next++;
        worker.postMessage({ id, reports: batches[id], seed, metadataDir });
      };
      worker.on('message', (m: { id: number; stages?: ReportStage[]; error?: string }) => {
        if (m.error !== undefined || !m.stages) return reject(new Error(`a generate thread failed: ${m.error}`));
        results[m.id] = m.stages;
        send();
      });
      worker.on('error', reject);
      worker.on('exit', (code) => { if (code !== 0) reject(new Error(`a generate thread exited with code ${code}`)); });
      send();
    })));
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  return results.flat();
}
