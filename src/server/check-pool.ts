import { Worker } from 'node:worker_threads';
import type { UploadCheck } from '../board/submit.js';
import type { SubmissionProblem } from '../board/score-submission.js';
import type { Store } from '../store/connect.js';
import { threadEntry } from './scoring-pool.js';

/** The upload check, run in a thread of its own; `close` stops the thread. */
export interface UploadCheckThread {
  check: UploadCheck;
  close(): Promise<void>;
}

type Reply = { id: number; problems?: SubmissionProblem[]; error?: string; ready?: boolean };

/**
 * Runs upload checks (parse every line, check every id against the hidden set) in one worker thread, started on
 * the first upload. Checks are queued in the thread in arrival order. A thread that dies fails the checks in hand
 * (their uploads get a 500 and store nothing) and is started again for the next upload.
 */
export function startUploadCheckThread(connection: Store['connection']): UploadCheckThread {
  const { url, execArgv } = threadEntry('check-thread');
  const pending = new Map<number, { resolve: (p: SubmissionProblem[]) => void; reject: (e: Error) => void }>();
  let thread: Worker | null = null;
  let nextId = 1;
  const failAll = (error: Error) => {
    for (const p of pending.values()) p.reject(error);
    pending.clear();
  };
  const running = (): Worker => {
    if (thread) return thread;
    const started = new Worker(url, { workerData: connection, execArgv });
    started.unref(); // never what keeps a process alive
    started.on('message', (m: Reply) => {
      const waiting = pending.get(m.id);
      if (!waiting) return;
      pending.delete(m.id);
      if (m.error !== undefined) waiting.reject(new Error(`checking the upload failed: ${m.error}`));
      else waiting.resolve(m.problems ?? []);
    });
    const gone = (error: Error) => {
      if (thread === started) thread = null;
      failAll(error);
    };
    started.on('error', gone);
    started.on('exit', (code) => gone(new Error(`the upload check thread stopped (exit code ${code})`)));
    thread = started;
    return started;
  };
  return {
    check: (benchmarkId, content, format) =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        pending.set(id, { resolve, reject });
        running().postMessage({ id, benchmarkId, content, format });
      }),
    async close() {
      const t = thread;
      thread = null;
      if (t) await t.terminate();
      failAll(new Error('the server is stopping'));
    },
  };
}
