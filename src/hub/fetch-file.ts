import { mkdir, open, rename, rm, stat, truncate, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { IncomingMessage } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { CxrError } from '../core/errors.js';
import { accessError, isAccessRefusal } from './access-error.js';
import type { ConnectionPool, Lease } from './connection-pool.js';
import { contentHash, hashPrefix, type ContentHash } from './file-hash.js';
import { httpGet } from './http-get.js';
import type { HubConnection } from './hub-client.js';
import { STATE_DIR, type PlannedFile } from './selection.js';

/** How hard to try one file, and in what pieces. */
export interface FetchSettings {
  /** Failed attempts in a row (no byte received) before giving up on a range of a file. */
  retries: number;
  /** First wait between attempts; doubled each time, at most 30 s (a Retry-After from the server wins). */
  backoffMs: number;
  /** An attempt that receives nothing for this long is dropped and retried from where it stopped. */
  stallMs: number;
  /** A file larger than this is fetched as ranges of this size over several connections at once (default 8 MB). */
  rangeBytes?: number;
}

/** Ranges of 8 MB: big enough that a request's round trip is small beside its transfer, small enough that the few held in memory stay cheap. */
export const DEFAULT_RANGE_BYTES = 8 << 20;

/** What fetching one file needs to know and whom to tell about bytes. */
export interface FetchContext {
  hub: HubConnection;
  revision: string;
  outDir: string;
  settings: FetchSettings;
  /** The run's connections, shared by every file; see ConnectionPool for the order they are handed out in. */
  pool: ConnectionPool;
  /** This file's place in the plan: an earlier file gets connections first. */
  order: number;
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

/** The server answered a ranged request with the whole file (it does not do ranges): fetch the file whole, from its first byte. */
class RangesIgnored extends Error {}

/** The server refused the range as past the file's end (416): what is on disk cannot be right, so the file starts over. */
class StartOver extends Transient {}

// Parts are written 512 kB at a time: on ext4 here the kernel's copy into the page cache cost 0.40 s of system time
// per 1.9 GB in 512 kB writes, 0.50 s in 256 kB, 0.98 s in 64 kB, 1.31 s in 1 MB and 3.6 s in 8 MB (measured, one
// buffer written over and over; why larger writes cost more on this VM was not pinned down), and the whole
// download went ~5.3 → ~5.1 s from 256 kB (bench/RESULTS.md).
const WRITE_BATCH = 512 << 10;
/** Bytes that have waited this long are written, however few. */
const SLOW_FLUSH_MS = 200;
/** A range at the file's end stops reading from its connection while this much of it waits to be written. */
const HIGH_WATER = 1 << 20;
const MAX_REDIRECTS = 5;

function resolveUrl(ctx: FetchContext, file: PlannedFile): string {
  const path = file.path.split('/').map(encodeURIComponent).join('/');
  return `${ctx.hub.endpoint.replace(/\/+$/, '')}/datasets/${file.repo}/resolve/${encodeURIComponent(ctx.revision)}/${path}`;
}

/** The Range header for bytes [from, to) of a file of `size` bytes: none for the whole file, open-ended to its end. */
function rangeHeader(from: number, to: number, size: number): string | null {
  if (from === 0 && to === size) return null;
  return to === size ? `bytes=${from}-` : `bytes=${from}-${to - 1}`;
}

/**
 * Where a file's requests go once the first has followed the hub's redirect: the CDN address it led to. A file
 * fetched as many ranges asks the hub once, not once per range (the hub's `resolve` is rate-limited; the signed
 * address is what hf_transfer and huggingface_hub fetch from too). Forgotten when the CDN refuses it (expired).
 */
interface Redirected {
  url?: string;
}

/**
 * Opens bytes [from, to) of the file, following redirects by hand: the hub answers `resolve` for an LFS file with a
 * redirect to a CDN, and the token must not follow it there (the CDN URL is signed), so Authorization is sent only
 * to the hub's own origin.
 */
async function openRange(ctx: FetchContext, file: PlannedFile, from: number, to: number, signal: AbortSignal, redirected: Redirected): Promise<IncomingMessage> {
  const first = resolveUrl(ctx, file);
  const hubOrigin = new URL(first).origin;
  // the address this request starts from: several ranges may find the remembered one expired at once, and each
  // must see that it was refused at an old address, whatever another has remembered since
  const remembered = redirected.url;
  let url = remembered ?? first;
  let askedAgain = false;
  const range = rangeHeader(from, to, file.size);
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const headers: Record<string, string> = {};
    if (range) headers.Range = range;
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
    if (url === remembered && !askedAgain && (isAccessRefusal(status) || status === 410)) {
      // the CDN address remembered from an earlier range has expired: ask the hub again (which may refuse, said below)
      res.resume();
      if (redirected.url === remembered) redirected.url = undefined;
      askedAgain = true;
      url = first;
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
    if (url !== first) redirected.url = url;
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
 * Writes every byte of `data` at the file's end. A short write (a nearly full disk gives one without an error) is
 * continued, and the next call says why it stopped (ENOSPC, EDQUOT, EFBIG), instead of bytes being counted that are
 * not on disk.
 */
async function writeAll(handle: FileHandle, data: Buffer[], bytes: number): Promise<void> {
  let rest = data;
  for (let left = bytes; left > 0; ) {
    const { bytesWritten } = await handle.writev(rest);
    if (bytesWritten <= 0) throw Object.assign(new Error('write: no byte written'), { code: 'EIO', syscall: 'write' });
    left -= bytesWritten;
    let skip = bytesWritten;
    const next: Buffer[] = [];
    for (const b of rest) {
      if (skip >= b.length) skip -= b.length;
      else next.push(skip > 0 ? b.subarray(skip) : b), (skip = 0);
    }
    rest = next;
  }
}

/**
 * After the `failures`-th failure in a row: gives up (more than `retries`), or says so and waits — doubling from
 * `backoffMs`, at most 30 s, or as long as the server's Retry-After asks — then returns for the next attempt.
 */
async function backOff(ctx: FetchContext, error: Transient, failures: number, signal?: AbortSignal): Promise<void> {
  if (failures > ctx.settings.retries) {
    throw new CxrError('download-incomplete', `${error.message}; gave up after ${ctx.settings.retries} retries. What arrived is kept: rerun the same command to go on from there.`);
  }
  const wait = error.retryAfterMs ?? Math.min(30_000, ctx.settings.backoffMs * 2 ** (failures - 1));
  ctx.onRetry?.(`${error.message}; retrying in ${(wait / 1000).toFixed(1)} s`);
  await sleep(wait, undefined, signal ? { signal } : undefined);
}

/** Empties the partial file (a copy that cannot be continued), telling the listener its bytes are gone. */
async function startOver(ctx: FetchContext, partial: string): Promise<void> {
  const had = await sizeOnDisk(partial);
  if (had === 0) return;
  await truncate(partial, 0);
  ctx.onBytes(-had);
}

/** Bytes [start, end) of the file, fetched by one request at a time (the next one from where the last stopped). */
interface Range {
  start: number;
  end: number;
  /** Bytes received so far, from `start`. */
  got: number;
  /** Of those, bytes written to the partial file. */
  flushed: number;
  /** Where a range fetched ahead of the file's end keeps its bytes until written (the pool's, given back after). */
  buffer: Buffer | null;
  /** Without a buffer: the received pieces not yet written, as they came. */
  pieces: Buffer[];
}

/**
 * One pass over what the file still lacks: the rest is cut into ranges, fetched over as many of the pool's
 * connections as it hands this file, and appended to the partial file strictly in order, so the file on disk is
 * always a prefix of the real one (a kill loses at most the ranges held in memory; the next run resumes at the
 * file's end, as if it had been fetched by one request). Each range retries on its own, with backoff, from where
 * it stopped; the pass ends when the file is complete or a range gives up (what is in order by then is written).
 */
async function fetchPass(ctx: FetchContext, file: PlannedFile, partial: string, running: RunningHash, whole: boolean, redirected: Redirected): Promise<void> {
  let written = await sizeOnDisk(partial);
  if (written > file.size) {
    await startOver(ctx, partial);
    written = 0;
  }
  await running.at(partial, written);
  if (written === file.size) return;
  const span = whole || ctx.pool.size < 2 || ctx.pool.buffers === 0 ? Infinity : (ctx.settings.rangeBytes ?? DEFAULT_RANGE_BYTES);
  const ranges: Range[] = [];
  for (let at = written; at < file.size; at += span) ranges.push({ start: at, end: Math.min(file.size, at + span), got: 0, flushed: 0, buffer: null, pieces: [] });

  const stop = new AbortController();
  const signal = ctx.signal ? AbortSignal.any([stop.signal, ctx.signal]) : stop.signal;
  let failure: unknown = null;
  const fail = (error: unknown) => {
    if (failure === null) (failure = error), stop.abort(error);
    wakeReaders();
  };

  // The writer: appends the first unwritten range's bytes, then the next range's, one write of about WRITE_BATCH at
  // a time (once that much waits, once the range is complete, SLOW_FLUSH_MS after the last write, or when the pass
  // ends). Readers waiting for room are woken after each write.
  await mkdir(dirname(partial), { recursive: true });
  const handle = await open(partial, written === 0 ? 'w' : 'a');
  let head = 0;
  let flushAll = false;
  const complete = (r: Range) => r.start + r.got === r.end;
  const waiting = (r: Range) => r.got - r.flushed;
  // on a slow link bytes do not wait for a whole batch: a kill then loses at most SLOW_FLUSH_MS of them
  let lastWrite = Date.now();
  const ready = (r: Range) => waiting(r) > 0 && (waiting(r) >= WRITE_BATCH || complete(r) || flushAll || Date.now() - lastWrite >= SLOW_FLUSH_MS);
  const giveBack = (r: Range) => {
    if (r.buffer) ctx.pool.giveBack(r.buffer), (r.buffer = null);
  };
  let readers: (() => void)[] = [];
  const wakeReaders = () => {
    const woken = readers;
    readers = [];
    for (const wake of woken) wake();
  };
  let broken = false;
  const drain = async () => {
    while (head < ranges.length && !broken) {
      const r = ranges[head]!;
      if (ready(r)) {
        // at most WRITE_BATCH (plus a piece) per call, also from a range's buffer of 8 MB (see WRITE_BATCH)
        const data: Buffer[] = [];
        let bytes = 0;
        let n = 0;
        if (r.buffer) {
          bytes = Math.min(waiting(r), WRITE_BATCH);
          data.push(r.buffer.subarray(r.flushed, r.flushed + bytes));
        } else {
          while (n < r.pieces.length && bytes < WRITE_BATCH) bytes += r.pieces[n++]!.length;
          data.push(...r.pieces.slice(0, n));
        }
        await writeAll(handle, data, bytes);
        // counted only once written: a write that failed keeps its bytes unwritten, and stops the writer (below), so
        // no later byte lands after a gap
        r.flushed += bytes;
        r.pieces.splice(0, n);
        lastWrite = Date.now();
        for (const b of data) running.update(b);
        written += bytes;
        ctx.onBytes(bytes);
        wakeReaders();
      } else if (complete(r) && waiting(r) === 0) {
        giveBack(r);
        head++;
      } else {
        return;
      }
    }
  };
  let writing: Promise<void> | null = null;
  const write = (): Promise<void> =>
    (writing ??= drain().then(
      () => {
        writing = null;
        // bytes that arrived after drain's last look
        if (!broken && head < ranges.length && ready(ranges[head]!)) return write();
      },
      (error: unknown) => {
        writing = null;
        broken = true;
        fail(error);
      },
    ));

  // The first range's answer says where the CDN is and whether the server does ranges at all: the others wait for
  // it, so a file asks the hub once and a server without ranges is not sent a burst of requests it will answer whole.
  let answered!: () => void;
  const firstAnswer = new Promise<void>((resolve) => (answered = resolve));

  /** One request for the rest of a range; its bytes are queued for the writer as they come. */
  const attempt = async (r: Range): Promise<void> => {
    const from = r.start + r.got;
    const controller = new AbortController();
    const stalled = () => controller.abort(new Error(`nothing received for ${ctx.settings.stallMs / 1000} s`));
    let timer = setTimeout(stalled, ctx.settings.stallMs);
    const requestSignal = AbortSignal.any([controller.signal, signal]);
    try {
      const res = await openRange(ctx, file, from, r.end, requestSignal, redirected).finally(answered);
      const status = res.statusCode ?? 0;
      if (status === 200 && rangeHeader(from, r.end, file.size) !== null) {
        res.destroy();
        throw new RangesIgnored();
      }
      if (status === 416) {
        res.resume();
        throw new StartOver(`${file.repo}/${file.path}: HTTP 416 (the hub's copy is shorter than listed, or changed)`);
      }
      if (status !== 200 && status !== 206) {
        res.resume();
        throw new Transient(`${file.repo}/${file.path}: HTTP ${status}`);
      }
      if (status === 206 && !(res.headers['content-range'] ?? '').startsWith(`bytes ${from}-`)) {
        res.resume();
        throw new Transient(`${file.repo}/${file.path}: the server sent a range other than the one asked`);
      }
      let over = false;
      try {
        for await (const chunk of res as AsyncIterable<Buffer>) {
          clearTimeout(timer);
          timer = setTimeout(stalled, ctx.settings.stallMs);
          const room = r.end - r.start - r.got;
          // more than asked: a server that got the range wrong; what fits is kept and the hash has the last word
          const piece = chunk.length > room ? chunk.subarray(0, room) : chunk;
          if (r.buffer) piece.copy(r.buffer, r.got);
          else if (piece.length > 0) r.pieces.push(piece);
          r.got += piece.length;
          if (chunk.length > room) {
            over = true;
            break;
          }
          if (ready(r) && ranges[head] === r) void write();
          // the range being written waits for the disk rather than piling up in memory; the ones after it are bounded by their length
          while (ranges[head] === r && waiting(r) >= HIGH_WATER && !signal.aborted) await new Promise<void>((wake) => readers.push(wake));
        }
        if (!over && !res.complete && !complete(r)) throw new Error('the server closed the connection early');
      } catch (error) {
        if (error instanceof CxrError) throw error;
        throw new Transient(`${file.repo}/${file.path}: connection lost after ${r.start + r.got} of ${file.size} bytes (${describeNetworkError(error, requestSignal)})`);
      } finally {
        // a response read to its end goes back to the agent for the next range; anything else is closed
        if (!res.complete) res.destroy();
      }
      if (!complete(r)) throw new Transient(`${file.repo}/${file.path}: the response ended at ${r.start + r.got} of ${file.size} bytes`);
      void write();
    } finally {
      clearTimeout(timer);
    }
  };

  /** A range's attempts, with backoff; gives up after `retries` failures in a row that brought no byte. */
  const fetchRange = async (r: Range): Promise<void> => {
    let failures = 0;
    for (;;) {
      const before = r.got;
      try {
        await attempt(r);
        return;
      } catch (error) {
        if (!(error instanceof Transient) || error instanceof StartOver || signal.aborted) throw error;
        failures = r.got > before ? 1 : failures + 1;
        await backOff(ctx, error, failures, signal);
      }
    }
  };

  const fetching: Promise<void>[] = [];
  try {
    for (let i = 0; i < ranges.length && failure === null; i++) {
      const r = ranges[i]!;
      if (i === 1) await Promise.race([firstAnswer, new Promise((wake) => signal.addEventListener('abort', wake, { once: true }))]);
      // the first range is at the file's end on disk and is written as it comes; later ones wait in a buffer
      let lease: Lease;
      try {
        lease = await ctx.pool.acquire([ctx.order, r.start], i > 0, signal);
      } catch (error) {
        fail(error);
        break;
      }
      r.buffer = lease.buffer;
      fetching.push(
        fetchRange(r)
          .catch(fail)
          .finally(() => lease.release()),
      );
    }
    await Promise.all(fetching);
    await write();
  } finally {
    // what is in order is kept (the received part of the range at the file's end included); the rest is dropped
    flushAll = true;
    await write().catch(() => {});
    await writing;
    for (const r of ranges) giveBack(r);
    // a failure at close (a network file system's delayed ENOSPC) is said, unless an earlier one already is
    await handle.close().catch((error: unknown) => void (failure ??= error));
  }
  if (failure !== null) throw failure;
  if (written < file.size) throw new Transient(`${file.repo}/${file.path}: ${written} of ${file.size} bytes written`);
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

/**
 * Downloads until the partial file holds `file.size` bytes. A server that ignores ranges gets the file whole; one
 * that says the range is past the file's end gets it from its first byte, with backoff. Refusals, ENOSPC and a
 * range that gave up end it.
 */
async function download(ctx: FetchContext, file: PlannedFile, partial: string, running: RunningHash): Promise<void> {
  const redirected: Redirected = {};
  let whole = false;
  let failures = 0;
  for (;;) {
    try {
      await fetchPass(ctx, file, partial, running, whole, redirected);
      return;
    } catch (error) {
      if (ctx.signal?.aborted) throw error;
      if (error instanceof RangesIgnored) {
        // the bytes on disk cannot be continued without ranges: the whole file, from its first byte, by one request
        whole = true;
        await startOver(ctx, partial);
        continue;
      }
      if (!(error instanceof Transient)) throw error;
      if (error instanceof StartOver) await startOver(ctx, partial);
      await backOff(ctx, error, ++failures, ctx.signal);
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
