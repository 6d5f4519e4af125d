import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { NetworkError, postText } from './http-post.js';

async function listen(server: Server): Promise<URL> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`);
}

test('postText: sends the chunks as one body with its length, and decodes a gzip answer', async () => {
  let received = '';
  let length = '';
  const server = createServer((req, res) => {
    length = req.headers['content-length'] ?? '';
    req.on('data', (c: Buffer) => (received += c.toString()));
    req.on('end', () => {
      res.writeHead(429, { 'content-encoding': 'gzip', 'retry-after': '3' });
      res.end(gzipSync(JSON.stringify({ echo: received })));
    });
  });
  const url = await listen(server);
  try {
    const reply = await postText(url, { 'content-type': 'application/json' }, [Buffer.from('{"a":'), Buffer.from('"é"}')], new AbortController().signal);
    assert.equal(received, '{"a":"é"}');
    assert.equal(length, String(Buffer.byteLength('{"a":"é"}')));
    assert.equal(reply.status, 429);
    assert.equal(reply.headers.get('retry-after'), '3');
    assert.deepEqual(JSON.parse(reply.text), { echo: '{"a":"é"}' });
  } finally {
    server.close();
  }
});

test('postText: a refused connection is a NetworkError with its code; an abort is an AbortError', async () => {
  const server = createServer(() => {}); // never answers
  const url = await listen(server);
  try {
    const controller = new AbortController();
    const pending = postText(url, {}, [Buffer.from('{}')], controller.signal);
    setTimeout(() => controller.abort(), 50);
    await assert.rejects(pending, (error: Error) => error.name === 'AbortError');
  } finally {
    server.closeAllConnections();
    server.close();
  }
  await new Promise((resolve) => server.on('close', resolve));
  await assert.rejects(postText(url, {}, [Buffer.from('{}')], new AbortController().signal), (error: unknown) => error instanceof NetworkError && error.code === 'ECONNREFUSED');
});
