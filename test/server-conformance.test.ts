import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ModelRequest, OutcomeStatus } from '../src/core/model-io.js';
import type { Question } from '../src/core/question.js';
import { mergeRequestParams } from '../src/core/request-params.js';
import { openAICompatibleAdapter } from '../src/models/openai-compatible.js';
import { PRESETS } from '../src/models/presets.js';
import { outcomeOf } from '../src/runner/outcomes.js';
import { startFakeOpenAI, type FakeServer } from './helpers/fake-openai-server.js';

/**
 * Conformance of the OpenAI-compatible adapter with the servers it is pointed at: each case replays a chat-completion
 * body in the shape its server documents (source given per case; ids, timestamps and texts are ours, the fields and
 * their placement are the server's) through a real HTTP stand-in on 127.0.0.1, and checks what cxrbench sends (the
 * request body, options merged), what it stores (answer, reasoning, reasoning tokens, finish reason) and how it reads
 * it (the outcome).
 */
const question: Question = {
  id: 'q1', split: 'test', studyId: 's1', text: 'Is there a right pleural effusion?', options: ['Yes, small', 'Yes, large', 'No', 'Cannot tell'],
  answer: 'C', task: 'Presence Assessment', category: 'Pleural Effusion', subcategory: null, explanation: '', images: [], meta: {},
};

interface Case {
  server: string;
  source: string;
  /** `--param`s given, over the preset's options (if any). */
  preset?: string;
  params?: string[];
  /** Fields of the request body cxrbench must send. */
  sends: Record<string, unknown>;
  /** Fields it must not send. */
  omits?: string[];
  body: (model: string) => unknown;
  stores: { text: string; reasoning?: string; reasoningTokens?: number; finishReason: string };
  outcome: { status: OutcomeStatus; rule: string };
}

const usage = (completion: number, extra: Record<string, unknown> = {}) => ({ prompt_tokens: 1024, completion_tokens: completion, total_tokens: 1024 + completion, ...extra });
const chat = (model: string, message: Record<string, unknown>, finish: string, u: unknown, extra: Record<string, unknown> = {}) => ({
  id: 'chatcmpl-7a1', object: 'chat.completion', created: 1767225600, model, choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finish, ...extra }], usage: u,
});

