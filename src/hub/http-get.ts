import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

/**
 * One GET with node:http(s), no redirect followed. The bulk bytes go through this rather than fetch(): on a fast
 * link fetch's web streams cost several times the CPU of plain Node streams (bench/download-extract.ts measured
 * ~100 MB/s against ~300 MB/s on 127.0.0.1), and this path carries hundreds of GB.
 */
export function httpGet(url: string, headers: Record<string, string>, signal: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(target, { method: 'GET', headers: { 'user-agent': 'cxrbench', ...headers }, signal }, resolve);
    req.on('error', reject);
    req.end();
  });
}
