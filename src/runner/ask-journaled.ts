import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ModelRequest, Prediction } from '../core/model-io.js';
import type { ModelAdapter } from '../models/adapter.js';
import { JournalIndex, JournalWriter } from './journal.js';
import { ConcurrencyLimiter } from './limiter.js';
import type { RetryPolicy } from './retry.js';
import { sendWithRetries } from './send.js';

/** How a helper model (an answer judge, GREEN's judge) is asked, with every reply journaled. */
export interface JournaledAskSettings {
  adapter: ModelAdapter;
  /** Every reply, keyed by what was asked, so a rerun asks nothing twice and an interrupted one resumes. */
  journalFile: string;
  /** Never send a request: answer from the journal only. */
  offline: boolean;
  concurrency: number;
  retry: RetryPolicy;
  timeoutMs: number;
  /** Stop asking after this many requests in a row failed (the model is down): the rest are not asked. */
  giveUpAfterFailures: number;
  /** What the model is, in messages ("judge", "GREEN judge"). */
  role: string;
  /** Told after each request is answered, for progress display. */
  onAnswered?: (done: number, total: number) => void;
}

/** What the asking did, summed over calls. */
export interface AskStats {
  asked: number;
  cached: number;
  failed: number;
  skipped: number;
}

/** A key's answer: its journaled prediction (a response or its final failure), or why it was not asked. */
export type JournaledAnswer = { prediction: Prediction } | { notAsked: string };

/**
 * Asks each key's request once and journals the reply; keys already answered in the journal are not asked again
 * (failures are). Returns every key that has an answer now: a key missing from the result was not decided (offline,
 * or stopped before it). `requests` builds a key's request only when it is asked.
 */
export async function askJournaled(keys: Iterable<string>, requests: (key: string) => ModelRequest, settings: JournaledAskSettings, stats: AskStats, signal?: AbortSignal): Promise<Map<string, JournaledAnswer>> {
  mkdirSync(dirname(settings.journalFile), { recursive: true });
  const journal = JournalIndex.open(settings.journalFile);
  const all = [...keys];
  const wanted = [...new Set(all)];
  const answered = (key: string) => journal.get(key)?.failed === false;
  // Counted per key given, repeats included (what was answered from the journal); asked once per distinct key.
  stats.cached += all.filter(answered).length;
  const toAsk = settings.offline ? [] : wanted.filter((key) => !answered(key));
  const notAsked = toAsk.length > 0 ? await ask(toAsk, requests, journal, settings, stats, signal) : new Map<string, string>();
  const reader = journal.reader();
  try {
    const answers = new Map<string, JournaledAnswer>();
    for (const key of wanted) {
      const why = notAsked.get(key);
      if (why !== undefined) {
        answers.set(key, { notAsked: why });
        continue;
      }
      const prediction = reader.read(key);
      if (prediction) answers.set(key, { prediction });
    }
    return answers;
  } finally {
    reader.close();
  }
}

async function ask(toAsk: readonly string[], requests: (key: string) => ModelRequest, journal: JournalIndex, settings: JournaledAskSettings, stats: AskStats, signal?: AbortSignal): Promise<Map<string, string>> {
  const { adapter, retry, timeoutMs, concurrency, giveUpAfterFailures, onAnswered } = settings;
  const notAsked = new Map<string, string>();
  const writer = new JournalWriter(settings.journalFile);
  const limiter = new ConcurrencyLimiter(concurrency, false);
  const stop = new AbortController();
  // A run stopped before asking asks nothing: an already-aborted signal never fires its listener.
  if (signal?.aborted) stop.abort();
  signal?.addEventListener('abort', () => stop.abort(), { once: true });
  let failuresInARow = 0;
  let gaveUp: string | null = null;
  let done = 0;
  const inFlight = new Set<Promise<void>>();
  try {
    for (const key of toAsk) {
      const release = await limiter.acquire();
      if (stop.signal.aborted || gaveUp !== null) {
        release();
        if (gaveUp !== null) notAsked.set(key, gaveUp);
        continue;
      }
      const task = (async () => {
        try {
          const prediction = await sendWithRetries(requests(key), undefined, { adapter, retry, timeoutMs, limiter, stop: stop.signal, random: Math.random });
          if (prediction === null) {
            if (gaveUp !== null) notAsked.set(key, gaveUp);
            return;
          }
          journal.set(key, writer.append(prediction));
          stats.asked++;
          if (prediction.error) {
            stats.failed++;
            if (++failuresInARow >= giveUpAfterFailures && gaveUp === null) {
              gaveUp = `${settings.role} unavailable: ${failuresInARow} requests in a row failed (last: ${prediction.error.kind}: ${prediction.error.message}); not asked`;
              stop.abort();
            }
          } else failuresInARow = 0;
          onAnswered?.(++done, toAsk.length);
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
  stats.skipped += notAsked.size;
  return notAsked;
}
