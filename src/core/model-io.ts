import type { Letter } from './question.js';
import type { Extraction } from './extraction.js';

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
}

/** A model's answer to one request. */
export interface ModelResponse {
  text: string;
  usage?: Usage;
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

/** How one question ended. `unparseable` and `error` are counted apart from `wrong`. */
export type OutcomeStatus = 'correct' | 'wrong' | 'unparseable' | 'error';

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
}