const CASES: Case[] = [
  {
    server: 'vLLM with --reasoning-parser (Gemma 4, thinking on: message.reasoning beside content)',
    source: 'https://docs.vllm.ai/en/stable/features/reasoning_outputs/',
    preset: 'gemma-4-31b-thinking',
    sends: { model: 'google/gemma-4-31B-it', chat_template_kwargs: { enable_thinking: true }, max_tokens: 8192, temperature: 0 },
    body: (m) => chat(m, { reasoning: 'Blunted right costophrenic angle? No: it is sharp. No effusion.', content: '{"answer": "C", "explanation": "sharp angles"}', tool_calls: [] }, 'stop', usage(900), { logprobs: null, stop_reason: null }),
    stores: { text: '{"answer": "C", "explanation": "sharp angles"}', reasoning: 'Blunted right costophrenic angle? No: it is sharp. No effusion.', finishReason: 'stop' },
    outcome: { status: 'correct', rule: 'json' },
  },
  {
    server: 'vLLM with --reasoning-parser, content null (the answer left inside the reasoning)',
    source: 'https://docs.vllm.ai/en/stable/features/reasoning_outputs/ (content is None when the parser finds no end of reasoning)',
    params: ['chat_template_kwargs={"enable_thinking":true}'],
    sends: { chat_template_kwargs: { enable_thinking: true } },
    body: (m) => chat(m, { reasoning: 'Both angles are sharp and there is no meniscus. Final answer: C', content: null, tool_calls: [] }, 'stop', usage(300), { logprobs: null, stop_reason: null }),
    stores: { text: '', reasoning: 'Both angles are sharp and there is no meniscus. Final answer: C', finishReason: 'stop' },
    outcome: { status: 'correct', rule: 'reasoning:final-answer' },
  },
  {
    server: 'vLLM with --reasoning-parser, cut at max_tokens while thinking',
    source: 'https://docs.vllm.ai/en/stable/features/reasoning_outputs/',
    params: ['chat_template_kwargs={"enable_thinking":true}'],
    sends: { chat_template_kwargs: { enable_thinking: true } },
    body: (m) => chat(m, { reasoning: 'First the lungs. The right base shows', content: null, tool_calls: [] }, 'length', usage(512), { logprobs: null, stop_reason: null }),
    stores: { text: '', reasoning: 'First the lungs. The right base shows', finishReason: 'length' },
    outcome: { status: 'truncated', rule: 'empty' },
  },
  {
    server: 'SGLang with --reasoning-parser qwen3 (message.reasoning_content), Qwen3 thinking switched off and back on',
    source: 'https://docs.sglang.io/docs/advanced_features/separate_reasoning',
    params: ['chat_template_kwargs={"enable_thinking":true}', 'top_k=20', 'min_p=0', 'repetition_penalty=1.05'],
    sends: { chat_template_kwargs: { enable_thinking: true }, top_k: 20, min_p: 0, repetition_penalty: 1.05 },
    body: (m) => chat(m, { content: 'The answer is C.', reasoning_content: 'No fluid is layering at the right base.', tool_calls: null }, 'stop', usage(120), { matched_stop: 151645 }),
    stores: { text: 'The answer is C.', reasoning: 'No fluid is layering at the right base.', finishReason: 'stop' },
    outcome: { status: 'correct', rule: 'answer' },
  },
  {
    server: "Ollama's OpenAI compatibility (/v1/chat/completions)",
    source: 'https://github.com/ollama/ollama/blob/main/docs/openai.md',
    params: ['top_k=40'],
    sends: { top_k: 40, max_tokens: 512 },
    body: (m) => ({ ...chat(m, { content: 'B' }, 'stop', usage(2)), system_fingerprint: 'fp_ollama' }),
    stores: { text: 'B', finishReason: 'stop' },
    outcome: { status: 'wrong', rule: 'letter-line' },
  },
  {
    server: 'OpenAI, a refusal (message.refusal with content null)',
    source: 'https://platform.openai.com/docs/api-reference/chat/object',
    params: [],
    sends: { max_tokens: 512 },
    body: (m) => ({ ...chat(m, { content: null, refusal: "I'm sorry, I can't help with interpreting medical images.", annotations: [] }, 'stop', usage(14, { completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 } }), { logprobs: null }), service_tier: 'default', system_fingerprint: null }),
    stores: { text: "I'm sorry, I can't help with interpreting medical images.", reasoningTokens: 0, finishReason: 'stop' },
    outcome: { status: 'unparseable', rule: 'refusal' },
  },
  {
    server: 'OpenAI, a reasoning model (max_completion_tokens instead of max_tokens; reasoning counted, not returned)',
    source: 'https://platform.openai.com/docs/api-reference/chat/create (max_tokens is not compatible with o-series models)',
    preset: 'gpt-5',
    sends: { model: 'gpt-5', max_completion_tokens: 8192, reasoning_effort: 'medium', temperature: 1 },
    omits: ['max_tokens'],
    body: (m) => chat(m, { content: '{"answer": "C"}', refusal: null, annotations: [] }, 'stop', usage(1730, { completion_tokens_details: { reasoning_tokens: 1664, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 } }), { logprobs: null }),
    stores: { text: '{"answer": "C"}', reasoningTokens: 1664, finishReason: 'stop' },
    outcome: { status: 'correct', rule: 'json' },
  },
  {
    server: "Gemini's OpenAI-compatible endpoint (reasoning_effort)",
    source: 'https://ai.google.dev/gemini-api/docs/openai',
    preset: 'gemini-2.5-flash',
    params: ['reasoning_effort="low"'],
    sends: { model: 'gemini-2.5-flash', reasoning_effort: 'low', max_tokens: 8192 },
    body: (m) => chat(m, { content: 'C. No' }, 'stop', { completion_tokens: 3, prompt_tokens: 1290, total_tokens: 1580 }),
    stores: { text: 'C. No', finishReason: 'stop' },
    outcome: { status: 'correct', rule: 'leading-letter' },
  },
  {
    server: "Anthropic's OpenAI SDK compatibility (cut at max_tokens)",
    source: 'https://platform.claude.com/docs/en/api/openai-sdk',
    preset: 'claude-opus-4-6',
    sends: { model: 'claude-opus-4-6', temperature: 0, max_tokens: 512 },
    body: (m) => chat(m, { content: 'Looking at the right costophrenic angle, I' }, 'length', usage(512)),
    stores: { text: 'Looking at the right costophrenic angle, I', finishReason: 'length' },
    outcome: { status: 'truncated', rule: 'no-match' },
  },
  {
    server: 'OpenRouter (message.reasoning and reasoning_details, usage.completion_tokens_details.reasoning_tokens)',
    source: 'https://openrouter.ai/docs/use-cases/reasoning-tokens',
    params: ['reasoning={"effort":"high"}'],
    sends: { reasoning: { effort: 'high' } },
    body: (m) => ({ ...chat(m, { content: '<answer>C</answer>', refusal: null, reasoning: 'The angles are sharp.', reasoning_details: [{ type: 'reasoning.text', text: 'The angles are sharp.', format: 'anthropic-claude-v1', index: 0 }] }, 'stop', usage(240, { completion_tokens_details: { reasoning_tokens: 200 } }), { native_finish_reason: 'end_turn', logprobs: null }), provider: 'Anthropic' }),
    stores: { text: '<answer>C</answer>', reasoning: 'The angles are sharp.', reasoningTokens: 200, finishReason: 'stop' },
    outcome: { status: 'correct', rule: 'tag' },
  },
  {
    server: 'OpenRouter, reasoning given only as reasoning_details (summary entries; encrypted ones carry no text)',
    source: 'https://openrouter.ai/docs/use-cases/reasoning-tokens',
    params: [],
    sends: {},
    body: (m) => chat(m, { content: '', reasoning: null, reasoning_details: [{ type: 'reasoning.summary', summary: 'Compared both bases; answer C' }, { type: 'reasoning.encrypted', data: 'gAAAAB' }] }, 'stop', usage(90)),
    stores: { text: '', reasoning: 'Compared both bases; answer C', finishReason: 'stop' },
    outcome: { status: 'correct', rule: 'reasoning:answer' },
  },
];

