import { Worker } from 'node:worker_threads';
import type { ScoreSettings } from '../board/score-submission.js';
import type { PgBossTiming } from '../jobs/pgboss-queue.js';
import type { Store } from '../store/connect.js';

/** What a scoring thread is started with (plain data: it crosses the thread boundary). */
export interface ScoringThreadData {
  connection: Store['connection'];
  label: string;
  score: ScoreSettings;
  pollMs: number;
  reconcileMs: number;
  staleAfterMs: number;
  stopTimeoutMs: number;
  timing?: PgBossTiming;
}

/** A running set of scoring threads. */
export interface ScoringPool {
  /** Names of the threads that are ready. */
  readonly ready: string[];
  stop(): Promise<void>;
}

/** How a thread's module (`./<name>.js` next to this one) is loaded: compiled JavaScript, or the TypeScript source through tsx in a checkout. */
export function threadEntry(name: string): { url: URL; execArgv: string[] } {
  const fromSource = import.meta.url.endsWith('.ts');
  const url = new URL(`./${name}.${fromSource ? 'ts' : 'js'}`, import.meta.url);
  return { url, execArgv: fromSource ? ['--import', import.meta.resolve('tsx')] : [] };
}

/**
 * Starts `count` scoring threads over the store's database. A thread that dies unexpectedly is replaced (its job
 * is taken again once its lease runs out), so one bad submission cannot stop scoring for everyone.
 */
export async function startScoringPool(store: Store, count: number, options: Omit<ScoringThreadData, 'connection' | 'label'> & { label?: string; log?: (level: string, message: string) => void }): Promise<ScoringPool> {
  const { url, execArgv } = threadEntry('scoring-thread');
  const ready: string[] = [];
  const threads = new Set<Worker>();
  let stopping = false;
  const log = options.log ?? (() => undefined);
  const data: ScoringThreadData = {
    connection: store.connection, label: options.label ?? 'scorer', score: options.score, pollMs: options.pollMs, reconcileMs: options.reconcileMs,
    staleAfterMs: options.staleAfterMs, stopTimeoutMs: options.stopTimeoutMs, ...(options.timing ? { timing: options.timing } : {}),
  };
  const start = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const thread = new Worker(url, { workerData: data, execArgv });
      threads.add(thread);
      thread.on('message', (m: { kind: string; name?: string; level?: string; message?: string }) => {
        if (m.kind === 'ready') {
          ready.push(m.name!);
          resolve();
        } else if (m.kind === 'log') log(m.level ?? 'info', m.message ?? '');
      });
      thread.once('error', (error) => {
        log('error', `scoring thread failed: ${error.stack ?? error.message}`);
        reject(error);
      });
      thread.once('exit', (code) => {
        threads.delete(thread);
        if (!stopping && code !== 0) {
          log('error', `scoring thread exited with code ${code}; starting another`);
          setTimeout(() => void start().catch(() => undefined), 1000).unref();
        }
      });
    });
  await Promise.all(Array.from({ length: count }, start));
  return {
    ready,
    async stop() {
      stopping = true;
      await Promise.all([...threads].map((t) => new Promise<void>((resolve) => {
        t.once('exit', () => resolve());
        t.postMessage('stop');
        setTimeout(() => void t.terminate(), options.stopTimeoutMs + 2000).unref();
      })));
    },
  };
}
