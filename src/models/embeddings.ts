import OpenAI from 'openai';
import { CxrError } from '../core/errors.js';

/** Something that turns texts into vectors (one per text, in order). */
export interface Embedder {
  /** What the card records: the model and where it was served. */
  readonly spec: { kind: 'openai-embeddings'; model: string; baseURL: string };
  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

/**
 * Embeddings from an OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, vLLM `--task embed`, Ollama, TEI behind
 * an OpenAI shim), in batches, with the SDK's retries on 429 and 5xx. The key is read from an environment variable
 * and never stored.
 */
export function endpointEmbedder(options: { model: string; baseURL: string; apiKeyEnv?: string | null; batchSize?: number; timeoutMs?: number }): Embedder {
  try {
    new URL(options.baseURL);
  } catch {
    throw new CxrError('model-config', `--embeddings-endpoint ${options.baseURL}: not a URL (e.g. http://127.0.0.1:8000/v1)`);
  }
  const apiKey = options.apiKeyEnv ? process.env[options.apiKeyEnv] : 'none';
  if (apiKey === undefined) throw new CxrError('model-config', `--embeddings-api-key-env ${options.apiKeyEnv}: the variable is not set`);
  const client = new OpenAI({ baseURL: options.baseURL, apiKey, maxRetries: 4, timeout: options.timeoutMs ?? 120_000 });
  const batchSize = options.batchSize ?? 256;
  return {
    spec: { kind: 'openai-embeddings', model: options.model, baseURL: options.baseURL },
    async embed(texts, signal) {
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += batchSize) {
        const batch = texts.slice(i, i + batchSize);
        let response;
        try {
          response = await client.embeddings.create({ model: options.model, input: batch, encoding_format: 'float' }, signal ? { signal } : {});
        } catch (error) {
          throw new CxrError('model-config', `embeddings from ${options.baseURL} (model ${options.model}) failed for texts ${i + 1}–${i + batch.length}: ${(error as Error).message}`);
        }
        const data = [...response.data].sort((a, b) => a.index - b.index);
        if (data.length !== batch.length || data.some((d) => !Array.isArray(d.embedding) || d.embedding.length === 0)) {
          throw new CxrError('model-config', `embeddings from ${options.baseURL}: asked for ${batch.length} vectors, got ${data.length} usable`);
        }
        const dims = data[0]!.embedding.length;
        for (const d of data) {
          if (d.embedding.length !== dims) throw new CxrError('model-config', `embeddings from ${options.baseURL}: vectors of ${dims} and ${d.embedding.length} dimensions in one reply`);
          out.push(Float32Array.from(d.embedding));
        }
      }
      return out;
    },
  };
}
