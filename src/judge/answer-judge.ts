import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { AnswerJudge, JudgeItem, JudgeVerdict } from '../core/extraction.js';
import type { GenerationParams, Prediction } from '../core/model-io.js';
import type { AdapterSpec, ModelAdapter } from '../models/adapter.js';
import { JournalIndex, JournalWriter } from '../runner/journal.js';
import { ConcurrencyLimiter } from '../runner/limiter.js';
import type { RetryPolicy } from '../runner/retry.js';
import { sendWithRetries } from '../runner/send.js';
import { buildJudgeRequest, JUDGE_PROMPT_SHA256, parseJudgeReply } from './judge-prompt.js';

/** Settings of an answer judge. */
export interface AnswerJudgeOptions {
  /** The judge model (an OpenAI-compatible endpoint); only its spec is stored, never a secret. */
  adapter: ModelAdapter;
  /** The judge's journal: every reply, keyed by what was asked, so a rerun asks nothing twice. */
  journalFile: string;
  /** Never send a request: decide from the journal only (re-scoring a saved run offline). */
  offline?: boolean;
  concurrency?: number;
  retry?: RetryPolicy;
  timeoutMs?: number;
  params?: GenerationParams;
  /** Stop asking after this many items in a row failed (the judge is down): the rest stay unreadable at once. */
  giveUpAfterFailures?: number;
  /** Told after each item is decided, for progress display. */
  onDecided?: (done: number, total: number) => void;
}

/** What one call to `decide` did, for messages. */
export interface JudgeStats {
  asked: number;
  cached: number;
  failed: number;
  skipped: number;
}

const DEFAULTS = {
  concurrency: 8,
  retry: { maxAttempts: 3, baseDelayMs: 1000, maxDelayMs: 20_000 } satisfies RetryPolicy,
  timeoutMs: 60_000,
  // Room for a short reasoning preamble; the reply itself is one word.
  params: { temperature: 0, maxTokens: 64 } satisfies GenerationParams,
  giveUpAfterFailures: 5,
};

/** An answer judge over a model endpoint, with its decisions journaled and cached (see {@link AnswerJudge}). */
export class EndpointAnswerJudge implements AnswerJudge {
  readonly model: string;
  /** Totals over every `decide` call. */
  readonly stats: JudgeStats = { asked: 0, cached: 0, failed: 0, skipped: 0 };
  private readonly settings: Required<Omit<AnswerJudgeOptions, 'onDecided'>> & Pick<AnswerJudgeOptions, 'onDecided'>;

  constructor(options: AnswerJudgeOptions) {
    this.settings = { ...DEFAULTS, offline: false, ...options };
    this.model = options.adapter.spec.name;
  }

  /** Checks that the judge's endpoint answers (when its adapter can tell); throws with what to fix. */
  async preflight(signal: AbortSignal): Promise<void> {
    await this.settings.adapter.preflight?.(signal);
  }

  /** The judge model's spec (what the manifest records). */
  get spec(): AdapterSpec {
    return this.settings.adapter.spec;
  }

  /** The generation settings of judge requests (part of the cache key and the manifest). */
  get params(): { temperature: number; maxTokens: number } {
    return { temperature: this.settings.params.temperature, maxTokens: this.settings.params.maxTokens };
  }

  /**
   * The cache key of an item: what decides the judge's reply (judge model and arguments, prompt, options,
   * question, output) and nothing else, so the same output is never asked about twice.
   */
  keyOf(item: JudgeItem): string {
    const { adapter, params } = this.settings;
    const asked = JSON.stringify([adapter.spec, params, JUDGE_PROMPT_SHA256, item.options, item.question ?? null, item.output]);
    return createHash('sha256').update(asked).digest('hex');
  }

  async decide(items: readonly JudgeItem[], signal?: AbortSignal): Promise<Map<string, JudgeVerdict>> {
    const { journalFile, offline } = this.settings;
    mkdirSync(dirname(journalFile), { recursive: true });
    const journal = JournalIndex.open(journalFile);
    const keys = new Map(items.map((item) => [item.id, this.keyOf(item)]));
    // Ask each distinct key once; keys with a reply in the journal are not asked again (failures are).
    const toAsk = new Map<string, JudgeItem>();
    for (const item of items) {
      const key = keys.get(item.id)!;
      const entry = journal.get(key);
      if (entry && !entry.failed) this.stats.cached++;
      else if (!offline && !toAsk.has(key)) toAsk.set(key, item);
    }
    const failedNow = new Map<string, string>();
    if (toAsk.size > 0) await this.ask(toAsk, journal, failedNow, signal);
    const reader = journal.reader();
    try {
      const verdicts = new Map<string, JudgeVerdict>();
      for (const item of items) {
        const key = keys.get(item.id)!;
        const skippedBecause = failedNow.get(key);
        if (skippedBecause !== undefined) {
          verdicts.set(item.id, { kind: 'failed', error: skippedBecause });
          continue;
        }
        const prediction = reader.read(key);
        if (!prediction) continue; // offline, or stopped before this item: not decided
        verdicts.set(item.id, verdictOf(prediction));
      }
      return verdicts;
    } finally {
      reader.close();
    }
  }

  private async ask(toAsk: Map<string, JudgeItem>, journal: JournalIndex, failedNow: Map<string, string>, signal?: AbortSignal): Promise<void> {
    const { adapter, retry, timeoutMs, params, concurrency, giveUpAfterFailures, onDecided } = this.settings;
    const writer = new JournalWriter(this.settings.journalFile);
    const limiter = new ConcurrencyLimiter(concurrency, false);
    const stop = new AbortController();
    signal?.addEventListener('abort', () => stop.abort(), { once: true });
    let failuresInARow = 0;
    let gaveUp: string | null = null;
    let done = 0;
    const inFlight = new Set<Promise<void>>();
    try {
      for (const [key, item] of toAsk) {
        const release = await limiter.acquire();
        if (stop.signal.aborted || gaveUp !== null) {
          release();
          if (gaveUp !== null) failedNow.set(key, gaveUp);
          continue;
        }
        const task = (async () => {
          try {
            const prediction = await sendWithRetries(buildJudgeRequest(item, key, params), undefined, { adapter, retry, timeoutMs, limiter, stop: stop.signal, random: Math.random });
            if (prediction === null) {
              if (gaveUp !== null) failedNow.set(key, gaveUp);
              return;
            }
            journal.set(key, writer.append(prediction));
            this.stats.asked++;
            if (prediction.error) {
              this.stats.failed++;
              if (++failuresInARow >= giveUpAfterFailures && gaveUp === null) {
                gaveUp = `judge unavailable: ${failuresInARow} requests in a row failed (last: ${prediction.error.kind}: ${prediction.error.message}); not asked`;
                stop.abort();
              }
            } else failuresInARow = 0;
            onDecided?.(++done, toAsk.size);
          } finally {
            release();
          }
        })();
        const tracked = task.finally(() => inFlight.delete(tracked));
        inFlight.add(tracked);
      }
      await Promise.all(inFlight);
    } finally {
      writer.close();
    }
    this.stats.skipped += failedNow.size;
  }
}

/** The verdict a journaled judge prediction holds. */
function verdictOf(prediction: Prediction): JudgeVerdict {
  if (prediction.error || !prediction.response) return { kind: 'failed', error: prediction.error ? `${prediction.error.kind}: ${prediction.error.message}` : 'no response' };
  return parseJudgeReply(prediction.response.text);
}
