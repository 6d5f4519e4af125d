import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** Faults the fake endpoint can inject, one per request. */
export type Fault = '429' | '500' | '503' | 'reset' | 'hang' | 'malformed' | 'html' | 'empty' | 'no-choices' | '400' | '401';

/** A chat-completions request as the fake server saw it. */
export interface RecordedRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: { model?: string; messages?: { role: string; content: unknown }[]; temperature?: number; max_tokens?: number; seed?: number; [field: string]: unknown };
  /** The text parts of the user turn, joined. */
  text: string;
  /** Image URLs in the order sent. */
  images: string[];
  fault: Fault | null;
}

export interface FakeServerOptions {
  /** The assistant's reply for a request (default: a JSON answer derived from the question text, deterministic). */
  reply?: (request: RecordedRequest) => string;
  /** Decides a fault per request (index counts all requests, from 0). */
  fault?: (index: number, request: RecordedRequest) => Fault | null;
  /** Seconds sent in Retry-After with 429. */
  retryAfterSeconds?: number;
  /** Delay before answering, per request. */
  latencyMs?: number;
  /** Batch jobs report "in_progress" this many times before "completed". */
  batchPollsUntilDone?: number;
  /** A whole chat-completion body to answer with (a real server's, replayed), instead of one made from `reply`. */
  completion?: (request: RecordedRequest) => unknown;
  /** Tokens reported in usage, per request. */
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** Every /embeddings request fails with 500. */
  embeddingsFault?: boolean;
}

export interface FakeServer {
  /** Base URL to give the adapter (ends in /v1). */
  url: string;
  requests: RecordedRequest[];
  /** Batch jobs created, with the number of lines of their input file. */
  batches: { id: string; lines: number }[];
  /** /embeddings requests: the model asked for and how many texts. */
  embeddingRequests: { model: string; inputs: number }[];
  close(): Promise<void>;
}

/** The question text of a prompt ("Question: …" line), for replies keyed by question. */
export function questionOf(text: string): string {
  return /Question: (.*)/.exec(text)?.[1] ?? text;
}

/** A deterministic letter for a question text, so interrupted and uninterrupted runs get the same answers. */
export function letterFor(text: string): string {
  let h = 0;
  for (const c of questionOf(text)) h = (h * 31 + c.charCodeAt(0)) >>> 0;
  return 'ABCD'[h % 4]!;
}

function record(path: string, headers: IncomingMessage['headers'], body: RecordedRequest['body']): RecordedRequest {
  const user = body.messages?.find((m) => m.role === 'user')?.content;
  const parts = Array.isArray(user) ? (user as { type: string; text?: string; image_url?: { url: string } }[]) : [{ type: 'text', text: String(user ?? '') }];
  return {
    path,
    headers,
    body,
    text: parts.filter((p) => p.type === 'text').map((p) => p.text ?? '').join('\n'),
    images: parts.filter((p) => p.type === 'image_url').map((p) => p.image_url?.url ?? ''),
    fault: null,
  };
}

/**
 * A local stand-in for an OpenAI-compatible server (vLLM, OpenAI, …) on 127.0.0.1, speaking the real protocol:
 * POST /v1/chat/completions and GET /v1/models, with fault injection. Tests drive real HTTP through it.
 */
