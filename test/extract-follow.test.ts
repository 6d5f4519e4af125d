import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import test from 'node:test';
import { createZstdCompress } from 'node:zlib';
import tar from 'tar-stream';
import { EMPTY_JOURNAL, type ArchiveJournal } from '../src/hub/extract-archive.js';
import { startExtraction } from '../src/hub/extract-in-thread.js';

// The extraction follows the parts while they download (src/hub/extract-in-thread.ts): these drive it as the
// download does — bytes appended to a partial file and announced, then the part verified and renamed — and check
// that images come out before a part is verified but no journal vouches for them until it is, and that bytes thrown
// away after the thread read them (a bad copy) are extracted again from the new copy.

const images = Array.from({ length: 40 }, (_, i) => ({ name: `deid_png/P${i % 3}/studies/S${i}/instances/I${i}.png`, content: randomBytes(6_000) }));

async function archive(): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const zstd = createZstdCompress();
  const done = new Promise<void>((resolve, reject) => zstd.on('data', (c: Buffer) => chunks.push(c)).on('end', resolve).on('error', reject));
  (pack as unknown as Readable).pipe(zstd);
  for (const image of images) await new Promise<void>((r) => pack.entry({ name: image.name }, image.content, () => r()));
  pack.finalize();
  await done;
  return Buffer.concat(chunks);
}

