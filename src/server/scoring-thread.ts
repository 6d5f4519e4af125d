/**
 * A scoring worker thread: its own database connection and queue, taking scoring jobs until told to stop. The
 * web server's event loop never scores; a thread (or a `cxrbench worker` process) does. Started by
 * {@link startScoringPool}.
 */
import { hostname } from 'node:os';
import { parentPort, threadId, workerData } from 'node:worker_threads';
import { reconcileScoring, scoringHandler } from '../board/scoring-job.js';
import { openJobQueue } from '../jobs/open-queue.js';
import { SCORING_QUEUE } from '../jobs/queue.js';
import { reopenStore } from '../store/connect.js';
import { lowerThreadPriority } from './thread-priority.js';
import type { ScoringThreadData } from './scoring-pool.js';

const data = workerData as ScoringThreadData;
lowerThreadPriority();
const name = `${hostname()}/${process.pid}/${data.label}-${threadId}`;
const log = (level: string, message: string) => parentPort?.postMessage({ kind: 'log', level, message });
const store = await reopenStore(data.connection);
const queue = await openJobQueue(store, { workerName: name, ...(data.timing ? { timing: data.timing } : {}), onError: (e) => log('warn', `queue: ${e.message}`) });
const score = scoringHandler(store, name, data.score);
// One log line per attempt, so a host can follow a submission from the request log (its id) to its scoring.
await queue.work(SCORING_QUEUE, async (job, attempt) => {
  const started = performance.now();
  try {
    await score(job, attempt);
    log('info', `${name}: submission ${String(job.submissionId)} done (attempt ${attempt.attempt}) in ${Math.round(performance.now() - started)} ms`);
  } catch (error) {
    log(attempt.final ? 'error' : 'warn', `${name}: submission ${String(job.submissionId)} attempt ${attempt.attempt} failed${attempt.final ? ' for good' : ''}: ${(error as Error).message}`);
    throw error;
  }
}, { concurrency: 1, pollMs: data.pollMs });
// Put right what crashes leave (stored but never sent; a job that died with its worker), now and then.
const reconcile = setInterval(() => {
  reconcileScoring(store, queue, data.staleAfterMs)
    .then((c) => { if (c.resent + c.failed > 0) log('warn', `reconcile: ${c.resent} submission(s) sent again, ${c.failed} marked failed`); })
    .catch((e: Error) => log('warn', `reconcile: ${e.message}`));
}, data.reconcileMs);
parentPort?.on('message', (message: unknown) => {
  if (message !== 'stop') return;
  clearInterval(reconcile);
  void queue.stop(data.stopTimeoutMs).then(() => store.close()).then(() => process.exit(0));
});
parentPort?.postMessage({ kind: 'ready', name });
