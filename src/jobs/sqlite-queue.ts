import { randomUUID } from 'node:crypto';
import type { Store } from '../store/connect.js';
import type { JobTable } from '../store/schema.js';
import type { JobHandler, JobQueue, JobState, QueueSettings } from './queue.js';

const now = () => new Date();
const iso = (d: Date) => d.toISOString();
const later = (ms: number) => iso(new Date(Date.now() + ms));

/**
 * The job queue of a single machine: a job table in the board's own database, claimed under a lease. A worker
 * holding a job renews its lease (`leaseSeconds`) while the handler runs; a worker that dies stops renewing, and
 * once the lease runs out (the visibility timeout) the next claim takes the job again, as a new attempt. SQLite
 * serialises write transactions, so a claim is atomic without row locks. (`expireSeconds` is not enforced here:
 * a live worker keeps renewing; pg-boss enforces it on PostgreSQL.)
 */
export class TableJobQueue implements JobQueue {
  readonly backend = 'sqlite-table' as const;
  private stopped = false;
  private readonly running = new Set<Promise<void>>();
  private readonly wakers = new Set<() => void>();

  constructor(
    private readonly store: Store,
    private readonly workerName: string,
  ) {}

  async send(queue: string, data: Record<string, unknown>, key: string, settings: QueueSettings): Promise<string | null> {
    return this.store.db.transaction().execute(async (tx) => {
      const waiting = await tx.selectFrom('jobs').select('id').where('queue', '=', queue).where('job_key', '=', key).where('state', '=', 'created').executeTakeFirst();
      if (waiting) return null;
      const id = randomUUID();
      const at = iso(now());
      await tx.insertInto('jobs').values({
        id, queue, job_key: key, data_json: JSON.stringify(data), state: 'created', attempts: 0, retry_limit: settings.retryLimit,
        retry_delay_ms: settings.retryDelaySeconds * 1000, expire_ms: settings.leaseSeconds * 1000, run_after: at, lease_until: null, worker: null,
        last_error: null, created_at: at, updated_at: at,
      }).execute();
      return id;
    });
  }

  async state(queue: string, jobId: string): Promise<JobState> {
    const job = await this.store.db.selectFrom('jobs').select(['state', 'lease_until']).where('queue', '=', queue).where('id', '=', jobId).executeTakeFirst();
    if (!job) return 'unknown';
    if (job.state === 'created') return 'waiting';
    if (job.state === 'active') return job.lease_until !== null && job.lease_until < iso(now()) ? 'waiting' : 'active';
    return job.state;
  }

  /** Takes the oldest job that is due, or whose holder's lease ran out; null when none is. */
  async claim(queue: string): Promise<JobTable | null> {
    for (;;) {
      const at = iso(now());
      const claimed = await this.store.db.transaction().execute(async (tx) => {
        const job = await tx.selectFrom('jobs').selectAll().where('queue', '=', queue)
          .where((eb) => eb.or([eb.and([eb('state', '=', 'created'), eb('run_after', '<=', at)]), eb.and([eb('state', '=', 'active'), eb('lease_until', '<', at)])]))
          .orderBy('created_at').limit(1).executeTakeFirst();
        if (!job) return null;
        if (job.state === 'active' && job.attempts > job.retry_limit) {
          // Its holder died on the last attempt: the job has failed for good.
          await tx.updateTable('jobs').set({ state: 'failed', last_error: `the worker stopped renewing its lease (${job.worker ?? 'unknown'}) on the last attempt`, updated_at: at }).where('id', '=', job.id).execute();
          return 'retry-claim' as const;
        }
        await tx.updateTable('jobs').set({ state: 'active', attempts: job.attempts + 1, lease_until: later(job.expire_ms), worker: this.workerName, updated_at: at }).where('id', '=', job.id).execute();
        return { ...job, state: 'active' as const, attempts: job.attempts + 1, worker: this.workerName };
      });
      if (claimed !== 'retry-claim') return claimed;
    }
  }

  /** Runs one claimed job: renews its lease while the handler runs, then completes or fails it. */
  private async run(job: JobTable, handler: JobHandler): Promise<void> {
    const renew = setInterval(() => {
      void this.store.db.updateTable('jobs').set({ lease_until: later(job.expire_ms), updated_at: iso(now()) }).where('id', '=', job.id).where('worker', '=', this.workerName).where('state', '=', 'active').execute().catch(() => undefined);
    }, Math.max(100, Math.floor(job.expire_ms / 3)));
    try {
      await handler(JSON.parse(job.data_json) as Record<string, unknown>, { id: job.id, attempt: job.attempts, final: job.attempts > job.retry_limit });
      await this.store.db.updateTable('jobs').set({ state: 'completed', lease_until: null, updated_at: iso(now()) }).where('id', '=', job.id).where('worker', '=', this.workerName).execute();
    } catch (error) {
      const final = job.attempts > job.retry_limit;
      const message = error instanceof Error ? error.message : String(error);
      await this.store.db.updateTable('jobs')
        .set(final ? { state: 'failed', lease_until: null, last_error: message, updated_at: iso(now()) } : { state: 'created', lease_until: null, run_after: later(job.retry_delay_ms), last_error: message, updated_at: iso(now()) })
        .where('id', '=', job.id).where('worker', '=', this.workerName).execute();
    } finally {
      clearInterval(renew);
    }
  }

  async work(queue: string, handler: JobHandler, options: { concurrency?: number; pollMs?: number } = {}): Promise<void> {
    const concurrency = options.concurrency ?? 1;
    const pollMs = options.pollMs ?? 500;
    for (let i = 0; i < concurrency; i++) {
      const loop = (async () => {
        while (!this.stopped) {
          const job = await this.claim(queue).catch(() => null);
          if (job) await this.run(job, handler);
          else await this.sleep(pollMs);
        }
      })();
      this.running.add(loop);
    }
  }

  /** Waits `ms`, or less when the queue stops. */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakers.add(done);
    });
  }

  async stop(timeoutMs = 30_000): Promise<void> {
    this.stopped = true;
    for (const wake of this.wakers) wake();
    await Promise.race([Promise.all(this.running), new Promise((resolve) => setTimeout(resolve, timeoutMs).unref())]);
  }
}
