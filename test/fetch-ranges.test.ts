import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { ConnectionPool } from '../src/hub/connection-pool.js';
import { fetchVerified, partialPath, type FetchContext } from '../src/hub/fetch-file.js';
import type { PlannedFile } from '../src/hub/selection.js';
import { startFakeHub, type FakeHub, type HubFile } from './helpers/fake-hub.js';
import { tempDir } from './helpers/records.js';

// Large files are fetched as ranges over several connections and appended strictly in order (src/hub/fetch-file.ts).
// What must hold, whatever the network does: the partial file on disk is always a prefix of the real file (resuming,
// hashing and the extraction following the part rely on it), every byte is asked for once, and the result is the file.

const REPO = 'rajpurkarlab/ReXGradient-160K';
const SHA = 'd'.repeat(40);
const RANGE = 8 << 10;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function standIn(files: Record<string, number>): Promise<{ hub: FakeHub; content: Record<string, Buffer> }> {
  const content = Object.fromEntries(Object.entries(files).map(([path, size]) => [path, randomBytes(size)]));
  const hubFiles: HubFile[] = Object.entries(content).map(([path, bytes]) => ({ path, content: bytes, lfs: true }));
  return { hub: await startFakeHub([{ name: REPO, sha: SHA, files: hubFiles }]), content };
}

const planned = (path: string, bytes: Buffer): PlannedFile => ({ repo: REPO, path, dest: `parts/${path}`, kind: 'archive-part', size: bytes.length, sha256: sha256(bytes) });

/**
 * Fetches one file, checking at every announced write that the partial file holds exactly the first bytes of the
 * real one, as many as announced so far.
 */
function fetchChecked(hub: FakeHub, out: string, path: string, bytes: Buffer, options: { pool?: ConnectionPool; order?: number; rangeBytes?: number; signal?: AbortSignal; onBytes?: (total: number) => void } = {}) {
  const file = planned(path, bytes);
  const partial = partialPath(out, file);
  let total = existsSync(partial) ? readFileSync(partial).length : 0;
  const retries: string[] = [];
  const ctx: FetchContext = {
    hub: { endpoint: hub.url, token: undefined, tokenEnv: 'HF_TOKEN' },
    revision: SHA,
    outDir: out,
    settings: { retries: 3, backoffMs: 5, stallMs: 5000, rangeBytes: options.rangeBytes ?? RANGE },
    pool: options.pool ?? new ConnectionPool(3, 2, options.rangeBytes ?? RANGE),
    order: options.order ?? 0,
    onBytes: (delta) => {
      total += delta;
      const onDisk = readFileSync(partial);
      assert.equal(onDisk.length, total, 'what was announced is what is on disk');
      assert.ok(onDisk.equals(bytes.subarray(0, total)), `the partial file is a prefix of ${path} after ${total} bytes`);
      options.onBytes?.(total);
    },
    onRetry: (message) => retries.push(message),
    ...(options.signal ? { signal: options.signal } : {}),
  };
  return { run: fetchVerified(ctx, file), retries, dest: join(out, file.dest), partial };
}

/** The CDN's ranged requests for a file, as [first, last] byte pairs (last = size - 1 for an open end), in arrival order. */
function cdnRanges(hub: FakeHub, bytes: Buffer, from = 0): ([number, number] | null)[] {
  return hub.requests
    .slice(from)
    .filter((r) => r.server === 'cdn' && r.path === `/blob/${sha256(bytes)}`)
    .map((r) => {
      if (r.range === null) return null;
      const m = /^bytes=(\d+)-(\d*)$/.exec(r.range)!;
      return [Number(m[1]), m[2] ? Number(m[2]) : bytes.length - 1];
    });
}

const resolves = (hub: FakeHub, path: string) => hub.requests.filter((r) => r.server === 'hub' && r.path.endsWith(`/resolve/${SHA}/${path}`)).length;

test('ranged fetch: a file larger than a range comes as ranges that tile it once, appended in order; the hub is asked once, the CDN address reused', async () => {
  const { hub, content } = await standIn({ 'deid_png.part00': 100_000 });
  try {
    const out = tempDir();
    const bytes = content['deid_png.part00']!;
    const { run, dest, retries } = fetchChecked(hub, out, 'deid_png.part00', bytes);
    await run;
    assert.ok(readFileSync(dest).equals(bytes));
    const ranges = cdnRanges(hub, bytes) as [number, number][];
    assert.equal(ranges.length, Math.ceil(bytes.length / RANGE));
    const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
    sorted.forEach(([first, last], i) => {
      assert.equal(first, i * RANGE, 'each range starts where the one before ended');
      assert.equal(last, Math.min(bytes.length, (i + 1) * RANGE) - 1);
    });
    assert.equal(resolves(hub, 'deid_png.part00'), 1, 'one resolve for the whole file');
    assert.deepEqual(retries, []);
  } finally {
    await hub.close();
  }
});

