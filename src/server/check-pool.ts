import { Worker } from 'node:worker_threads';
import type { IntakeResult, UploadIntake } from '../board/submit.js';
import type { Store } from '../store/connect.js';
import { threadEntry } from './scoring-pool.js';

/** The upload intake (check, then store), run in a thread of its own; `close` stops the thread. */
export interface UploadCheckThread {
  intake: UploadIntake;
  close(): Promise<void>;
}

/** How long closing waits for the uploads in hand. */
const CLOSE_WAIT_MS = 10_000;

type Reply = { id: number; result?: IntakeResult; error?: string; ready?: boolean };

/**
 * Takes uploads in (parse every line, check every id against the hidden set, then hash and store the file within
 * the team's limits) in one worker thread with its own database connection, started on the first upload: the
 * web thread neither parses nor writes megabytes, nor waits for the write lock while scoring threads publish.
 * Uploads are taken in arrival order. A thread that dies fails the uploads in hand (a 500; a submission is either
 * stored whole, in one transaction, or not at all) and is started again for the next upload.
 */
export function startUploadCheckThread(connection: Store['connection']): UploadCheckThread {
  const { url, execArgv } = threadEntry('check-thread');
  const pending = new Map<number, { resolve: (r: IntakeResult) => void; reject: (e: Error) => void }>();
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
      if (m.error !== undefined) waiting.reject(new Error(`taking the upload in failed: ${m.error}`));
      else waiting.resolve(m.result!);
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
    intake: (benchmarkId, input) =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        pending.set(id, { resolve, reject });
        running().postMessage({ id, benchmarkId, input });
      }),
    async close() {
      // Uploads in hand are let finish (up to CLOSE_WAIT_MS): one stored but cut off would answer 500 while it is
      // in fact stored (the reconciler then queues it).
      const until = Date.now() + CLOSE_WAIT_MS;
      while (pending.size > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      const t = thread;
      thread = null;
      if (t) await t.terminate();
      failAll(new Error('the server is stopping'));
    },
  };
}
