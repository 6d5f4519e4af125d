import type { Failure, ModelRequest, ModelResponse } from '../core/model-io.js';
import type { Question } from '../core/question.js';

/** What identifies an adapter in the manifest: never a secret (keys are named by their environment variable). */
export interface AdapterSpec {
  kind: string;
  name: string;
  /** Baselines are labelled as baselines in every report. */
  baseline: boolean;
  args: Record<string, unknown>;
}

/** A provider's asynchronous batch interface (OpenAI's Batch API and the servers that copy it). */
export interface BatchApi {
  /** One line of the batch input file for a request (JSON text, no newline); `customId` identifies its answer. */
  line(request: ModelRequest, customId: string): string;
  /** Uploads a batch input file and starts the job; returns the job id. */
  submit(file: string, signal: AbortSignal): Promise<string>;
  /** Where a job is: `running`, `done` (results can be collected) or `failed` (with why). */
  poll(jobId: string, signal: AbortSignal): Promise<{ state: 'running' | 'done' | 'failed'; detail: string }>;
  /** The answers of a finished job by custom id: a response, or the failure of that one request. */
  collect(jobId: string, signal: AbortSignal): Promise<Map<string, { response?: ModelResponse; error?: Failure }>>;
}

/** What the runner passes with each request. */
export interface GenerateContext {
  /** Aborted on timeout or when the run stops. */
  signal: AbortSignal;
  /**
   * The question being asked: baselines answer from it, model endpoints ignore it. Absent for requests that
   * are not a benchmark question (the answer judge's), which only model endpoints serve.
   */
  question?: Question;
}

/**
 * The one contract every model source implements. An adapter sends ONE request and says how a failure should
 * be treated; retries, caching, concurrency, journaling and timeouts live once, in the runner.
 */
export interface ModelAdapter {
  readonly spec: AdapterSpec;
  /** False for adapters that never look at images (baselines, replay): the runner then skips encoding. */
  readonly needsImages: boolean;
  generate(request: ModelRequest, context: GenerateContext): Promise<ModelResponse>;
  /** Classifies a thrown error: rate-limit, server, network and timeout are retried; bad-response and client are not. */
  classifyError(error: unknown): Failure;
  /** Checks, before a run starts, that the model can be reached; throws an error that says what to fix. */
  preflight?(signal: AbortSignal): Promise<void>;
  /** Present when the provider offers a batch API (`eval --batch`). */
  batch?: BatchApi;
}

/** The question of a request, for adapters that answer from it (baselines); refuses requests without one. */
export function requireQuestion(context: GenerateContext, adapter: string): Question {
  if (!context.question) throw new Error(`${adapter} answers benchmark questions only; it cannot serve this request`);
  return context.question;
}

/** Failure classification shared by adapters that cannot fail in transport (baselines, replay). */
export function localFailure(error: unknown): Failure {
  return { kind: 'client', message: error instanceof Error ? error.message : String(error) };
}

/** Formats a baseline's choice as the JSON answer the default prompt asks models for, so it takes the same extraction path. */
export function baselineAnswer(letter: string | null, explanation: string): ModelResponse {
  return { text: JSON.stringify({ answer: letter, explanation }) };
}
