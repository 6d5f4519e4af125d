import type OpenAI from 'openai';

/** An HTTP answer other than 2xx, with what classification needs. */
export class HttpStatusError extends Error {
  constructor(
    readonly status: number,
    readonly headers: Headers,
    message: string,
  ) {
    super(message);
    this.name = 'HttpStatusError';
  }
}

/** A 2xx answer whose body is not a chat completion. */
export class BadResponseError extends Error {
  override name = 'BadResponseError';
}

/**
 * Serializes chat-completion bodies, reusing the JSON text of image parts seen recently. Why not the SDK's
 * encoder: a request carries every view of a study as data URLs (hundreds of KB), and re-serializing them for
 * each of a study's questions was the largest CPU cost of a run (bench/RESULTS.md); the text of a part is built
 * once and the body is assembled around it.
 */
export class ChatBodySerializer {
  private readonly parts = new Map<string, string>();

  constructor(private readonly maxCachedParts = 64) {}

  serialize(body: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming): string {
    const messages = body.messages.map((m) => {
      if (!Array.isArray(m.content)) return JSON.stringify(m);
      const parts = (m.content as OpenAI.Chat.ChatCompletionContentPart[]).map((p) => (p.type === 'image_url' ? this.imagePart(p) : JSON.stringify(p)));
      const { content: _content, ...rest } = m;
      const head = JSON.stringify(rest);
      return `${head.slice(0, -1)}${head.length > 2 ? ',' : ''}"content":[${parts.join(',')}]}`;
    });
    const { messages: _messages, ...rest } = body;
    const head = JSON.stringify(rest);
    return `${head.slice(0, -1)}${head.length > 2 ? ',' : ''}"messages":[${messages.join(',')}]}`;
  }

  private imagePart(part: OpenAI.Chat.ChatCompletionContentPartImage): string {
    const key = `${part.image_url.detail ?? ''}|${part.image_url.url}`;
    let text = this.parts.get(key);
    if (text === undefined) {
      text = JSON.stringify(part);
      if (this.parts.size >= this.maxCachedParts) this.parts.delete(this.parts.keys().next().value!);
      this.parts.set(key, text);
    }
    return text;
  }
}

/** POSTs a serialized chat-completion body and returns the parsed completion; throws the errors above, or fetch's own. */
export async function postChatCompletion(baseURL: string, headers: Record<string, string>, query: Record<string, string>, body: string, signal: AbortSignal): Promise<OpenAI.Chat.ChatCompletion> {
  const url = new URL(`${baseURL.replace(/\/+$/, '')}/chat/completions`);
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json', ...headers }, body, signal });
  const text = await response.text();
  if (!response.ok) {
    let detail = text.slice(0, 300);
    try {
      const parsed = JSON.parse(text) as { error?: { message?: string } };
      if (parsed.error?.message) detail = parsed.error.message;
    } catch {
      // not JSON: keep the raw text
    }
    throw new HttpStatusError(response.status, response.headers, `HTTP ${response.status}: ${detail}`);
  }
  try {
    return JSON.parse(text) as OpenAI.Chat.ChatCompletion;
  } catch (error) {
    throw new BadResponseError(`the endpoint answered ${response.status} with a body that is not JSON (${(error as Error).message}): ${text.slice(0, 120)}`);
  }
}
