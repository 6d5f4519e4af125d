import { Worker } from 'node:worker_threads';
import type { ConvertJob, ConvertResult } from './convert-one.js';
import { threadEntry } from '../core/thread-entry.js';

/** Conversion threads: the main thread only lists, schedules and writes; every decode happens in a thread. */
export interface ConvertPool {
  run(job: ConvertJob): Promise<ConvertResult>;
  close(): Promise<void>;
}

interface Pending {
  id: number;
  job: ConvertJob;
  resolve: (result: ConvertResult) => void;
}

/**
 * Starts `count` conversion threads. A job whose thread throws or dies fails with that reason (the file is
 * reported like any bad file) and a dead thread is replaced, so one pathological file cannot stop the run.
 */
export function startConvertPool(count: number): ConvertPool {
  const { url, execArgv } = threadEntry('convert-thread', import.meta.url);
  const idle: Worker[] = [];
  const busy = new Map<Worker, Pending>();
  const queue: Pending[] = [];
  let nextId = 0;
  let closing = false;
  // Threads that die before finishing anything (e.g. the module cannot load) would be replaced forever: after a
  // few in a row, stop replacing them and fail what is queued, naming the cause.
  let deathsInARow = 0;
  let lastDeath = '';

  const dispatch = () => {
    while (idle.length > 0 && queue.length > 0) {
      const worker = idle.pop()!;
      const task = queue.shift()!;
      busy.set(worker, task);
      worker.postMessage({ id: task.id, job: task.job });
    }
  };
  const finish = (worker: Worker, result: ConvertResult) => {
    const task = busy.get(worker);
    busy.delete(worker);
    task?.resolve(result);
  };
  const spawn = () => {
    const worker = new Worker(url, { execArgv });
    worker.on('message', (m: { id: number; result?: ConvertResult; error?: string }) => {
      deathsInARow = 0;
      finish(worker, m.result ?? { ok: false, reason: `internal error while converting (please report it): ${m.error}` });
      idle.push(worker);
      dispatch();
    });
    worker.on('error', (error) => {
      lastDeath = error.message;
      finish(worker, { ok: false, reason: `internal error while converting (please report it): ${error.message}` });
    });
    worker.on('exit', () => {
      const task = busy.get(worker);
      if (task) finish(worker, { ok: false, reason: 'the conversion thread stopped while converting this file (out of memory?)' });
      const at = idle.indexOf(worker);
      if (at >= 0) idle.splice(at, 1);
      if (closing) return;
      if (++deathsInARow > count + 3) {
        closing = true;
        for (const t of queue.splice(0)) t.resolve({ ok: false, reason: `the conversion threads keep stopping (${lastDeath || 'no reason given'}); not converted` });
        return;
      }
      spawn();
      dispatch();
    });
    idle.push(worker);
  };
  for (let i = 0; i < count; i++) spawn();

  return {
    run: (job) =>
      new Promise((resolve) => {
        queue.push({ id: nextId++, job, resolve });
        dispatch();
      }),
    async close() {
      closing = true;
      await Promise.all([...idle, ...busy.keys()].map((w) => w.terminate()));
    },
  };
}