let server: FakeServer;
let current: Case = CASES[0]!;
before(async () => {
  server = await startFakeOpenAI({ completion: (r) => current.body(String(r.body.model)) });
});
after(() => server.close());

describe('server conformance: what cxrbench sends, stores and reads, per server', () => {
  for (const c of CASES) {
    test(c.server, async () => {
      current = c;
      const preset = c.preset ? PRESETS[c.preset]! : null;
      const adapter = openAICompatibleAdapter({ name: c.preset ?? 'm', model: preset?.model ?? 'served-model', endpoints: [server.url], apiKeyEnv: null, headers: {}, query: {}, systemPrompt: true, imageDetail: null });
      const requestParams = mergeRequestParams(preset?.params ?? {}, c.params ?? []);
      const request: ModelRequest = {
        questionId: 'q1', messages: [{ role: 'user', content: [{ type: 'text', text: `Question: ${question.text}` }] }],
        params: { temperature: preset?.temperature ?? 0, maxTokens: preset?.maxTokens ?? 512, ...(Object.keys(requestParams).length > 0 ? { requestParams } : {}) },
      };
      const response = await adapter.generate(request, { signal: AbortSignal.timeout(5000) });

      const sent = server.requests.at(-1)!.body;
      assert.deepEqual(Object.fromEntries(Object.keys(c.sends).map((k) => [k, sent[k]])), c.sends);
      for (const field of c.omits ?? []) assert.equal(field in sent, false, `${field} is not sent`);

      const stored = { text: response.text, reasoning: response.reasoning, reasoningTokens: response.usage?.reasoningTokens, finishReason: response.finishReason };
      assert.deepEqual(stored, { reasoning: undefined, reasoningTokens: undefined, ...c.stores });

      const outcome = outcomeOf(question, { questionId: 'q1', response, attempts: 1, latencyMs: 5, at: '2026-01-01T00:00:00Z' }, false);
      assert.deepEqual({ status: outcome?.status, rule: outcome?.extraction?.rule }, c.outcome);
      assert.equal(outcome?.reasoningTokens, c.stores.reasoningTokens);
    });
  }
});
