import { CxrError } from '../core/errors.js';
import type { Store } from '../store/connect.js';
import { PgBossJobQueue, type PgBossTiming } from './pgboss-queue.js';
import type { JobQueue } from './queue.js';
import { TableJobQueue } from './sqlite-queue.js';

/** Options of {@link openJobQueue}. */
export interface OpenQueueOptions {
  /** Who takes jobs through this queue (host, process, thread), recorded with each job. */
  workerName: string;
  /** PostgreSQL: create or upgrade pg-boss's schema (`cxrbench db migrate`). */
  install?: boolean;
  timing?: PgBossTiming;
  onError?: (error: Error) => void;
}

/**
 * The job queue that goes with a store: pg-boss on PostgreSQL (any number of web replicas and workers on any
 * machines), the job table on SQLite (one machine: the server's threads and local `cxrbench worker` processes).
 */
export async function openJobQueue(store: Store, options: OpenQueueOptions): Promise<JobQueue> {
  if (!('databaseUrl' in store.connection)) return new TableJobQueue(store, options.workerName);
  try {
    return await PgBossJobQueue.open(store.connection.databaseUrl, { install: options.install === true, ...(options.timing ? { timing: options.timing } : {}), ...(options.onError ? { onError: options.onError } : {}) });
  } catch (error) {
    const message = (error as Error).message;
    if (/does not exist|not installed|schema|relation/i.test(message) && !options.install) {
      throw new CxrError('db-unmigrated', `the scoring queue is not installed in ${store.location} (${message}). Run \`cxrbench db migrate\`, or start with \`cxrbench serve --migrate\`.`);
    }
    throw new CxrError('db-unreachable', `cannot start the scoring queue on ${store.location}: ${message}`);
  }
}
