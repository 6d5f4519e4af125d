import { createHash } from 'node:crypto';
import type { AnswerJudge, JudgeItem, JudgeVerdict } from '../core/extraction.js';
import type { GenerationParams, Prediction } from '../core/model-io.js';
import type { AdapterSpec, ModelAdapter } from '../models/adapter.js';
import { askJournaled, type AskStats } from '../runner/ask-journaled.js';
import type { RetryPolicy } from '../runner/retry.js';
import { buildJudgeRequest, judgePromptFor, parseJudgeReply } from './judge-prompt.js';

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
  /** Stop asking after this many items in a row failed (the judge is down): the rest stay unparseable at once. */
  giveUpAfterFailures?: number;
  /** Told after each item is decided, for progress display. */
  onDecided?: (done: number, total: number) => void;
}

/** What the judge did, for messages. */
export type JudgeStats = AskStats;

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
    const asked = JSON.stringify([adapter.spec, params, judgePromptFor(item).sha256, item.options, item.question ?? null, item.output]);
    return createHash('sha256').update(asked).digest('hex');
  }

  async decide(items: readonly JudgeItem[], signal?: AbortSignal): Promise<Map<string, JudgeVerdict>> {
    const keys = new Map(items.map((item) => [item.id, this.keyOf(item)]));
    const itemOf = new Map(items.map((item) => [keys.get(item.id)!, item]));
    const { onDecided, params, ...asking } = this.settings;
    const answers = await askJournaled(keys.values(), (key) => buildJudgeRequest(itemOf.get(key)!, key, params), { ...asking, role: 'judge', ...(onDecided ? { onAnswered: onDecided } : {}) }, this.stats, signal);
    const verdicts = new Map<string, JudgeVerdict>();
    for (const item of items) {
      const answer = answers.get(keys.get(item.id)!);
      if (!answer) continue; // offline, or stopped before this item: not decided
      verdicts.set(item.id, 'notAsked' in answer ? { kind: 'failed', error: answer.notAsked } : verdictOf(answer.prediction));
    }
    return verdicts;
  }
}

/** The verdict a journaled judge prediction holds. */
function verdictOf(prediction: Prediction): JudgeVerdict {
  if (prediction.error || !prediction.response) return { kind: 'failed', error: prediction.error ? `${prediction.error.kind}: ${prediction.error.message}` : 'no response' };
  return parseJudgeReply(prediction.response.text);
}
