import type OpenAI from 'openai';
import { NetworkError, postText } from './http-post.js';

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
 * Serializes chat-completion bodies into byte chunks, reusing the encoded JSON of image parts seen recently. A
 * request carries every view of a study as data URLs (hundreds of KB each), and each study has several
 * questions: building one body string per request and encoding it to UTF-8 copied every image twice per
 * request and was the largest CPU cost of a run (bench/RESULTS.md). Here an image part is encoded once and the
 * same bytes are handed to the socket for every request that sends it; only the small parts are new.
 */
export class ChatBodySerializer {
  /** detail → data URL → encoded JSON of the part. Keyed by the URL string itself: the image cache hands out the
   * same string for an image, and V8 keeps a string's hash once computed, so a lookup does not rehash hundreds
   * of KB. Bounded by bytes, oldest first. */
  private readonly parts = new Map<string, Map<string, Buffer>>();
  private cachedBytes = 0;

  // Only the views of the questions in flight need to be here (questions of a study are usually adjacent).
  constructor(private readonly maxCachedBytes = 8 << 20) {}

  /** The body as chunks whose concatenation is exactly `JSON.stringify(body)` in UTF-8. */
  serialize(body: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming): Buffer[] {
    const chunks: Buffer[] = [];
    let text = ''; // small JSON text not yet turned into a chunk
    const flush = () => {
      if (text) chunks.push(Buffer.from(text));
      text = '';
    };
    const { messages, ...bodyRest } = body;
    text += `${openObject(bodyRest)}"messages":[`;
    messages.forEach((m, i) => {
      if (i > 0) text += ',';
      if (!Array.isArray(m.content)) {
        text += JSON.stringify(m);
        return;
      }
      const { content, ...messageRest } = m;
      text += `${openObject(messageRest)}"content":[`;
      (content as OpenAI.Chat.ChatCompletionContentPart[]).forEach((p, j) => {
        if (j > 0) text += ',';
        if (p.type !== 'image_url') {
          text += JSON.stringify(p);
          return;
        }
        flush();
        chunks.push(this.imagePart(p));
      });
      text += ']}';
    });
    text += ']}';
    flush();
    return chunks;
  }

  private imagePart(part: OpenAI.Chat.ChatCompletionContentPartImage): Buffer {
    const detail = part.image_url.detail ?? '';
    let byUrl = this.parts.get(detail);
    if (!byUrl) this.parts.set(detail, (byUrl = new Map()));
    let bytes = byUrl.get(part.image_url.url);
    if (bytes === undefined) {
      bytes = encodeImagePart(part);
      byUrl.set(part.image_url.url, bytes);
      this.cachedBytes += bytes.length;
      this.evict();
    }
    return bytes;
  }

  private evict(): void {
    for (const byUrl of this.parts.values()) {
      for (const [url, bytes] of byUrl) {
        if (this.cachedBytes <= this.maxCachedBytes || byUrl.size === 1) return;
        byUrl.delete(url);
        this.cachedBytes -= bytes.length;
      }
    }
  }
}

const MARKER = '\u0001cxrbench-data\u0001';
const ESCAPED_MARKER = JSON.stringify(MARKER).slice(1, -1);

/**
 * True when `text` is padded base64 of the standard alphabet and nothing else, so its JSON needs no escaping.
 * Node's decoder skips any character outside the alphabet, so one such character (a quote, a backslash, a
 * control or non-ASCII character, whitespace, an inner "=") makes the decoded length fall short of what the
 * text's length implies. The URL-safe "-" and "_", which the decoder also accepts, need no escaping either.
 * One native decode: a fraction of JSON.stringify's per-character scan.
 */
export function isCanonicalBase64(text: string): boolean {
  if (text.length % 4 !== 0) return false;
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  return Buffer.from(text, 'base64').length === (text.length / 4) * 3 - padding;
}

/**
 * The UTF-8 JSON of an image part. JSON.stringify scans every character of a data URL for escapes (≈1.5 ms
 * for a 500 KB view); canonical base64 needs none (checked by isCanonicalBase64). Anything else takes the
 * JSON.stringify path.
 */
export function encodeImagePart(part: OpenAI.Chat.ChatCompletionContentPartImage): Buffer {
  const url = part.image_url.url;
  const comma = url.indexOf(',');
  if (url.startsWith('data:') && url.lastIndexOf(';base64', comma) === comma - 7) {
    const payload = url.slice(comma + 1);
    if (isCanonicalBase64(payload)) {
      const [before, after, ...more] = JSON.stringify({ ...part, image_url: { ...part.image_url, url: MARKER } }).split(ESCAPED_MARKER);
      if (after !== undefined && more.length === 0) {
        return ownBuffer(before + JSON.stringify(url.slice(0, comma + 1)).slice(1, -1), payload, after);
      }
    }
  }
  return ownBuffer(JSON.stringify(part));
}

/**
 * The concatenated UTF-8 bytes of `texts` in a buffer of their own: a small Buffer.from lives in a shared 8 KB
 * slab, and a cached part would keep its whole slab alive.
 */
function ownBuffer(...texts: string[]): Buffer {
  const buffer = Buffer.allocUnsafeSlow(texts.reduce((n, t) => n + Buffer.byteLength(t), 0));
  let offset = 0;
  for (const t of texts) offset += buffer.write(t, offset);
  return buffer;
}

/** `{"a":1,` for `{a: 1}` and `{` for `{}`: the start of an object whose last member is written by the caller. */
function openObject(value: object): string {
  const text = JSON.stringify(value);
  return text.length > 2 ? `${text.slice(0, -1)},` : '{';
}

/** POSTs a serialized chat-completion body and returns the parsed completion; throws the errors above, or postText's. */
export async function postChatCompletion(baseURL: string, headers: Record<string, string>, query: Record<string, string>, body: readonly Buffer[], signal: AbortSignal): Promise<OpenAI.Chat.ChatCompletion> {
  const url = new URL(`${baseURL.replace(/\/+$/, '')}/chat/completions`);
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
  const response = await postText(url, { 'content-type': 'application/json', accept: 'application/json', ...headers }, body, signal);
  const text = response.text;
  if (response.status < 200 || response.status > 299) {
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
    // A 200 cut short or replaced on the way (a proxy's error page, a dropped connection mid-body) looks like a
    // network fault, not like a model that answered wrongly: it is retried.
    throw new NetworkError(`the endpoint answered ${response.status} with a body that is not JSON, as when a response is cut short (${(error as Error).message}): ${text.slice(0, 120)}`, 'BODY_NOT_JSON');
  }
}