test('ranged fetch: a connection dropped mid-range is retried for the rest of that range only', async () => {
  const { hub, content } = await standIn({ 'deid_png.part00': 60_000 });
  try {
    const bytes = content['deid_png.part00']!;
    hub.faults.drop.set('deid_png.part00', { afterBytes: 3000, times: 1 });
    const { run, dest, retries } = fetchChecked(hub, tempDir(), 'deid_png.part00', bytes);
    await run;
    assert.ok(readFileSync(dest).equals(bytes));
    const ranges = cdnRanges(hub, bytes) as [number, number][];
    const resumed = ranges.filter(([first]) => first % RANGE !== 0);
    assert.equal(resumed.length, 1, JSON.stringify(ranges));
    const [first, last] = resumed[0]!;
    assert.ok(ranges.some(([f, l]) => f === first - 3000 && l === last), `the retry asks for the rest of the dropped range: ${JSON.stringify(ranges)}`);
    assert.equal(ranges.length, Math.ceil(bytes.length / RANGE) + 1);
    assert.equal(retries.length, 1);
    assert.match(retries[0]!, /connection lost after \d+ of 60000 bytes.*retrying in/);
  } finally {
    await hub.close();
  }
});

test('ranged fetch: a server that ignores Range gets the file whole, by one request from its first byte, and no wrong byte reaches the disk', async () => {
  const { hub, content } = await standIn({ 'deid_png.part00': 50_000 });
  try {
    const bytes = content['deid_png.part00']!;
    hub.faults.ignoreRange.add('deid_png.part00');
    const { run, dest } = fetchChecked(hub, tempDir(), 'deid_png.part00', bytes);
    await run;
    assert.ok(readFileSync(dest).equals(bytes));
    const asked = cdnRanges(hub, bytes);
    assert.deepEqual(asked.at(-1), null, 'the last request is for the whole file');
    assert.equal(asked.filter((r) => r === null).length, 1);
    assert.deepEqual(asked[0], [0, RANGE - 1], 'the first asked for the first range, and was answered with everything');
  } finally {
    await hub.close();
  }
});

test('ranged fetch: stopped mid-file, the partial file is a prefix of the real one and the next run asks from its end', async () => {
  const { hub, content } = await standIn({ 'deid_png.part00': 400_000 });
  try {
    const out = tempDir();
    const bytes = content['deid_png.part00']!;
    hub.faults.throttleMs = 15; // 16 kB slices: every range takes a few moments
    const stop = new AbortController();
    const first = fetchChecked(hub, out, 'deid_png.part00', bytes, { rangeBytes: 32 << 10, signal: stop.signal, onBytes: (total) => total >= 70_000 && stop.abort(new Error('stopped')) });
    await assert.rejects(first.run, /stopped/);
    const kept = readFileSync(first.partial);
    assert.ok(kept.length >= 70_000 && kept.length < bytes.length, `kept ${kept.length}`);
    assert.ok(kept.equals(bytes.subarray(0, kept.length)), 'what is on disk is the start of the file, nothing after a gap');

    hub.faults.throttleMs = 0;
    const mark = hub.requests.length;
    const again = fetchChecked(hub, out, 'deid_png.part00', bytes, { rangeBytes: 32 << 10 });
    await again.run;
    assert.ok(readFileSync(again.dest).equals(bytes));
    const ranges = (cdnRanges(hub, bytes, mark) as [number, number][]).sort((a, b) => a[0] - b[0]);
    assert.equal(ranges[0]![0], kept.length, 'the rerun starts where the disk ends');
    for (let i = 1; i < ranges.length; i++) assert.equal(ranges[i]![0], ranges[i - 1]![1] + 1, 'and asks for each later byte once');
    assert.equal(ranges.at(-1)![1], bytes.length - 1);
  } finally {
    await hub.close();
  }
});

