import { mkdir, open, rename, rm, stat, truncate } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { CxrError } from '../core/errors.js';
import { accessError, isAccessRefusal } from './access-error.js';
import { contentHash, hashPrefix } from './file-hash.js';
import type { HubConnection } from './hub-client.js';
import { STATE_DIR, type PlannedFile } from './selection.js';

/** How hard to try one file. */
export interface FetchSettings {
  /** Failed attempts in a row (no byte received) before giving up on a file. */
  retries: number;
  /** First wait between attempts; doubled each time, at most 30 s (a Retry-After from the server wins). */
  backoffMs: number;
  /** An attempt that receives nothing for this long is dropped and retried from where it stopped. */
  stallMs: number;
}

/** What fetching one file needs to know and whom to tell about bytes. */
export interface FetchContext {
  hub: HubConnection;
  revision: string;
  outDir: string;
  settings: FetchSettings;
  /** Bytes of this file now on disk changed by `delta` (negative when a bad copy is thrown away). */
  onBytes: (delta: number) => void;
  /** Aborted when the run stops (another file failed): no new attempt starts. */
  signal?: AbortSignal;
  /** Says why an attempt is being retried (shown to the person; never holds a URL's signature or the token). */
  onRetry?: (message: string) => void;
}

/** Where a file grows while it is fetched: inside the output folder, so the final rename stays on one file system. */
export function partialPath(outDir: string, file: PlannedFile): string {
  return join(outDir, STATE_DIR, 'partial', file.repo, `${file.path}.part`);
}

/** A failure worth another attempt (the link, a timeout, the server's own trouble), as opposed to a refusal or a full disk. */
class Transient extends Error {
  constructor(message: string, readonly retryAfterMs?: number) {
    super(message);
  }
}

const WRITE_BATCH = 256 << 10;
const MAX_REDIRECTS = 5;

function resolveUrl(ctx: FetchContext, file: PlannedFile): string {
  const path = file.path.split('/').map(encodeURIComponent).join('/');
  return `${ctx.hub.endpoint.replace(/\/+$/, '')}/datasets/${file.repo}/resolve/${encodeURIComponent(ctx.revision)}/${path}`;
}

/**
 * Opens the file at `start`, following redirects by hand: the hub answers `resolve` for an LFS file with a redirect
 * to a CDN, and the token must not follow it there (the CDN URL is signed), so Authorization is sent only to the
 * hub's own origin.
 */
async function openAt(ctx: FetchContext, file: PlannedFile, start: number, signal: AbortSignal): Promise<Response> {
  const first = resolveUrl(ctx, file);
  const hubOrigin = new URL(first).origin;
  let url = first;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const headers: Record<string, string> = {};
    if (start > 0) headers.Range = `bytes=${start}-`;
    if (ctx.hub.token && new URL(url).origin === hubOrigin) headers.Authorization = `Bearer ${ctx.hub.token}`;
    let res: Response;
    try {
      res = await fetch(url, { headers, redirect: 'manual', signal });
    } catch (error) {
      throw new Transient(`${file.repo}/${file.path}: ${describeNetworkError(error, signal)}`);
    }
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location) {
      await res.body?.cancel();
      url = new URL(location, url).href;
      continue;
    }
    if (isAccessRefusal(res.status)) {
      await res.body?.cancel();
      throw accessError({ status: res.status, errorCode: res.headers.get('x-error-code') }, { endpoint: ctx.hub.endpoint, repo: file.repo, tokenEnv: ctx.hub.tokenEnv, hasToken: ctx.hub.token !== undefined, what: file.path });
    }
    if (res.status === 429 || res.status >= 500) {
      await res.body?.cancel();
      const after = Number(res.headers.get('retry-after'));
      throw new Transient(`${file.repo}/${file.path}: HTTP ${res.status}`, Number.isFinite(after) && after > 0 ? after * 1000 : undefined);
    }
    return res;
  }
  throw new Transient(`${file.repo}/${file.path}: more than ${MAX_REDIRECTS} redirects`);
}

function describeNetworkError(error: unknown, signal: AbortSignal): string {
  if (signal.aborted) return String(signal.reason instanceof Error ? signal.reason.message : signal.reason);
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}

async function sizeOnDisk(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}

/**
 * One attempt: appends what the server sends from the current end of the partial file. Returns the bytes received;
 * throws Transient for anything a retry may fix. Writes are batched (256 kB) and awaited one by one, so when the
 * link drops the file on disk holds exactly the bytes written, and the next attempt's Range starts there.
 */
