import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';

/**
 * Walks a board from `start` by following every local link (except static assets and anything `skip` names),
 * with the given request headers per URL; returns each URL with its body. No response may be a server error.
 */
export async function crawl(app: FastifyInstance, start: readonly string[], headersFor: (url: string) => Record<string, string>, skip: (url: string) => boolean = () => false): Promise<{ url: string; status: number; body: string }[]> {
  const seen = new Set<string>();
  const queue = [...start];
  const out: { url: string; status: number; body: string }[] = [];
  while (queue.length > 0) {
    const url = queue.shift()!;
    if (seen.has(url)) continue;
    seen.add(url);
    const res = await app.inject({ url, headers: headersFor(url) });
    assert.ok(res.statusCode < 500, `${url}: ${res.statusCode}`);
    out.push({ url, status: res.statusCode, body: res.body });
    for (const match of res.body.matchAll(/(?:href|src|data-src)="(\/[^"#]*)"/g)) {
      const link = match[1]!.replace(/&amp;/g, '&');
      if (!seen.has(link) && !link.startsWith('/static/') && !skip(link)) queue.push(link);
    }
  }
  return out;
}