test('ranged fetch: a CDN address that has expired (403) under several ranges at once is given up for a new one from the hub by each, and the file completes', async () => {
  const { hub, content } = await standIn({ 'deid_png.part00': 400_000 });
  try {
    const bytes = content['deid_png.part00']!;
    // the address expires right after the first range is served: the three ranges started next, together, from the
    // remembered address are all refused, each before any of them has asked the hub again
    hub.faults.expireAfter = 1;
    const { run, dest, retries } = fetchChecked(hub, tempDir(), 'deid_png.part00', bytes, { rangeBytes: 32 << 10, pool: new ConnectionPool(4, 3, 32 << 10) });
    await run;
    assert.ok(readFileSync(dest).equals(bytes));
    const refused = hub.requests.filter((r) => r.server === 'cdn').length - Math.ceil(bytes.length / (32 << 10));
    assert.ok(refused >= 2, `several ranges met the expired address (${refused})`);
    assert.ok(resolves(hub, 'deid_png.part00') >= 2, 'asked the hub again once the remembered address was refused');
    assert.deepEqual(retries, [], 'not a failure: the file goes on at once');
  } finally {
    await hub.close();
  }
});

test('ranged fetch: two files waiting on one pool — the earlier file is fetched wholly before the later one starts, whichever asked first', async () => {
  const { hub, content } = await standIn({ 'deid_png.part00': 40_000, 'deid_png.part01': 40_000 });
  try {
    const out = tempDir();
    const pool = new ConnectionPool(1, 0, RANGE);
    const busy = await pool.acquire([-1, 0], false); // the one connection taken: both files wait for it
    // the later file asks first: the pool still serves the earlier one
    const until = async (queued: number) => {
      while (pool.queued < queued) await new Promise((r) => setTimeout(r, 5));
    };
    const later = fetchChecked(hub, out, 'deid_png.part01', content['deid_png.part01']!, { pool, order: 1 });
    await until(1);
    const earlier = fetchChecked(hub, out, 'deid_png.part00', content['deid_png.part00']!, { pool, order: 0 });
    await until(2);
    busy.release();
    await Promise.all([later.run, earlier.run]);
    const order = hub.requests.filter((r) => r.server === 'cdn').map((r) => (r.path === `/blob/${sha256(content['deid_png.part00']!)}` ? 0 : 1));
    assert.deepEqual(order, [...order].sort(), `every request for part00 came before part01's: ${order.join('')}`);
  } finally {
    await hub.close();
  }
});

test('ranged fetch: a disk that fills up mid-file stops the file with ENOSPC; what is on disk is a prefix, all of it announced and nothing after a gap; freed, the file completes', async () => {
  const { hub, content } = await standIn({ 'deid_png.part00': 600_000 });
  const out = tempDir();
  mkdirSync(out, { recursive: true });
  let unmount: (() => void) | null = null;
  try {
    // 250 kB, not a multiple of the 32 kB ranges: the write that fills it is a short one, as on a real full disk
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=250k', 'tmpfs', out], { stdio: 'ignore' });
    unmount = () => execFileSync('umount', ['-l', out], { stdio: 'ignore' });
  } catch {
    // not root: the .part file is a link to /dev/full, which refuses every write with ENOSPC
  }
  try {
    const bytes = content['deid_png.part00']!;
    const partial = partialPath(out, planned('deid_png.part00', bytes));
    if (!unmount) mkdirSync(dirname(partial), { recursive: true }), symlinkSync('/dev/full', partial);
    const full = fetchChecked(hub, out, 'deid_png.part00', bytes, { rangeBytes: 32 << 10, pool: new ConnectionPool(4, 3, 32 << 10) });
    await assert.rejects(full.run, (error: NodeJS.ErrnoException) => error.code === 'ENOSPC');
    // fetchChecked has checked at every announced write that the file was a prefix of this length; and at the end:
    const kept = unmount ? readFileSync(partial) : Buffer.alloc(0);
    assert.ok(kept.equals(bytes.subarray(0, kept.length)), 'what is on disk is the start of the file');
    if (unmount) assert.ok(kept.length > 0 && kept.length < bytes.length, `kept ${kept.length}`);

    if (unmount) unmount(), (unmount = null);
    else rmSync(partial);
    const again = fetchChecked(hub, out, 'deid_png.part00', bytes, { rangeBytes: 32 << 10 });
    await again.run;
    assert.ok(readFileSync(again.dest).equals(bytes));
  } finally {
    unmount?.();
    await hub.close();
  }
});
