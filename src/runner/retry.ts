import type { Failure, FailureKind } from '../core/model-io.js';

/** Retry settings of a run. */
export interface RetryPolicy {
  /** Attempts per question, the first included. */
  maxAttempts: number;
  /** Delay before the second attempt; doubles each time (with full jitter). */
  baseDelayMs: number;
  /** Longest wait between attempts, Retry-After included. */
  maxDelayMs: number;
}

const RETRYABLE = new Set<FailureKind>(['rate-limit', 'server', 'network', 'timeout']);

/** Whether a failure is worth another attempt: rate limits, 5xx, network errors and timeouts are; bad requests and unreadable answers are not. */
export function isRetryable(failure: Failure): boolean {
  return RETRYABLE.has(failure.kind);
}

/**
 * How long to wait before attempt `attempt + 1`: the endpoint's Retry-After when it sent one, else exponential
 * backoff with full jitter (a random delay up to base·2^(attempt−1)), so many clients do not retry in step.
 */
export function retryDelayMs(attempt: number, failure: Failure, policy: RetryPolicy, random: () => number = Math.random): number {
  if (failure.retryAfterMs !== undefined) return Math.min(policy.maxDelayMs, Math.max(0, failure.retryAfterMs));
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(random() * ceiling);
}
