import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { ModelRequest } from '../../core/model-io.js';
import type { ModelAdapter } from '../../models/adapter.js';
import type { GeneratedQuestion } from '../generated-question.js';
import { parseJsonReply } from '../model/json-reply.js';
import { JournaledAsker } from '../model/journaled-asker.js';
import { QUESTION_JUDGE_PROMPT, QUESTION_JUDGE_SCHEMA, promptSha256 } from '../model/prompts.js';

const Verdict = z.object({ pass: z.boolean(), reason: z.string() });
const Reply = z.object({ c1: Verdict, c2: Verdict, c3: Verdict });

/** The content validators c1–c3 asked of a model (optional, after the offline heuristics): each failure with its reason. */
export class QuestionJudge {
  private readonly options: { adapter: ModelAdapter; journalFile: string; concurrency: number; timeoutMs: number };

  constructor(options: { adapter: ModelAdapter; journalFile: string; concurrency?: number; timeoutMs?: number }) {
    this.options = { concurrency: 8, timeoutMs: 120_000, ...options };
  }

  /** What the card records: the judge model and its prompt's version and hash. */
  get description(): { model: string; prompt: { id: string; version: string; sha256: string } } {
    return { model: this.options.adapter.spec.name, prompt: { id: QUESTION_JUDGE_PROMPT.id, version: QUESTION_JUDGE_PROMPT.version, sha256: promptSha256(QUESTION_JUDGE_PROMPT) } };
  }

  private request(q: GeneratedQuestion, report: string): ModelRequest {
    const fill: Record<string, string> = { report, question: q.question, options: q.options.map((o, i) => `${'ABCD'[i]}. ${o}`).join('\n'), answer: q.answer, explanation: q.explanation };
    const user = QUESTION_JUDGE_PROMPT.user.replace(/\{\{(\w+)\}\}/g, (_, name: string) => fill[name] ?? '');
    const key = createHash('sha256').update(JSON.stringify([this.options.adapter.spec, promptSha256(QUESTION_JUDGE_PROMPT), user])).digest('hex');
    return { questionId: key, messages: [{ role: 'system', content: QUESTION_JUDGE_PROMPT.system }, { role: 'user', content: [{ type: 'text', text: user }] }], params: { temperature: 0, maxTokens: 512, jsonSchema: { name: 'question_review', schema: QUESTION_JUDGE_SCHEMA } } };
  }

  /**
   * Judges each question against its report text. A question fails when the judge fails it on any of c1–c3, and
   * also when the judge could not be asked or its reply is unreadable (a question passes only what it was checked by).
   */
  async judge(items: { q: GeneratedQuestion; report: string }[], signal?: AbortSignal): Promise<Map<string, [string, string][]>> {
    const asker = new JournaledAsker({ adapter: this.options.adapter, journalFile: this.options.journalFile, concurrency: this.options.concurrency, adaptiveConcurrency: true, retry: { maxAttempts: 4, baseDelayMs: 1000, maxDelayMs: 30_000 }, timeoutMs: this.options.timeoutMs }, signal);
    const out = new Map<string, [string, string][]>();
    try {
      await Promise.all(items.map(async ({ q, report }) => {
        const prediction = await asker.ask(this.request(q, report));
        if (!prediction) return;
        if (prediction.error || !prediction.response) {
          out.set(q.id, [['judge', `judge request failed: ${prediction.error?.kind ?? 'no response'}: ${prediction.error?.message ?? ''}`.trim()]]);
          return;
        }
        const reply = parseJsonReply(prediction.response.text, Reply);
        if (!reply) {
          out.set(q.id, [['judge', `judge reply unreadable: ${prediction.response.text.slice(0, 120)}`]]);
          return;
        }
        out.set(q.id, (['c1', 'c2', 'c3'] as const).filter((k) => !reply[k].pass).map((k): [string, string] => [`${k} (judge)`, `judge: ${reply[k].reason}`]));
      }));
    } finally {
      asker.close();
    }
    return out;
  }
}
