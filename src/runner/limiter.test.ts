import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConcurrencyLimiter } from './limiter.js';
import { isRetryable, retryDelayMs } from './retry.js';

test('limiter: never more than the limit in flight; waiters proceed as slots free', async () => {
  const limiter = new ConcurrencyLimiter(3, false);
  let peak = 0;
  let running = 0;
  await Promise.all(
    Array.from({ length: 20 }, async () => {
      const release = await limiter.acquire();
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, 2));
      running--;
      release();
    }),
  );
  assert.equal(peak, 3);
  assert.equal(limiter.running, 0);
});

test('limiter (adaptive): halves on 429, recovers by one per window of successes, never above the maximum', () => {
  const limiter = new ConcurrencyLimiter(16, true);
  limiter.onRateLimit();
  assert.equal(limiter.limit, 8);
  limiter.onRateLimit();
  limiter.onRateLimit();
  limiter.onRateLimit();
  limiter.onRateLimit();
  assert.equal(limiter.limit, 1);
  limiter.onSuccess(10);
  assert.equal(limiter.limit, 2);
  for (let i = 0; i < 2; i++) limiter.onSuccess(10);
  assert.equal(limiter.limit, 3);
  for (let i = 0; i < 1000; i++) limiter.onSuccess(10);
  assert.equal(limiter.limit, 16);
});

test('limiter (adaptive): latency far above its best lowers the limit; a fixed limiter ignores feedback', () => {
  const limiter = new ConcurrencyLimiter(8, true);
  for (let i = 0; i < 20; i++) limiter.onSuccess(20);
  assert.equal(limiter.limit, 8);
  for (let i = 0; i < 30; i++) limiter.onSuccess(2000);
  assert.ok(limiter.limit < 8, `limit ${limiter.limit}`);
  const fixed = new ConcurrencyLimiter(4, false);
  fixed.onRateLimit();
  fixed.onSuccess(99_999);
  assert.equal(fixed.limit, 4);
});

test('retry: which failures are retried, Retry-After wins, otherwise capped exponential backoff with full jitter', () => {
  assert.deepEqual((['rate-limit', 'server', 'network', 'timeout', 'bad-response', 'client'] as const).map((kind) => isRetryable({ kind, message: '' })), [true, true, true, true, false, false]);
  const policy = { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 1000 };
  assert.equal(retryDelayMs(1, { kind: 'rate-limit', message: '', retryAfterMs: 700 }, policy), 700);
  assert.equal(retryDelayMs(1, { kind: 'rate-limit', message: '', retryAfterMs: 5000 }, policy), 1000);
  assert.equal(retryDelayMs(1, { kind: 'server', message: '' }, policy, () => 0.999999), 100);
  assert.equal(retryDelayMs(3, { kind: 'server', message: '' }, policy, () => 0.5), 200);
  assert.equal(retryDelayMs(10, { kind: 'server', message: '' }, policy, () => 0.999999), 1000);
  assert.equal(retryDelayMs(4, { kind: 'server', message: '' }, policy, () => 0), 0);
});