export async function startFakeOpenAI(options: FakeServerOptions = {}): Promise<FakeServer> {
  const requests: RecordedRequest[] = [];
  const files = new Map<string, string>();
  const batches: { id: string; lines: number; input: string; polls: number; output?: string }[] = [];
  const embeddingRequests: { model: string; inputs: number }[] = [];
  const sockets = new Set<Socket>();
  const hanging = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', async () => {
      if (await handleBatchApi(req, res, raw)) return;
      if (req.method === 'GET' && req.url?.endsWith('/models')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: 'fake-model', object: 'model' }] }));
        return;
      }
      if (req.method === 'POST' && req.url?.endsWith('/embeddings')) {
        // Deterministic embeddings: words hashed into 64 dimensions (texts with the same words get the same vector).
        const body = JSON.parse(raw || '{}') as { model?: string; input?: string | string[] };
        const inputs = Array.isArray(body.input) ? body.input : [body.input ?? ''];
        embeddingRequests.push({ model: body.model ?? '', inputs: inputs.length });
        if (options.embeddingsFault) return void res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"embedding server down"}}');
        const data = inputs.map((text, index) => {
          const v = new Array<number>(64).fill(0);
          for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
            let h = 0;
            for (const c of word) h = (Math.imul(h, 31) + c.charCodeAt(0)) >>> 0;
            v[h % 64]! += 1;
          }
          return { object: 'embedding', index, embedding: v };
        });
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data, model: body.model, usage: { prompt_tokens: 0, total_tokens: 0 } }));
        return;
      }
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404).end();
        return;
      }
      let body: RecordedRequest['body'] = {};
      try {
        body = JSON.parse(raw) as RecordedRequest['body'];
      } catch {
        res.writeHead(400).end('{"error":{"message":"bad json"}}');
        return;
      }
      const recorded = record(req.url, req.headers, body);
      const index = requests.length;
      recorded.fault = options.fault?.(index, recorded) ?? null;
      requests.push(recorded);
      const respond = () => {
        const fault = recorded.fault;
        const json = (status: number, value: unknown, headers: Record<string, string> = {}) =>
          res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(value));
        switch (fault) {
          case '429':
            return json(429, { error: { message: 'rate limited', type: 'rate_limit' } }, { 'retry-after': String(options.retryAfterSeconds ?? 1) });
          case '500':
          case '503':
            return json(Number(fault), { error: { message: 'server error' } });
          case '400':
            return json(400, { error: { message: 'bad request: too many images' } });
          case '401':
            return json(401, { error: { message: 'invalid api key' } });
          case 'reset':
            return req.socket.destroy();
          case 'hang':
            hanging.add(res);
            return;
          case 'malformed':
            return res.writeHead(200, { 'content-type': 'application/json' }).end('{"id": "x", "choices": [ {"message": ');
          case 'html':
            return res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>502 Bad Gateway</body></html>');
          case 'no-choices':
            return json(200, { id: 'x', object: 'chat.completion', choices: [] });
          default: {
            if (options.completion) return json(200, options.completion(recorded));
            const content = fault === 'empty' ? '' : (options.reply ?? ((r) => JSON.stringify({ answer: letterFor(r.text), explanation: 'fake' })))(recorded);
            return json(200, {
              id: `chatcmpl-${index}`,
              object: 'chat.completion',
              created: 0,
              model: body.model,
              choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
              usage: { ...(options.usage ?? { prompt_tokens: 100, completion_tokens: 20 }), total_tokens: 0 },
            });
          }
        }
      };
      if (options.latencyMs) setTimeout(respond, options.latencyMs);
      else respond();
    });
  });
  const json = (res: ServerResponse, status: number, value: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));

  /** OpenAI's Batch API: upload a file, create a job, poll it, download the output (replies made by the same policy). */
  async function handleBatchApi(req: IncomingMessage, res: ServerResponse, raw: string): Promise<boolean> {
    const url = req.url ?? '';
    if (req.method === 'POST' && url.endsWith('/files')) {
      const form = await new Request('http://x', { method: 'POST', headers: { 'content-type': String(req.headers['content-type']) }, body: raw }).formData();
      const file = form.get('file');
      const id = `file-${files.size + 1}`;
      files.set(id, typeof file === 'string' ? file : await (file as Blob).text());
      json(res, 200, { id, object: 'file', purpose: form.get('purpose'), bytes: 0, created_at: 0, filename: 'batch.jsonl', status: 'processed' });
      return true;
    }
    if (req.method === 'POST' && url.endsWith('/batches')) {
      const body = JSON.parse(raw) as { input_file_id: string };
      const input = files.get(body.input_file_id) ?? '';
      const job = { id: `batch-${batches.length + 1}`, lines: input.trim().split('\n').filter(Boolean).length, input, polls: 0 };
      batches.push(job);
      json(res, 200, { id: job.id, object: 'batch', status: 'validating', endpoint: '/v1/chat/completions', input_file_id: body.input_file_id, completion_window: '24h', created_at: 0 });
      return true;
    }
    const batchMatch = /\/batches\/([^/]+)$/.exec(url);
    if (req.method === 'GET' && batchMatch) {
      const job = batches.find((b) => b.id === batchMatch[1]);
      if (!job) return (json(res, 404, { error: { message: 'no such batch' } }), true);
      job.polls++;
      const done = job.polls > (options.batchPollsUntilDone ?? 1);
      if (done && job.output === undefined) {
        job.output = job.input.trim().split('\n').filter(Boolean).map((line) => {
          const item = JSON.parse(line) as { custom_id: string; body: RecordedRequest['body'] };
          const { status, value } = chatReply(item.body, url);
          return JSON.stringify({ id: `r-${item.custom_id}`, custom_id: item.custom_id, response: { status_code: status, body: value }, error: null });
        }).join('\n') + '\n';
        files.set(`out-${job.id}`, job.output);
      }
      json(res, 200, { id: job.id, object: 'batch', status: done ? 'completed' : 'in_progress', endpoint: '/v1/chat/completions', input_file_id: 'x', completion_window: '24h', created_at: 0, output_file_id: done ? `out-${job.id}` : null, error_file_id: null, request_counts: { total: job.lines, completed: done ? job.lines : 0, failed: 0 } });
      return true;
    }
    const contentMatch = /\/files\/([^/]+)\/content$/.exec(url);
    if (req.method === 'GET' && contentMatch) {
      const content = files.get(contentMatch[1]!);
      if (content === undefined) return (json(res, 404, { error: { message: 'no such file' } }), true);
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(content);
      return true;
    }
    return false;
  }

  /** The reply to one chat body under the fault policy, for batch lines (faults that break the connection become 500s). */
  function chatReply(body: RecordedRequest['body'], path: string): { status: number; value: unknown } {
    const recorded = record(path, {}, body);
    const index = requests.length;
    recorded.fault = options.fault?.(index, recorded) ?? null;
    requests.push(recorded);
    const fault = recorded.fault;
    if (fault && fault !== 'empty') return { status: /^\d+$/.test(fault) ? Number(fault) : 500, value: { error: { message: `fault ${fault}` } } };
    const content = fault === 'empty' ? '' : (options.reply ?? ((r) => JSON.stringify({ answer: letterFor(r.text), explanation: 'fake' })))(recorded);
    return { status: 200, value: { id: `chatcmpl-${index}`, object: 'chat.completion', created: 0, model: body.model, choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }], usage: { ...(options.usage ?? { prompt_tokens: 100, completion_tokens: 20 }), total_tokens: 0 } } };
  }

  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    batches,
    embeddingRequests,
    async close() {
      for (const res of hanging) res.destroy();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
