import { createHash } from 'node:crypto';
import type { GenerationParams } from '../core/model-io.js';
import type { AdapterSpec, ModelAdapter } from '../models/adapter.js';
import { askJournaled, type AskStats } from '../runner/ask-journaled.js';
import type { RetryPolicy } from '../runner/retry.js';
import { GREEN_PROMPT_SHA256, greenPromptFor } from './green.js';
import type { GreenJudgement } from './scoring-service.js';

/** Settings of GREEN's judge behind a model endpoint. */
export interface GreenJudgeOptions {
  /** The judge (StanfordAIMI/GREEN-RadLlama2-7b served by vLLM, say); only its spec is recorded, never a secret. */
  adapter: ModelAdapter;
  /** Every reply, keyed by what was asked: a rerun asks nothing twice, an interrupted run resumes. */
  journalFile: string;
  concurrency?: number;
  retry?: RetryPolicy;
  timeoutMs?: number;
  /**
   * New tokens at most. GREEN generates greedily up to 2,048 tokens in all (prompt included) in its latest code and
   * 2,048 new tokens in its first; a reply is ~300–500 tokens, so the default leaves room without exceeding
   * Llama-2's 4,096-token context with a long prompt.
   */
  maxTokens?: number;
  giveUpAfterFailures?: number;
  onAnswered?: (done: number, total: number) => void;
}

/**
 * The largest GREEN journal read back: a reply is at most --green-max-tokens tokens (2,048 by default, some 8 kB of
 * text) beside its key, so 1 GiB holds the replies for some 100,000 studies. The journal is streamed line by line;
 * the limit (and refusing anything but a regular file) keeps a wrong path from being read without end.
 */
export const MAX_GREEN_JOURNAL_BYTES = 1024 * 1024 * 1024;

const DEFAULTS = {
  concurrency: 8,
  retry: { maxAttempts: 3, baseDelayMs: 1000, maxDelayMs: 20_000 } satisfies RetryPolicy,
  // A 7B judge writes a few hundred tokens per pair; slow servers under load need minutes, not seconds.
  timeoutMs: 300_000,
  maxTokens: 2048,
  giveUpAfterFailures: 5,
};

/**
 * GREEN's judge over an OpenAI-compatible endpoint: one user message holding GREEN's prompt for the pair, greedy
 * decoding; the reply is journaled and read here (green.ts). The endpoint must apply GREEN's chat template
 * (docs/rrg.md says how to start vLLM with it).
 */
export class GreenJudge {
  readonly stats: AskStats = { asked: 0, cached: 0, failed: 0, skipped: 0 };
  private readonly settings: Required<Omit<GreenJudgeOptions, 'onAnswered'>> & Pick<GreenJudgeOptions, 'onAnswered'>;

  constructor(options: GreenJudgeOptions) {
    this.settings = { ...DEFAULTS, ...options };
  }

  get spec(): AdapterSpec {
    return this.settings.adapter.spec;
  }

  get journalFile(): string {
    return this.settings.journalFile;
  }

  /** Greedy, as GREEN generates (do_sample=False). */
  get params(): GenerationParams {
    return { temperature: 0, maxTokens: this.settings.maxTokens };
  }

  /**
   * What decides the reply (the judge model, settings, prompt version, the pair's prompt) and nothing else: not the
   * endpoint's address, so a judge served elsewhere or by more replicas keeps its journal.
   */
  keyOf(prompt: string): string {
    const model = [this.spec.kind, this.spec.args.model ?? this.spec.name];
    return createHash('sha256').update(JSON.stringify([model, this.params, GREEN_PROMPT_SHA256, prompt])).digest('hex');
  }

  /** The judge's reply for each pair, in order (or why there is none: it failed, or was not asked because the judge is down). */
  async judge(pairs: readonly { reference: string; candidate: string }[], signal?: AbortSignal): Promise<GreenJudgement[]> {
    const prompts = pairs.map(greenPromptFor);
    const keys = prompts.map((p) => this.keyOf(p));
    const promptOf = new Map(keys.map((k, i) => [k, prompts[i]!]));
    const { onAnswered, maxTokens: _maxTokens, ...asking } = this.settings;
    const answers = await askJournaled(keys, (key) => ({ questionId: key, messages: [{ role: 'user', content: promptOf.get(key)! }], params: this.params }), { ...asking, offline: false, role: 'GREEN judge', ...(onAnswered ? { onAnswered } : {}) }, this.stats, signal);
    return keys.map((key): GreenJudgement => {
      const answer = answers.get(key);
      if (!answer) return { failed: 'not asked: scoring was stopped' };
      if ('notAsked' in answer) return { failed: answer.notAsked };
      const { prediction } = answer;
      if (prediction.error) return { failed: `${prediction.error.kind}: ${prediction.error.message}` };
      if (!prediction.response) return { failed: 'no response' };
      return { reply: prediction.response.text };
    });
  }
}
