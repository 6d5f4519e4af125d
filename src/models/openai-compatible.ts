import { createReadStream } from 'node:fs';
import type OpenAI from 'openai';
import type { ChatMessage, Failure, ModelRequest, ModelResponse } from '../core/model-io.js';
import type { AdapterSpec, BatchApi, ModelAdapter } from './adapter.js';
import { ChatBodySerializer, HttpStatusError, postChatCompletion } from './chat-http.js';
import { NetworkError } from './http-post.js';

/**
 * Configuration of the one adapter behind which vLLM, SGLang, Ollama, LM Studio, TGI, OpenAI, Azure OpenAI,
 * Gemini's OpenAI endpoint and OpenRouter all sit. Secrets are never part of it: the API key and any header
 * value written `env:NAME` are read from the environment when the adapter is made.
 */
export interface OpenAICompatibleConfig {
  /** The name in reports (a preset name, or the model id). */
  name: string;
  model: string;
  /** One or more base URLs serving the same model; requests go to the least busy. */
  endpoints: string[];
  /** Environment variable holding the API key (null: servers that need none, like a local vLLM). */
  apiKeyEnv: string | null;
  /** Extra headers; a value `env:NAME` is read from the environment. */
  headers: Record<string, string>;
  /** Extra query parameters (Azure's api-version). */
  query: Record<string, string>;
  /** False: the system text is prepended to the user turn (templates without a system role). */
  systemPrompt: boolean;
  imageDetail: 'auto' | 'low' | 'high' | null;
}

/** A configuration problem found before any request (missing key variable, bad URL). */
export class AdapterConfigError extends Error {}

function resolveEnv(value: string, what: string, env: NodeJS.ProcessEnv): string {
  if (!value.startsWith('env:')) return value;
  const name = value.slice(4);
  const found = env[name];
  if (found === undefined || found === '') throw new AdapterConfigError(`${what} is read from the environment variable ${name}, which is not set`);
  return found;
}

function toOpenAIMessages(messages: ChatMessage[], systemPrompt: boolean): OpenAI.Chat.ChatCompletionMessageParam[] {
  const system = messages.filter((m) => m.role === 'system').map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');
  const rest = messages.filter((m) => m.role !== 'system');
  const out: OpenAI.Chat.ChatCompletionMessageParam[] = [];
  if (system && systemPrompt) out.push({ role: 'system', content: system });
  rest.forEach((m, index) => {
    const prefix = system && !systemPrompt && index === 0 ? `${system}\n\n` : '';
    if (typeof m.content === 'string') {
      out.push(m.role === 'assistant' ? { role: 'assistant', content: m.content } : { role: 'user', content: prefix + m.content });
      return;
    }
    const parts: OpenAI.Chat.ChatCompletionContentPart[] = m.content.map((p) =>
      p.type === 'text' ? { type: 'text', text: p.text } : { type: 'image_url', image_url: p.detail ? { url: p.url, detail: p.detail } : { url: p.url } },
    );
    if (prefix) parts.unshift({ type: 'text', text: prefix.trimEnd() });
    out.push({ role: 'user', content: parts });
  });
  return out;
}

