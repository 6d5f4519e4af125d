import http from 'node:http';
import https from 'node:https';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Readable } from 'node:stream';

/** What came back from a POST: status, headers and the body as text. */
export interface HttpReply {
  status: number;
  headers: Headers;
  text: string;
}

/** A socket-level failure (refused, reset, DNS), kept apart from HTTP statuses and aborts for classification. */
export class NetworkError extends Error {
  override name = 'NetworkError';
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

// One keep-alive pool per protocol for the whole process. Why node:http and not fetch: at the request rates of a
// local vLLM (≈1,000/s for short answers) fetch's stream machinery costs ~3× the CPU and ~2.5× the memory of
// node:http for the same requests (bench/RESULTS.md), and the client shares the machine with the server.
const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 256 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 256 }),
};

function decoded(response: http.IncomingMessage): Readable {
  switch ((response.headers['content-encoding'] ?? '').toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return response.pipe(createGunzip());
    case 'deflate':
      return response.pipe(createInflate());
    case 'br':
      return response.pipe(createBrotliDecompress());
    default:
      return response;
  }
}

function headersOf(raw: http.IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return headers;
}

/**
 * POSTs `body` (byte chunks, sent without being joined) and resolves with the whole reply, whatever its status. Rejects with NetworkError when the
 * connection fails, and with an AbortError when `signal` aborts (the socket is destroyed, nothing lingers).
 */
export function postText(url: URL, headers: Record<string, string>, body: readonly Buffer[], signal: AbortSignal): Promise<HttpReply> {
  const agent = agents[url.protocol as keyof typeof agents];
  if (!agent) return Promise.reject(new NetworkError(`unsupported protocol ${url.protocol} in ${url.origin} (use http or https)`, undefined));
  const length = body.reduce((n, chunk) => n + chunk.length, 0);
  return new Promise((resolve, reject) => {
    const request = (url.protocol === 'https:' ? https : http).request(url, {
      method: 'POST',
      agent,
      signal,
      headers: { 'accept-encoding': 'gzip, deflate, br', ...headers, 'content-length': String(length) },
    }, (response) => {
      const chunks: Buffer[] = [];
      const stream = decoded(response);
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => resolve({ status: response.statusCode ?? 0, headers: headersOf(response.headers), text: Buffer.concat(chunks).toString('utf8') }));
      stream.on('error', (error: NodeJS.ErrnoException) => reject(error.name === 'AbortError' ? error : new NetworkError(`reading the answer failed: ${error.message}`, error.code)));
    });
    request.on('error', (error: NodeJS.ErrnoException) => reject(error.name === 'AbortError' ? error : new NetworkError(`${url.origin}: ${error.message}`, error.code)));
    // Corked, the chunks leave in one writev: no copy of the image parts and one packet train per request.
    request.cork();
    for (const chunk of body) request.write(chunk);
    request.end();
  });
}
