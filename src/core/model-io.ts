import type { Letter } from './question.js';
import type { Extraction } from './extraction.js';
import type { RequestParams } from './request-params.js';

/** One part of a chat message: text, or an image given as a data URL (or any URL the endpoint accepts). */
export type ContentPart = { type: 'text'; text: string } | { type: 'image'; url: string; detail?: 'auto' | 'low' | 'high' };

/** A chat message in the OpenAI shape most endpoints speak. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string | ContentPart[];
}

/** Generation parameters, recorded in the manifest and part of the cache key. */
export interface GenerationParams {
  temperature: number;
  maxTokens: number;
  topP?: number;
  seed?: number;
  /** Constrain the reply to this JSON schema (OpenAI `response_format: json_schema`; vLLM and SGLang follow it too). */
  jsonSchema?: { name: string; schema: Record<string, unknown> };
  /** Further request body fields, sent as given (`--param`, a preset's); never one of the fields above. */
  requestParams?: RequestParams;
}

/** What a model is asked for one question. Images are already encoded (the runner does that once per image). */
export interface ModelRequest {
  questionId: string;
  messages: ChatMessage[];
  params: GenerationParams;
}

/** Token counts an endpoint reports. */
export interface Usage {
  promptTokens: number;
  completionTokens: number;
  /** Of the completion tokens, those spent reasoning (`usage.completion_tokens_details.reasoning_tokens`), where reported. */
  reasoningTokens?: number;
}

/** A model's answer to one request. */
export interface ModelResponse {
  /** The answer (`message.content`; empty when the endpoint sent null). */
  text: string;
  /**
   * The reasoning a thinking model returned apart from its answer (`message.reasoning` of vLLM and OpenRouter,
   * `reasoning_content` of SGLang, DeepSeek and older vLLM). Kept, never read as the answer unless the answer is empty.
   */
  reasoning?: string;
  usage?: Usage;
  /** `length`: the reply was cut at the token limit (a thinking model that ran out of tokens). */
  finishReason?: string | null;
  /** Which endpoint answered (for load-balanced fleets). */
  endpoint?: string;
}

/** Kinds of failure the runner treats differently: the first four are retried, the last two are not. */
export type FailureKind = 'rate-limit' | 'server' | 'network' | 'timeout' | 'bad-response' | 'client';

/** A classified failure of one attempt. */
export interface Failure {
  kind: FailureKind;
  message: string;
  status?: number;
  /** From a Retry-After header, when the endpoint sent one. */
  retryAfterMs?: number;
}

/**
 * One journaled prediction: the raw response (or the final error) of a question, with attempts and latency.
 * Append-only: a later line for the same question supersedes an earlier error line (`--retry-errors`).
 */
export interface Prediction {
  questionId: string;
  response?: ModelResponse;
  error?: Failure;
  attempts: number;
  latencyMs: number;
  /** ISO time the prediction was recorded. */
  at: string;
}

/**
 * How one question ended. `unparseable`, `truncated` and `error` are counted apart from `wrong` (and as not
 * correct). `truncated`: no answer could be read and the reply was cut at the token limit (`finish_reason:
 * length`) — the model ran out of tokens, often while thinking, rather than answering in a way no rule reads.
 */
export type OutcomeStatus = 'correct' | 'wrong' | 'unparseable' | 'truncated' | 'error';

/** The scored result of one question. */
export interface Outcome {
  questionId: string;
  /** The study asked about: questions of one study are not independent (bootstrap intervals resample studies). */
  studyId: string;
  task: string;
  category: string | null;
  subcategory: string | null;
  status: OutcomeStatus;
  expected: Letter;
  predicted: Letter | null;
  extraction: Extraction | null;
  /** Tokens the model spent reasoning, where the endpoint reported them. */
  reasoningTokens?: number;
}
