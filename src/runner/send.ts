import type { Failure, ModelRequest, Prediction } from '../core/model-io.js';
import type { Question } from '../core/question.js';
import type { ModelAdapter } from '../models/adapter.js';
import type { ConcurrencyLimiter } from './limiter.js';
import { isRetryable, retryDelayMs, type RetryPolicy } from './retry.js';
import { sleep } from './sleep.js';

/** How one request is sent: the adapter, retries, the per-attempt timeout, and the run's limiter and stop signal. */
export interface SendSettings {
  adapter: ModelAdapter;
  retry: RetryPolicy;
  timeoutMs: number;
  limiter: ConcurrencyLimiter;
  /** Aborting abandons the request: no prediction is returned, so it is asked again on resume. */
  stop: AbortSignal;
  random: () => number;
}

/**
 * Sends one request, retrying what is worth retrying (rate limits, 5xx, network faults, timeouts), and returns
 * its prediction: the response, or the last failure. Returns null when the run stopped before an answer.
 * Shared by the evaluation runner and the answer judge: retry, timeout and back-off live here once.
 */
export async function sendWithRetries(request: ModelRequest, question: Question | undefined, settings: SendSettings, started = Date.now()): Promise<Prediction | null> {
  const { adapter, retry, timeoutMs, limiter, stop, random } = settings;
  let failure: Failure | null = null;
  let attempt = 0;
  while (attempt < retry.maxAttempts) {
    attempt++;
    if (stop.aborted) return null;
    const attemptStarted = Date.now();
    // One controller per attempt, released when the attempt ends. (AbortSignal.any with AbortSignal.timeout keeps
    // every request's signal — and through fetch's listeners its body — alive until the timer fires: at 41K
    // requests that held hundreds of MB.)
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onStop = () => controller.abort();
    stop.addEventListener('abort', onStop, { once: true });
    try {
      const response = await adapter.generate(request, { signal: controller.signal, ...(question ? { question } : {}) });
      limiter.onSuccess(Date.now() - attemptStarted);
      return { questionId: request.questionId, response, attempts: attempt, latencyMs: Date.now() - started, at: new Date().toISOString() };
    } catch (error) {
      if (stop.aborted) return null;
      failure = timedOut ? { kind: 'timeout', message: `no answer within ${timeoutMs} ms` } : adapter.classifyError(error);
      if (failure.kind === 'rate-limit') limiter.onRateLimit();
      if (!isRetryable(failure) || attempt >= retry.maxAttempts) break;
    } finally {
      clearTimeout(timer);
      stop.removeEventListener('abort', onStop);
    }
    await sleep(retryDelayMs(attempt, failure, retry, random), stop);
  }
  return { questionId: request.questionId, error: failure!, attempts: attempt, latencyMs: Date.now() - started, at: new Date().toISOString() };
}
