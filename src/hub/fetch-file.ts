import { mkdir, open, rename, rm, stat, truncate } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { IncomingMessage } from 'node:http';
import { CxrError } from '../core/errors.js';
import { accessError, isAccessRefusal } from './access-error.js';
import { contentHash, hashPrefix, type ContentHash } from './file-hash.js';
import { httpGet } from './http-get.js';
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
async function openAt(ctx: FetchContext, file: PlannedFile, start: number, signal: AbortSignal): Promise<IncomingMessage> {
  const first = resolveUrl(ctx, file);
  const hubOrigin = new URL(first).origin;
  let url = first;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const headers: Record<string, string> = {};
    if (start > 0) headers.Range = `bytes=${start}-`;
    if (ctx.hub.token && new URL(url).origin === hubOrigin) headers.Authorization = `Bearer ${ctx.hub.token}`;
    let res: IncomingMessage;
    try {
      res = await httpGet(url, headers, signal);
    } catch (error) {
      throw new Transient(`${file.repo}/${file.path}: ${describeNetworkError(error, signal)}`);
    }
    const status = res.statusCode ?? 0;
    const location = res.headers.location;
    if (status >= 300 && status < 400 && location) {
      res.resume();
      url = new URL(location, url).href;
      continue;
    }
    if (isAccessRefusal(status)) {
      res.resume();
      const errorCode = res.headers['x-error-code'];
      throw accessError({ status, errorCode: typeof errorCode === 'string' ? errorCode : null }, { endpoint: ctx.hub.endpoint, repo: file.repo, tokenEnv: ctx.hub.tokenEnv, hasToken: ctx.hub.token !== undefined, what: file.path });
    }
    if (status === 429 || status >= 500) {
      res.resume();
      const after = Number(res.headers['retry-after']);
      throw new Transient(`${file.repo}/${file.path}: HTTP ${status}`, Number.isFinite(after) && after > 0 ? after * 1000 : undefined);
    }
    return res;
  }
  throw new Transient(`${file.repo}/${file.path}: more than ${MAX_REDIRECTS} redirects`);
}

function describeNetworkError(error: unknown, signal: AbortSignal): string {
  if (signal.aborted) return String(signal.reason instanceof Error ? signal.reason.message : signal.reason);
  const e = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  return e.code ?? e.cause?.code ?? e.message ?? String(error);
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
 * throws Transient for anything a retry may fix. Writes are batched (256 kB, one writev) and awaited one by one, so when the
 * link drops the file on disk holds exactly the bytes written, and the next attempt's Range starts there.
 */
async function attempt(ctx: FetchContext, file: PlannedFile, partial: string, running: RunningHash): Promise<number> {
  let start = await sizeOnDisk(partial);
  if (start > file.size) {
    await truncate(partial, 0);
    ctx.onBytes(-start);
    start = 0;
  }
  await running.at(partial, start);
  if (start === file.size) return 0;
  const controller = new AbortController();
  let timer = setTimeout(() => controller.abort(new Error(`nothing received for ${ctx.settings.stallMs / 1000} s`)), ctx.settings.stallMs);
  const signal = ctx.signal ? AbortSignal.any([controller.signal, ctx.signal]) : controller.signal;
  const res = await openAt(ctx, file, start, signal).catch((e) => {
    clearTimeout(timer);
    throw e;
  });
  const status = res.statusCode ?? 0;
  if (start > 0 && status === 200) {
    // the server ignored Range: take the whole file again rather than append a second copy
    await truncate(partial, 0);
    ctx.onBytes(-start);
    start = 0;
    await running.at(partial, 0);
  } else if (status === 416 || (status !== 200 && status !== 206)) {
    clearTimeout(timer);
    res.resume();
    if (status === 416) await truncate(partial, 0), ctx.onBytes(-start);
    throw new Transient(`${file.repo}/${file.path}: HTTP ${status}`);
  } else if (status === 206 && !(res.headers['content-range'] ?? '').startsWith(`bytes ${start}-`)) {
    clearTimeout(timer);
    res.resume();
    throw new Transient(`${file.repo}/${file.path}: the server sent a range other than the one asked`);
  }
  await mkdir(dirname(partial), { recursive: true });
  const handle = await open(partial, start === 0 ? 'w' : 'a');
  let received = 0;
  let batch: Buffer[] = [];
  let batched = 0;
  const flush = async () => {
    if (batched === 0) return;
    const data = batch;
    const bytes = batched;
    batch = [];
    batched = 0;
    await handle.writev(data);
    for (const b of data) running.update(b);
    ctx.onBytes(bytes);
  };
  try {
    for await (const chunk of res as AsyncIterable<Buffer>) {
      clearTimeout(timer);
      timer = setTimeout(() => controller.abort(new Error(`nothing received for ${ctx.settings.stallMs / 1000} s`)), ctx.settings.stallMs);
      received += chunk.length;
      batch.push(chunk);
      batched += chunk.length;
      if (batched >= WRITE_BATCH) await flush();
      if (start + received > file.size) break;
    }
    await flush();
    if (!res.complete && start + received < file.size) throw new Error('the server closed the connection early');
  } catch (error) {
    await flush().catch(() => {});
    if (error instanceof CxrError || (error as NodeJS.ErrnoException).code === 'ENOSPC') throw error;
    throw new Transient(`${file.repo}/${file.path}: connection lost after ${start + received} of ${file.size} bytes (${describeNetworkError(error, signal)})`);
  } finally {
    clearTimeout(timer);
    res.destroy();
    await handle.close();
  }
  if (start + received < file.size) throw new Transient(`${file.repo}/${file.path}: the response ended at ${start + received} of ${file.size} bytes`);
  return received;
}

/**
 * The hash of the bytes on disk so far, kept across attempts so each byte is hashed once, as it is written (a second
 * pass over hundreds of GB would cost as much as the download on a fast link). When the file on disk is not where
 * the hash stands (a resumed run, a truncation), the prefix is hashed again from disk.
 */
class RunningHash {
  private h: ContentHash | null;
  private bytes = 0;
  constructor(private readonly file: PlannedFile) {
    this.h = contentHash(file);
  }
  async at(partial: string, size: number): Promise<void> {
    if (size === this.bytes) return;
    this.h = contentHash(this.file);
    this.bytes = 0;
    if (this.h) await hashPrefix(partial, size, this.h.hash);
    this.bytes = size;
  }
  update(chunk: Buffer): void {
    this.h?.hash.update(chunk);
    this.bytes += chunk.length;
  }
  /** The problem in words when the content does not match the listing, or null. */
  mismatch(): string | null {
    if (!this.h) return null;
    const actual = this.h.hash.digest('hex');
    return actual === this.h.expected ? null : `${this.h.algorithm} ${actual} where the hub lists ${this.h.expected}`;
  }
}

/** Downloads until the partial file holds `file.size` bytes, retrying with backoff; refusals and ENOSPC end it at once. */
async function download(ctx: FetchContext, file: PlannedFile, partial: string, running: RunningHash): Promise<void> {
  let failures = 0;
  for (;;) {
    const before = await sizeOnDisk(partial);
    try {
      await attempt(ctx, file, partial, running);
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
async function mismatch(file: PlannedFile, partial: string, running: RunningHash): Promise<string | null> {
  const size = await sizeOnDisk(partial);
  if (size !== file.size) return `${size} bytes where the hub lists ${file.size}`;
  await running.at(partial, size);
  return running.mismatch();
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
    const running = new RunningHash(file);
    await download(ctx, file, partial, running);
    problem = await mismatch(file, partial, running);
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
