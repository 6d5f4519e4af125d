import type { PgBoss } from 'pg-boss';
import type { JobHandler, JobQueue, JobState, QueueSettings } from './queue.js';

/** Where pg-boss keeps its tables: a schema of its own, next to the board's. */
export const PGBOSS_SCHEMA = 'cxrbench_jobs';

/** Settings that decide how fast a dead worker's job is noticed (seconds). Tests make them short. */
export interface PgBossTiming {
  superviseIntervalSeconds: number;
  pollingIntervalSeconds: number;
}

export const DEFAULT_PGBOSS_TIMING: PgBossTiming = { superviseIntervalSeconds: 30, pollingIntervalSeconds: 1 };

/**
 * The job queue on PostgreSQL: pg-boss (docs/design/job-queue.md). Jobs are claimed with SKIP LOCKED, so any
 * number of workers on any number of machines share one queue; a job active longer than its expiry (a dead
 * worker) is retried or failed by pg-boss's supervisor, which every instance runs (they take turns).
 * Each queue uses the `short` policy: at most one waiting job per key.
 */
export class PgBossJobQueue implements JobQueue {
  readonly backend = 'pg-boss' as const;
  private readonly created = new Set<string>();

  private constructor(private readonly boss: PgBoss, private readonly timing: PgBossTiming) {}

  /**
   * Starts pg-boss on `connectionString`. `install`: create or upgrade its schema (what `cxrbench db migrate`
   * does); otherwise a missing schema is an error, so no process migrates behind the administrator's back.
   */
  static async open(connectionString: string, options: { install: boolean; timing?: PgBossTiming; onError?: (error: Error) => void }): Promise<PgBossJobQueue> {
    const { PgBoss } = await import('pg-boss');
    const timing = options.timing ?? DEFAULT_PGBOSS_TIMING;
    const boss = new PgBoss({
      connectionString, schema: PGBOSS_SCHEMA, migrate: options.install, createSchema: options.install, schedule: false, supervise: true,
      superviseIntervalSeconds: timing.superviseIntervalSeconds, monitorIntervalSeconds: timing.superviseIntervalSeconds, max: 4,
    });
    boss.on('error', (error: Error) => options.onError?.(error));
    await boss.start();
    return new PgBossJobQueue(boss, timing);
  }

  private async ensure(queue: string, settings: QueueSettings): Promise<void> {
    if (this.created.has(queue)) return;
    await this.boss.createQueue(queue, { policy: 'short', retryLimit: settings.retryLimit, retryDelay: settings.retryDelaySeconds, expireInSeconds: settings.expireSeconds, heartbeatSeconds: Math.max(10, settings.leaseSeconds) });
    this.created.add(queue);
  }

  async send(queue: string, data: Record<string, unknown>, key: string, settings: QueueSettings): Promise<string | null> {
    await this.ensure(queue, settings);
    // Heartbeats (at least every 10 s, pg-boss's minimum) tell the supervisor the worker is alive; a job whose
    // heartbeats stop is retried by another worker.
    return this.boss.send(queue, data, { singletonKey: key, retryLimit: settings.retryLimit, retryDelay: settings.retryDelaySeconds, expireInSeconds: settings.expireSeconds, heartbeatSeconds: Math.max(10, settings.leaseSeconds) });
  }

  async state(queue: string, jobId: string): Promise<JobState> {
    const job = await this.boss.getJobById(queue, jobId);
    if (!job) return 'unknown';
    if (job.state === 'created' || job.state === 'retry') return 'waiting';
    if (job.state === 'active') return 'active';
    if (job.state === 'completed') return 'completed';
    return 'failed';
  }

  async work(queue: string, handler: JobHandler, options: { concurrency?: number; pollMs?: number } = {}): Promise<void> {
    await this.ensure(queue, { retryLimit: 2, retryDelaySeconds: 5, expireSeconds: 1800, leaseSeconds: 30 });
    const pollingIntervalSeconds = options.pollMs !== undefined ? Math.max(0.5, options.pollMs / 1000) : this.timing.pollingIntervalSeconds;
    await this.boss.work(queue, { batchSize: 1, includeMetadata: true, localConcurrency: options.concurrency ?? 1, pollingIntervalSeconds }, async ([job]) => {
      if (!job) return;
      await handler(job.data as Record<string, unknown>, { id: job.id, attempt: job.retryCount + 1, final: job.retryCount >= job.retryLimit });
    });
  }

  async stop(timeoutMs = 30_000): Promise<void> {
    await this.boss.stop({ graceful: true, timeout: timeoutMs, close: true });
  }
}
