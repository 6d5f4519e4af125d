import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ModelRequest, Prediction } from '../../core/model-io.js';
import type { ModelAdapter } from '../../models/adapter.js';
import { JournalIndex, JournalWriter } from '../../runner/journal.js';
import { ConcurrencyLimiter } from '../../runner/limiter.js';
import type { RetryPolicy } from '../../runner/retry.js';
import { sendWithRetries } from '../../runner/send.js';

export interface AskerOptions {
  adapter: ModelAdapter;
  journalFile: string;
  concurrency: number;
  adaptiveConcurrency: boolean;
  retry: RetryPolicy;
  timeoutMs: number;
}

/**
 * Asks a model through the runner's sender (retries, back-off, timeouts, adaptive concurrency) and journal: a
 * request whose key (`questionId`) has an answer in the journal is answered from it, so a rerun — after Ctrl-C or
 * SIGKILL — asks nothing twice. Failed answers are asked again.
 */
export class JournaledAsker {
  readonly stop = new AbortController();
  readonly journal: JournalIndex;
  readonly writer: JournalWriter;
  private readonly limiter: ConcurrencyLimiter;

  /** Never send: answer from the journal only, failures included (after a batch round wrote it). */
  offline = false;

  constructor(private readonly options: AskerOptions, signal?: AbortSignal) {
    mkdirSync(dirname(options.journalFile), { recursive: true });
    this.journal = JournalIndex.open(options.journalFile);
    this.writer = new JournalWriter(options.journalFile);
    this.limiter = new ConcurrencyLimiter(options.concurrency, options.adaptiveConcurrency);
    signal?.addEventListener('abort', () => this.stop.abort(), { once: true });
  }

  /** The prediction for a request, from the journal or asked now; null when stopped before an answer. */
  async ask(request: ModelRequest): Promise<Prediction | null> {
    const entry = this.journal.get(request.questionId);
    if (entry && (!entry.failed || this.offline)) {
      const reader = this.journal.reader();
      try {
        return reader.read(request.questionId) ?? null;
      } finally {
        reader.close();
      }
    }
    if (this.offline) return null;
    const release = await this.limiter.acquire();
    try {
      const { adapter, retry, timeoutMs } = this.options;
      const prediction = await sendWithRetries(request, undefined, { adapter, retry, timeoutMs, limiter: this.limiter, stop: this.stop.signal, random: Math.random });
      if (prediction) this.journal.set(request.questionId, this.writer.append(prediction));
      return prediction;
    } finally {
      release();
    }
  }

  close(): void {
    this.writer.close();
  }
}