function retryAfterMs(headers: Headers | undefined): number | undefined {
  const value = headers?.get('retry-after-ms') ?? null;
  if (value !== null && Number.isFinite(Number(value))) return Number(value);
  const seconds = headers?.get('retry-after') ?? null;
  if (seconds === null) return undefined;
  if (Number.isFinite(Number(seconds))) return Number(seconds) * 1000;
  const date = Date.parse(seconds);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

// The SDK serves only the Batch API; it is loaded on first use (~0.15 s of start-up every run would pay).
let sdk: typeof import('openai') | null = null;
async function loadSdk(): Promise<typeof import('openai')> {
  sdk ??= await import('openai');
  return sdk;
}

/** Classifies an error from the OpenAI SDK (or from our own checks) into the runner's failure kinds. */
export function classifyOpenAIError(error: unknown): Failure {
  const message = error instanceof Error ? error.message : String(error);
  // SDK errors exist only once the SDK is loaded (batch calls); chat calls throw the errors of chat-http.ts.
  const SDK = sdk?.default;
  if (SDK && error instanceof SDK.APIConnectionTimeoutError) return { kind: 'timeout', message };
  if (SDK && error instanceof SDK.APIUserAbortError) return { kind: 'timeout', message: 'request aborted (timeout or stop)' };
  if (SDK && error instanceof SDK.APIConnectionError) return { kind: 'network', message: error.cause instanceof Error ? `${message}: ${error.cause.message}` : message };
  if ((SDK && error instanceof SDK.APIError) || error instanceof HttpStatusError) {
    const status = error.status;
    const after = retryAfterMs(error.headers);
    const base = { message, ...(status !== undefined ? { status } : {}), ...(after !== undefined ? { retryAfterMs: after } : {}) };
    if (status === 429) return { kind: 'rate-limit', ...base };
    if (status === 408) return { kind: 'timeout', ...base };
    if (status !== undefined && status >= 500) return { kind: 'server', ...base };
    return { kind: 'client', ...base };
  }
  if (error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError')) return { kind: 'timeout', message };
  if (error instanceof NetworkError) return { kind: 'network', message };
  // fetch's own failures (the preflight's model list): "fetch failed" with the socket error as cause.
  if (error instanceof TypeError && error.cause instanceof Error) return { kind: 'network', message: `${message}: ${error.cause.message}` };
  // A 200 whose body is not a chat completion: the SDK's JSON parse fails, or our shape checks below.
  return { kind: 'bad-response', message };
}

function requestBody(config: OpenAICompatibleConfig, request: ModelRequest): OpenAI.Chat.ChatCompletionCreateParamsNonStreaming {
  const extra = request.params.requestParams ?? {};
  return {
    // Request options first: the fields cxrbench sets itself (refused as --param) always win.
    ...extra,
    model: config.model,
    messages: toOpenAIMessages(request.messages, config.systemPrompt),
    temperature: request.params.temperature,
    // OpenAI's reasoning models refuse max_tokens beside max_completion_tokens: the option given replaces it.
    ...('max_completion_tokens' in extra ? {} : { max_tokens: request.params.maxTokens }),
    ...(request.params.topP !== undefined ? { top_p: request.params.topP } : {}),
    ...(request.params.seed !== undefined ? { seed: request.params.seed } : {}),
    ...(request.params.jsonSchema ? { response_format: { type: 'json_schema' as const, json_schema: { name: request.params.jsonSchema.name, schema: request.params.jsonSchema.schema, strict: true } } } : {}),
  };
}

/** Reads a chat completion, checking its shape (a 200 with no choices is a bad response, not an empty answer). */
function responseOf(completion: OpenAI.Chat.ChatCompletion | undefined): ModelResponse {
  const choice = completion?.choices?.[0];
  if (!choice || typeof choice !== 'object') throw new Error(`the endpoint answered without choices: ${JSON.stringify(completion).slice(0, 200)}`);
  const content: unknown = choice.message?.content;
  // OpenAI puts a refusal in its own field with content null: it is what the model said, read (and counted) as a refusal.
  const refusal: unknown = (choice.message as { refusal?: unknown } | undefined)?.refusal;
  const text = typeof content === 'string' ? content : content === null || content === undefined ? (typeof refusal === 'string' ? refusal : '') : JSON.stringify(content);
  const reasoning = reasoningOf(choice.message as unknown as Record<string, unknown> | undefined);
  const usage = completion!.usage;
  const reasoningTokens = usage?.completion_tokens_details?.reasoning_tokens;
  return {
    text,
    ...(reasoning ? { reasoning } : {}),
    finishReason: choice.finish_reason ?? null,
    ...(usage ? { usage: { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens, ...(typeof reasoningTokens === 'number' ? { reasoningTokens } : {}) } } : {}),
  };
}

/**
 * The reasoning a thinking model returned beside its answer: `reasoning` (vLLM ≥ 0.10, OpenRouter),
 * `reasoning_content` (SGLang, DeepSeek, older vLLM), or the text of OpenRouter's `reasoning_details` when only
 * they are given (encrypted entries carry none). Undefined when there is none.
 */
function reasoningOf(message: Record<string, unknown> | undefined): string | undefined {
  for (const field of ['reasoning', 'reasoning_content']) {
    const value = message?.[field];
    if (typeof value === 'string' && value !== '') return value;
  }
  const details = message?.reasoning_details;
  if (!Array.isArray(details)) return undefined;
  const texts = details.map((d: unknown) => (d && typeof d === 'object' ? ((d as { text?: unknown; summary?: unknown }).text ?? (d as { summary?: unknown }).summary) : undefined)).filter((t): t is string => typeof t === 'string' && t !== '');
  return texts.length > 0 ? texts.join('\n') : undefined;
}

/** OpenAI's Batch API (files + batches), used through the first endpoint. */
function batchApi(config: OpenAICompatibleConfig, clientOf: () => Promise<OpenAI>): BatchApi {
  return {
    line: (request, customId) => JSON.stringify({ custom_id: customId, method: 'POST', url: '/v1/chat/completions', body: requestBody(config, request) }),
    async submit(file, signal) {
      const client = await clientOf();
      const { toFile } = await loadSdk();
      const uploaded = await client.files.create({ file: await toFile(createReadStream(file), file.split('/').pop()!), purpose: 'batch' }, { signal });
      const job = await client.batches.create({ input_file_id: uploaded.id, endpoint: '/v1/chat/completions', completion_window: '24h' }, { signal });
      return job.id;
    },
    async poll(jobId, signal) {
      const job = await (await clientOf()).batches.retrieve(jobId, { signal });
      const counts = job.request_counts ? ` (${job.request_counts.completed}/${job.request_counts.total} done, ${job.request_counts.failed} failed)` : '';
      if (job.status === 'completed') return { state: 'done', detail: `completed${counts}` };
      if (job.status === 'failed' || job.status === 'expired' || job.status === 'cancelled') {
        const why = job.errors?.data?.map((e) => e.message).join('; ');
        // An expired job may still hold partial results: collect them, the rest become errors.
        return { state: job.status === 'expired' && job.output_file_id ? 'done' : 'failed', detail: `${job.status}${why ? `: ${why}` : ''}${counts}` };
      }
      return { state: 'running', detail: `${job.status}${counts}` };
    },
    async collect(jobId, signal) {
      const client = await clientOf();
      const job = await client.batches.retrieve(jobId, { signal });
      const results = new Map<string, { response?: ModelResponse; error?: Failure }>();
      for (const fileId of [job.output_file_id, job.error_file_id]) {
        if (!fileId) continue;
        const text = await (await client.files.content(fileId, { signal })).text();
        for (const line of text.split('\n')) {
          if (line.trim() === '') continue;
          const item = JSON.parse(line) as { custom_id: string; response?: { status_code: number; body: OpenAI.Chat.ChatCompletion } | null; error?: { message?: string } | null };
          const status = item.response?.status_code;
          if (item.response && status === 200) {
            try {
              results.set(item.custom_id, { response: responseOf(item.response.body) });
            } catch (error) {
              results.set(item.custom_id, { error: { kind: 'bad-response', message: (error as Error).message } });
            }
          } else {
            const kind = status === 429 ? 'rate-limit' : status !== undefined && status >= 500 ? 'server' : 'client';
            results.set(item.custom_id, { error: { kind, message: item.error?.message ?? `HTTP ${status ?? '?'} in batch`, ...(status !== undefined ? { status } : {}) } });
          }
        }
      }
      return results;
    },
  };
}

/** Makes the adapter; throws {@link AdapterConfigError} when a key variable is missing or an endpoint is not a URL. */
export function openAICompatibleAdapter(config: OpenAICompatibleConfig, env: NodeJS.ProcessEnv = process.env): ModelAdapter {
  if (config.endpoints.length === 0) throw new AdapterConfigError('no endpoint: give --endpoint <base URL>');
  for (const endpoint of config.endpoints) {
    try {
      new URL(endpoint);
    } catch {
      throw new AdapterConfigError(`--endpoint ${endpoint}: not a URL (expected e.g. http://127.0.0.1:8000/v1)`);
    }
  }
  const apiKey = config.apiKeyEnv ? resolveEnv(`env:${config.apiKeyEnv}`, 'the API key', env) : 'none';
  const headers = Object.fromEntries(Object.entries(config.headers).map(([k, v]) => [k, resolveEnv(v, `header ${k}`, env)]));
  const clients = config.endpoints.map((baseURL) => ({ baseURL, inFlight: 0 }));
  // The SDK serves only the Batch API (files, batches), through the first endpoint; chat calls go through chat-http.ts.
  let batchClient: OpenAI | null = null;
  const batchClientOf = async () => (batchClient ??= new (await loadSdk()).default({ baseURL: config.endpoints[0], apiKey, maxRetries: 0, timeout: 24 * 3600 * 1000, defaultHeaders: headers, defaultQuery: config.query }));
  let turn = 0;
  const serializer = new ChatBodySerializer();
  const requestHeaders = { authorization: `Bearer ${apiKey}`, ...headers };
  const spec: AdapterSpec = {
    kind: 'openai-compatible',
    name: config.name,
    baseline: false,
    args: { model: config.model, endpoints: config.endpoints, apiKeyEnv: config.apiKeyEnv, headers: config.headers, query: config.query, systemPrompt: config.systemPrompt, imageDetail: config.imageDetail },
  };
  return {
    spec,
    needsImages: true,
    async generate(request: ModelRequest, { signal }): Promise<ModelResponse> {
      // The least busy endpoint; rotate among equals so a fleet shares the load.
      const least = Math.min(...clients.map((c) => c.inFlight));
      const idle = clients.filter((c) => c.inFlight === least);
      const target = idle[turn++ % idle.length]!;
      target.inFlight++;
      try {
        const body = serializer.serialize(requestBody(config, request));
        const completion = await postChatCompletion(target.baseURL, requestHeaders, config.query, body, signal);
        return { ...responseOf(completion), endpoint: target.baseURL };
      } finally {
        target.inFlight--;
      }
    },
    classifyError: classifyOpenAIError,
    batch: batchApi(config, batchClientOf),
    async preflight(signal) {
      for (const { baseURL } of clients) {
        const url = `${baseURL.replace(/\/+$/, '')}/models`;
        let response: Response;
        try {
          response = await fetch(url, { headers: { authorization: `Bearer ${apiKey}`, ...headers }, signal });
        } catch (error) {
          const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : error instanceof Error ? error.message : String(error);
          throw new AdapterConfigError(`cannot reach ${baseURL} (${cause}); check that the server is running and --endpoint is its base URL (e.g. http://127.0.0.1:8000/v1)`);
        }
        await response.body?.cancel();
        if (response.status === 401 || response.status === 403) {
          throw new AdapterConfigError(`${baseURL} refused the credentials (HTTP ${response.status}); check ${config.apiKeyEnv ? `the key in $${config.apiKeyEnv}` : '--api-key-env'}`);
        }
        // Other statuses (404 from servers without a models list) still prove the endpoint answers.
      }
    },
  };
}