async function attempt(ctx: FetchContext, file: PlannedFile, partial: string): Promise<number> {
  let start = await sizeOnDisk(partial);
  if (start > file.size) {
    await truncate(partial, 0);
    ctx.onBytes(-start);
    start = 0;
  }
  if (start === file.size) return 0;
  const controller = new AbortController();
  let timer = setTimeout(() => controller.abort(new Error(`nothing received for ${ctx.settings.stallMs / 1000} s`)), ctx.settings.stallMs);
  const signal = ctx.signal ? AbortSignal.any([controller.signal, ctx.signal]) : controller.signal;
  const res = await openAt(ctx, file, start, signal).catch((e) => {
    clearTimeout(timer);
    throw e;
  });
  if (start > 0 && res.status === 200) {
    // the server ignored Range: take the whole file again rather than append a second copy
    await truncate(partial, 0);
    ctx.onBytes(-start);
    start = 0;
  } else if (res.status === 416 || (res.status !== 200 && res.status !== 206)) {
    clearTimeout(timer);
    await res.body?.cancel();
    if (res.status === 416) await truncate(partial, 0), ctx.onBytes(-start);
    throw new Transient(`${file.repo}/${file.path}: HTTP ${res.status}`);
  } else if (res.status === 206 && !(res.headers.get('content-range') ?? '').startsWith(`bytes ${start}-`)) {
    clearTimeout(timer);
    await res.body?.cancel();
    throw new Transient(`${file.repo}/${file.path}: the server sent a range other than the one asked`);
  }
  await mkdir(dirname(partial), { recursive: true });
  const handle = await open(partial, start === 0 ? 'w' : 'a');
  let received = 0;
  let batch: Buffer[] = [];
  let batched = 0;
  const flush = async () => {
    if (batched === 0) return;
    const data = batch.length === 1 ? batch[0]! : Buffer.concat(batch, batched);
    batch = [];
    batched = 0;
    await handle.write(data);
    ctx.onBytes(data.length);
  };
  try {
    if (!res.body) throw new Transient(`${file.repo}/${file.path}: empty response`);
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      clearTimeout(timer);
      timer = setTimeout(() => controller.abort(new Error(`nothing received for ${ctx.settings.stallMs / 1000} s`)), ctx.settings.stallMs);
      received += chunk.length;
      batch.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      batched += chunk.length;
      if (batched >= WRITE_BATCH) await flush();
      if (start + received > file.size) break;
    }
    await flush();
  } catch (error) {
    await flush().catch(() => {});
    if (error instanceof CxrError || (error as NodeJS.ErrnoException).code === 'ENOSPC') throw error;
    throw new Transient(`${file.repo}/${file.path}: connection lost after ${start + received} of ${file.size} bytes (${describeNetworkError(error, signal)})`);
  } finally {
    clearTimeout(timer);
    await handle.close();
  }
  if (start + received < file.size) throw new Transient(`${file.repo}/${file.path}: the response ended at ${start + received} of ${file.size} bytes`);
  return received;
}

/** Downloads until the partial file holds `file.size` bytes, retrying with backoff; refusals and ENOSPC end it at once. */
async function download(ctx: FetchContext, file: PlannedFile, partial: string): Promise<void> {
  let failures = 0;
  for (;;) {
    const before = await sizeOnDisk(partial);
    try {
      await attempt(ctx, file, partial);
      return;
    } catch (error) {
      if (!(error instanceof Transient) || ctx.signal?.aborted) throw error;
      // an attempt that moved the file forward is not a failure in a row: a flaky link still gets there
      failures = (await sizeOnDisk(partial)) > before ? 1 : failures + 1;
      if (failures > ctx.settings.retries) {
        throw new CxrError('download-incomplete', `${error.message}; gave up after ${ctx.settings.retries} retries. What arrived is kept: rerun the same command to go on from there.`);
      }
      const wait = error.retryAfterMs ?? Math.min(30_000, ctx.settings.backoffMs * 2 ** Math.max(0, failures - 1));
      ctx.onRetry?.(`${error.message}; retrying in ${(wait / 1000).toFixed(1)} s`);
      await new Promise((r) => setTimeout(r, wait));
    }
  }
}

/** Checks a complete partial file against the listing: its size, then its hash. Returns the problem in words, or null. */
async function mismatch(file: PlannedFile, partial: string): Promise<string | null> {
  const size = await sizeOnDisk(partial);
  if (size !== file.size) return `${size} bytes where the hub lists ${file.size}`;
  const h = contentHash(file);
  if (!h) return null;
  await hashPrefix(partial, undefined, h.hash);
  const actual = h.hash.digest('hex');
  return actual === h.expected ? null : `${h.algorithm} ${actual} where the hub lists ${h.expected}`;
}

/**
 * Fetches one file into place: ranged download into a `.part` file, size and hash checked against the listing,
 * then an atomic rename to its destination. A copy that fails the check is thrown away and fetched once more from
 * scratch (a flipped bit on the way); failing twice names the file, as the hub's copy itself is then suspect.
 * Returns the destination's mtime, recorded so a later run can trust the file without hashing it again.
 */
export async function fetchVerified(ctx: FetchContext, file: PlannedFile): Promise<number> {
  const partial = partialPath(ctx.outDir, file);
  const dest = join(ctx.outDir, file.dest);
  let problem: string | null = null;
  for (let round = 0; round < 2; round++) {
    await download(ctx, file, partial);
    problem = await mismatch(file, partial);
    if (!problem) {
      await mkdir(dirname(dest), { recursive: true });
      await rename(partial, dest);
      return (await stat(dest)).mtimeMs;
    }
    const had = await sizeOnDisk(partial);
    await rm(partial, { force: true });
    ctx.onBytes(-had);
    if (round === 0) ctx.onRetry?.(`${file.repo}/${file.path}: ${problem}; fetching it again`);
  }
  throw new CxrError('download-corrupt', `${file.repo}/${file.path} at ${ctx.revision}: ${problem}, twice in a row (fetched again from scratch after the first). The copy on ${ctx.hub.endpoint} may be damaged; try later or another mirror (HF_ENDPOINT).`);
}
