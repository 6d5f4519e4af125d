/**
 * The job queue the board scores on: a submission is sent as a job; workers (threads of `cxrbench serve`, or
 * `cxrbench worker` processes) take jobs, run them, and complete or fail them. Delivery is at least once — a
 * worker that dies mid-job lets its lease (visibility timeout) run out and another worker takes the job — so
 * handlers are idempotent. Two implementations: pg-boss on PostgreSQL, a job table on SQLite.
 */

/** Retry and timeout policy of a queue's jobs. */
export interface QueueSettings {
  /** Retries after the first attempt. */
  retryLimit: number;
  retryDelaySeconds: number;
  /** How long one attempt may run at most. */
  expireSeconds: number;
  /**
   * How long a worker that stops reporting keeps its job: the visibility timeout after which another worker
   * takes it. The worker renews it while it works (SQLite: a lease; pg-boss: heartbeats, at least 10 s).
   */
  leaseSeconds: number;
}

/** What a handler knows about the attempt it runs. */
export interface JobAttempt {
  id: string;
  /** 1 for the first attempt. */
  attempt: number;
  /** No retry follows if this attempt fails: the handler records the failure for people to see. */
  final: boolean;
}

export type JobHandler = (data: Record<string, unknown>, attempt: JobAttempt) => Promise<void>;

/** Where a job is: waiting (created or retrying), running, done, failed for good, or not known (deleted). */
export type JobState = 'waiting' | 'active' | 'completed' | 'failed' | 'unknown';

export interface JobQueue {
  readonly backend: 'pg-boss' | 'sqlite-table';
  /** Sends a job; `key` keeps at most one waiting job per key (resending a waiting submission is a no-op). Returns the job id, or null when one already waits. */
  send(queue: string, data: Record<string, unknown>, key: string, settings: QueueSettings): Promise<string | null>;
  /** Runs `handler` on the queue's jobs until `stop`: `concurrency` at once, polling every `pollMs` when idle. */
  work(queue: string, handler: JobHandler, options?: { concurrency?: number; pollMs?: number }): Promise<void>;
  state(queue: string, jobId: string): Promise<JobState>;
  /** Stops taking jobs and waits (up to `timeoutMs`) for those in hand. */
  stop(timeoutMs?: number): Promise<void>;
}

/** The scoring queue's name. */
export const SCORING_QUEUE = 'score-submission';

/**
 * The scoring queue's policy: 3 attempts, 5 s apart; an attempt may take 30 minutes (report-generation metrics
 * will); a worker that dies is noticed within 30 s. `CXRBENCH_SCORING_LEASE_SECONDS` shortens the lease (tests).
 */
export function scoringSettings(env: NodeJS.ProcessEnv = process.env): QueueSettings {
  const lease = Number(env.CXRBENCH_SCORING_LEASE_SECONDS);
  const delay = Number(env.CXRBENCH_SCORING_RETRY_DELAY_SECONDS);
  return { retryLimit: 2, retryDelaySeconds: Number.isFinite(delay) && delay >= 0 ? delay : 5, expireSeconds: 1800, leaseSeconds: Number.isFinite(lease) && lease > 0 ? lease : 30 };
}
