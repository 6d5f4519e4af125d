import { parentPort } from 'node:worker_threads';
import type { CorpusReport } from '../../corpus/corpus-report.js';
import { reportStage } from './report-stage.js';

/** A thread of generate's per-report stage: batches of reports in, their stages out, in order. */
parentPort!.on('message', (m: { id: number; reports: { safe: CorpusReport; seedKey: string }[]; seed: number; metadataDir: string }) => {
  try {
    parentPort!.postMessage({ id: m.id, stages: m.reports.map((r) => reportStage(r.safe, 'offline', m.seed, r.seedKey, m.metadataDir)) });
  } catch (error) {
    parentPort!.postMessage({ id: m.id, error: error instanceof Error ? error.stack ?? error.message : String(error) });
  }
});