const until = async (what: string, ok: () => boolean) => {
  for (let i = 0; i < 500 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(ok(), what);
};

function setUp(whole: Buffer) {
  const dir = mkdtempSync(join(tmpdir(), 'cxrbench-follow-'));
  const cut = Math.floor(whole.length / 2);
  const bytes = [whole.subarray(0, cut), whole.subarray(cut)];
  const parts = bytes.map((b, i) => ({ partial: join(dir, `part${i}.part`), dest: join(dir, `part${i}`), size: b.length }));
  const journals: ArchiveJournal[] = [];
  const extraction = startExtraction({ outDir: join(dir, 'out'), parts, journal: { ...EMPTY_JOURNAL }, onDisk: [0, 0], verified: [false, false], onJournal: (j) => journals.push({ ...j }) });
  const append = (i: number, data: Buffer) => {
    appendFileSync(parts[i]!.partial, data);
    extraction.wrote(i, data.length);
  };
  const verify = (i: number) => {
    renameSync(parts[i]!.partial, parts[i]!.dest);
    extraction.verified(i);
  };
  /** What the download does when a copy fails its hash: throws it away, fetches it again, verifies it. */
  const refetch = (i: number, data: Buffer) => {
    const had = statSync(parts[i]!.partial).size;
    rmSync(parts[i]!.partial);
    extraction.wrote(i, -had);
    append(i, data);
    verify(i);
  };
  const extracted = () => (existsSync(join(dir, 'out')) ? readdirSync(join(dir, 'out'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length : 0);
  return { dir, bytes, parts, journals, extraction, append, verify, refetch, extracted };
}

/** A test over a fresh two-part archive and a running extraction, cleaned up however it ends. */
function followTest(name: string, body: (s: ReturnType<typeof setUp>) => Promise<void>): void {
  test(name, async () => {
    const s = setUp(await archive());
    try {
      await body(s);
    } finally {
      s.extraction.stop(new Error('test over'));
      rmSync(s.dir, { recursive: true, force: true });
    }
  });
}

followTest('extraction follows a part while it downloads; its journal waits for the part to be verified', async (s) => {
  const [first, second] = s.bytes as [Buffer, Buffer];
  s.append(0, first.subarray(0, 1000));
  s.append(0, first.subarray(1000));
  await until('images come out of the first part before it is verified', () => s.extracted() > 5);
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(s.journals.length, 0, 'no journal vouches for entries made from unverified bytes');
  s.verify(0);
  await until('the first part verified, its entries are vouched for', () => s.journals.length > 0);
  const vouched = s.journals.at(-1)!.entriesDone;
  assert.ok(vouched > 0 && vouched < images.length, `${vouched} entries vouched for after the first part`);
  s.append(1, second);
  await new Promise((r) => setTimeout(r, 200));
  assert.ok(s.journals.every((j) => !j.complete), 'not complete while the last part is unverified');
  s.verify(1);
  const final = await s.extraction.done;
  assert.deepEqual({ ...final }, { entriesDone: images.length, lastEntry: images.at(-1)!.name, filesOut: images.length, bytesOut: images.length * 6_000, partsRead: 2, complete: true });
  for (const image of images) assert.deepEqual(readFileSync(join(s.dir, 'out', image.name)), image.content, image.name);
});

followTest('bytes thrown away after the thread read them (a bad copy) are extracted again from the new copy: every image right, no stray file', async (s) => {
  const [first, second] = s.bytes as [Buffer, Buffer];
  s.append(0, first);
  s.verify(0);
  // a copy of the second part with bytes flipped inside image data (past the first part's end, so in entries it
  // has not written): the thread extracts wrong pixels from it
  const bad = Buffer.from(second);
  for (let i = 2_000; i < bad.length - 2_000; i += 3_001) bad[i] = bad[i]! ^ 0xff;
  s.append(1, bad);
  await new Promise((r) => setTimeout(r, 300));
  // the download's hash check fails
  s.refetch(1, second);
  const final = await s.extraction.done;
  assert.equal(final.complete, true);
  assert.equal(final.entriesDone, images.length);
  for (const image of images) assert.deepEqual(readFileSync(join(s.dir, 'out', image.name)), image.content, `${image.name} written again from the good copy`);
  assert.equal(s.extracted(), images.length, 'no file beyond the archive\'s');
});

followTest('a failure met in unverified bytes waits for verification: the part fetched again, the extraction finishes', async (s) => {
  const [first, second] = s.bytes as [Buffer, Buffer];
  s.append(0, first);
  s.verify(0);
  s.append(1, Buffer.alloc(second.length, 0x41)); // not zstd at all: the thread fails on it
  await new Promise((r) => setTimeout(r, 300));
  s.refetch(1, second);
  const final = await s.extraction.done;
  assert.equal(final.entriesDone, images.length);
  for (const image of images) assert.deepEqual(readFileSync(join(s.dir, 'out', image.name)), image.content, image.name);
});

followTest('a failure in verified bytes is the archive\'s own and is said', async (s) => {
  const [first, second] = s.bytes as [Buffer, Buffer];
  s.append(0, first);
  s.verify(0);
  s.append(1, Buffer.alloc(second.length, 0x41));
  s.verify(1); // the hub lists these very bytes: nothing to fetch again
  await assert.rejects(s.extraction.done, /could not be read through zstd and tar/);
});


// A copy thrown away at several moments after it was announced (null: at once, in the same turn): whatever the
// thread had done with it — reading it, opening its deleted file, not there yet — every image comes out right.
for (const delayMs of [null, 0, 2, 10, 40]) {
  followTest(`a copy thrown away ${delayMs === null ? 'at once' : `${delayMs} ms`} after it was announced is never extracted from`, async (s) => {
    const [first, second] = s.bytes as [Buffer, Buffer];
    const bad = Buffer.from(second);
    for (let i = 500; i < bad.length - 500; i += 997) bad[i] = bad[i]! ^ 0xff;
    s.append(0, first);
    s.verify(0);
    s.append(1, bad);
    if (delayMs !== null) await new Promise((r) => setTimeout(r, delayMs));
    s.refetch(1, second);
    const final = await s.extraction.done;
    assert.equal(final.entriesDone, images.length);
    for (const image of images) assert.deepEqual(readFileSync(join(s.dir, 'out', image.name)), image.content, image.name);
  });
}

followTest('the file system refusing a write is said at once, as itself, without waiting for the parts to verify', async (s) => {
  // a file where the images' folder should be: the first image, read from the unverified part, cannot be written
  mkdirSync(join(s.dir, 'out'));
  writeFileSync(join(s.dir, 'out', 'deid_png'), 'a file where a folder should be');
  s.append(0, s.bytes[0]!);
  const held = new Promise((_, reject) => setTimeout(() => reject(new Error('held back: still waiting for verification after 10 s')), 10_000).unref());
  await assert.rejects(Promise.race([s.extraction.done, held]), (error: NodeJS.ErrnoException) => typeof error.code === 'string' && /EEXIST|ENOTDIR/.test(error.code) && !/zstd and tar/.test(error.message));
});
