/**
 * `cxrbench images convert` on hostile inputs (issue #22): sequences nested thousands deep, a deflate bomb, values
 * and items past the limits, structures dcmjs reads that an element-by-element reading of the file does not see
 * (stray words in sequences, an item delimiter inside a value, a transfer syntax dcmjs reads otherwise, sequences
 * in the meta group), a UID too long for a file name, a file-system error writing one image, FIFOs, devices and
 * sockets named on the command line. Each is refused by reason and the good files of the same run convert; the
 * runs have a heap cap and a timeout, so a limit that stops holding fails here instead of hanging the suite.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { DCMJS_VERSION_FOLLOWED } from '../src/images/dcmjs-walk.js';
import { DICOM_LIMITS } from '../src/images/dicom-limits.js';
import { DicomRejection } from '../src/images/dicom-image.js';
import { readDicom } from '../src/images/read-dicom.js';
import {
  deflateBomb, deflatedSmallDicom, element, encapsulatedWithOffsetTable, manyAttributes, nestedDefinedLength, nestedSequences, rleClaiming, sequenceBehindShiftedItem,
  sequenceHiddenInText, smallDicom, withMeta, withStrayWord,
} from './helpers/hostile-dicom.js';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/records.js';

/**
 * `cxrbench images convert` in a child with a 256 MB heap (main and conversion threads) and a time limit: before the
 * limits, the 10,000-deep file alone took 15–43 s and 1.5 GB, the bomb 21 s and 4.4 GB, a FIFO hung for good.
 */
function convert(args: string[], timeoutMs = 60_000) {
  return runCli(['images', 'convert', ...args, '--threads', '1'], { timeoutMs, env: { NODE_OPTIONS: '--max-old-space-size=256' } });
}

const uid = (n: number) => `1.2.826.0.1.3680043.10.99.${100 + n}`;
const write = (dir: string, name: string, bytes: Buffer) => {
  writeFileSync(join(dir, name), bytes);
  return join(dir, name);
};
const stderrLines = (stderr: string) => stderr.trim().split('\n').sort();

test('hostile DICOM files are each refused by reason, within a heap cap and a time limit; the good files of the same run convert', async () => {
  const dir = tempDir();
  const good = write(dir, 'good.dcm', smallDicom({ sopInstanceUid: uid(1) }));
  const deflated = write(dir, 'deflated.dcm', deflatedSmallDicom());
  const nested32 = write(dir, 'nested-32.dcm', smallDicom({ sopInstanceUid: uid(2), extra: nestedSequences(32) }));
  const nested10k = write(dir, 'nested-10000.dcm', smallDicom({ sopInstanceUid: uid(3), extra: nestedSequences(10_000) }));
  const nested50k = write(dir, 'nested-50000.dcm', smallDicom({ sopInstanceUid: uid(4), extra: nestedSequences(50_000) }));
  const bomb = write(dir, 'bomb.dcm', deflateBomb(1024));
  const out = join(dir, 'png');
  const run = await convert([good, nested10k, deflated, nested50k, bomb, nested32, '--out', out, '--layout', 'flat']);
  assert.equal(run.code, 1, run.stderr);
  assert.equal(run.stdout, `converted 3, skipped 0 (already converted), failed 3; manifest: ${join(out, 'manifest.jsonl')}\n`);
  assert.deepEqual(stderrLines(run.stderr), [
    `cxrbench: ${bomb}: the deflated data set inflates to more than 128 MiB (the limit for one file; a deflate bomb?)`,
    `cxrbench: ${nested10k}: sequences nested more than 32 deep (the limit; radiographs nest at most about 6)`,
    `cxrbench: ${nested50k}: sequences nested more than 32 deep (the limit; radiographs nest at most about 6)`,
  ]);
  const entries = readFileSync(join(out, 'manifest.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { source: string; transferSyntaxUid: string });
  assert.deepEqual(entries.map((e) => [e.source, e.transferSyntaxUid]), [[good, '1.2.840.10008.1.2.1'], [deflated, '1.2.840.10008.1.2.1.99'], [nested32, '1.2.840.10008.1.2.1']]);
});

test('what dcmjs reads but a reading element by element would not see is walked as dcmjs reads it, or refused by reason, within the heap cap and time limit', async () => {
  const dir = tempDir();
  const oneMiB = element(0x0009, 0x1010, 'OB', Buffer.alloc(1024 * 1024));
  const nested = (name: string, n: number, extra: Buffer) => write(dir, name, smallDicom({ sopInstanceUid: uid(10 + n), extra }));
  const good = nested('good.dcm', 0, Buffer.alloc(0));
  // dcmjs skips a 4-byte word in a sequence that is not an item tag and parses the sequences below it: before, the
  // walk stopped there without a verdict (3,000 deep: a stack overflow after 0.7 s; 200 deep over 1 MiB: read in
  // 1.1 s and 330 MB; 30 deep over 3 MiB: 90 MiB copied)
  const stray3000 = nested('stray-3000.dcm', 1, withStrayWord(nestedSequences(3000)));
  const stray200 = nested('stray-200.dcm', 2, withStrayWord(nestedSequences(200, oneMiB)));
  const stray30 = nested('stray-30.dcm', 3, withStrayWord(nestedSequences(30, element(0x0009, 0x1010, 'OB', Buffer.alloc(3 * 1024 * 1024)))));
  const stray32 = nested('stray-32.dcm', 4, withStrayWord(nestedSequences(32)));
  // dcmjs ends an item of undefined length at an Item Delimitation Item inside a value, and reads on from there
  const hidden200 = nested('hidden-200.dcm', 5, sequenceHiddenInText(nestedSequences(200, oneMiB)));
  const hidden3 = nested('hidden-3.dcm', 6, sequenceHiddenInText(nestedSequences(3)));
  // dcmjs parses an item 2 bytes late for each Item Delimitation Item of non-zero length in it (1,000 deep: read)
  const shifted1000 = nested('shifted-1000.dcm', 11, sequenceBehindShiftedItem(nestedSequences(1000)));
  const shifted3 = nested('shifted-3.dcm', 12, sequenceBehindShiftedItem(nestedSequences(3)));
  // dcmjs copies the whole file once per frame of an offset table (100,000 frames of 1.4 MB: minutes)
  const table = nested('table.dcm', 7, encapsulatedWithOffsetTable(100_000, 1024 * 1024));
  const singleFrame = nested('single-frame.dcm', 8, encapsulatedWithOffsetTable(1, 1024));
  // a million attributes in 8 MB: 5 s and 500 MB
  const attributes = nested('attributes.dcm', 9, manyAttributes(1_000_000));
  // a UN of a known sequence's tag: dcmjs copies 2 GiB, zero-filled past the file's end, and reads it as a sequence (23 s)
  const unknown = nested('un-past-end.dcm', 10, Buffer.from([0x08, 0x00, 0x40, 0x11, 0x55, 0x4e, 0, 0, 0xf0, 0xff, 0xff, 0x7f]));
  // dcmjs's transfer syntax is the value before a backslash, and the last of two: implicit VR, walked before as explicit
  const implicitNested = nestedSequences(3000, Buffer.alloc(0), 'implicit');
  const backslash = write(dir, 'syntax-backslash.dcm', withMeta([element(0x0002, 0x0010, 'UI', '1.2.840.10008.1.2\\1.2.840.10008.1.2.1')], [], implicitNested));
  const twice = write(dir, 'syntax-twice.dcm', withMeta([element(0x0002, 0x0010, 'UI', '1.2.840.10008.1.2.1'), element(0x0002, 0x0010, 'UI', '1.2.840.10008.1.2')], [], implicitNested));
  // dcmjs parses the meta group like a data set: 3,000 sequences of defined length nested in it
  const metaSequences = nestedDefinedLength(3000, Buffer.alloc(0), [0x0002, 0x0100]);
  const meta = write(dir, 'meta-sequences.dcm', withMeta([element(0x0002, 0x0010, 'UI', '1.2.840.10008.1.2.1')], [metaSequences], nestedSequences(1)));
  const out = join(dir, 'png');
  const files = [good, stray3000, stray200, stray30, stray32, hidden200, hidden3, shifted1000, shifted3, table, singleFrame, attributes, unknown, backslash, twice, meta];
  const run = await convert([...files, '--out', out, '--layout', 'flat']);
  assert.equal(run.code, 1, run.stderr);
  assert.equal(run.stdout, `converted 5, skipped 0 (already converted), failed 11; manifest: ${join(out, 'manifest.jsonl')}\n`);
  const tooDeep = 'sequences nested more than 32 deep (the limit; radiographs nest at most about 6)';
  assert.deepEqual(stderrLines(run.stderr), [
    `cxrbench: ${attributes}: more than 100,000 attributes, sequence items and fragments (the limit; a film has a few thousand at most)`,
    `cxrbench: ${backslash}: ${tooDeep}`,
    `cxrbench: ${hidden200}: ${tooDeep}`,
    `cxrbench: ${meta}: ${tooDeep}`,
    `cxrbench: ${shifted1000}: ${tooDeep}`,
    `cxrbench: ${stray200}: ${tooDeep}`,
    `cxrbench: ${stray3000}: ${tooDeep}`,
    `cxrbench: ${stray30}: sequence items hold more than 64 MiB counted at each level of nesting (the limit; a film's sequences hold kilobytes)`,
    `cxrbench: ${twice}: ${tooDeep}`,
    `cxrbench: ${table}: (0009,1010) is encapsulated with an offset table of 100000 frames: only single-frame images are converted (dcmjs would copy the file once per frame)`,
    `cxrbench: ${unknown}: (0008,1140) UN of 2147483632 bytes runs past the end of the file`,
  ].sort());
  const sources = readFileSync(join(out, 'manifest.jsonl'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { source: string }).source);
  assert.deepEqual(sources, [good, stray32, hidden3, shifted3, singleFrame]);
});

test('the dcmjs installed is the release whose parser the limits walk follows', () => {
  const main = createRequire(import.meta.url).resolve('dcmjs');
  const installed = (JSON.parse(readFileSync(join(dirname(main), '..', 'package.json'), 'utf8')) as { version: string }).version;
  assert.equal(installed, DCMJS_VERSION_FOLLOWED, 'src/images/dcmjs-walk.ts follows one dcmjs release: read the new one\'s parser and update the walk first');
});

test('the limits at their edges: depth 32 and 33, item bytes counted per level, text and number values, attributes, offset tables, pixels a header claims', () => {
  const refusal = (bytes: Buffer): string => {
    try {
      readDicom(bytes, 'f.dcm');
      return 'converted';
    } catch (error) {
      assert.ok(error instanceof DicomRejection, String(error));
      return error.reason;
    }
  };
  assert.equal(refusal(smallDicom({ extra: nestedSequences(32) })), 'converted');
  assert.equal(refusal(smallDicom({ extra: nestedSequences(33) })), 'sequences nested more than 32 deep (the limit; radiographs nest at most about 6)');
  // A private OB of 22 MiB in the innermost item of n nested defined-length sequences: dcmjs copies it n times.
  const blobIn = (levels: number) => smallDicom({ extra: nestedDefinedLength(levels, element(0x0009, 0x1010, 'OB', Buffer.alloc(22 * 1024 * 1024))) });
  assert.equal(refusal(blobIn(2)), 'converted');
  assert.equal(refusal(blobIn(3)), 'sequence items hold more than 64 MiB counted at each level of nesting (the limit; a film\'s sequences hold kilobytes)');
  // A multi-valued text (UC: 32-bit length); of backslashes, dcmjs makes one JavaScript string per byte.
  const text = (value: string) => smallDicom({ extra: element(0x0008, 0x0119, 'UC', value) });
  assert.equal(refusal(text('x'.repeat(DICOM_LIMITS.maxValueBytes - 1024))), 'converted');
  assert.equal(refusal(text('\\'.repeat(DICOM_LIMITS.maxValueBytes + 2))), 'text and number attributes hold more than 4 MiB (the limit; a film\'s largest are LUT tables of 128 KiB)');
  // the attributes of the small image and n more: 100,000 in all is the limit
  const imageAttributes = 14;
  assert.equal(refusal(smallDicom({ extra: manyAttributes(100_000 - imageAttributes) })), 'converted');
  assert.equal(refusal(smallDicom({ extra: manyAttributes(100_000 - imageAttributes + 1) })), 'more than 100,000 attributes, sequence items and fragments (the limit; a film has a few thousand at most)');
  assert.equal(refusal(smallDicom({ extra: encapsulatedWithOffsetTable(2, 16) })), '(0009,1010) is encapsulated with an offset table of 2 frames: only single-frame images are converted (dcmjs would copy the file once per frame)');
  assert.equal(refusal(rleClaiming(65535, 65535)), 'Rows × Columns 65535 × 65535 at 16 bits is larger than the 128 MiB limit for one image');
  assert.equal(refusal(Buffer.concat([smallDicom(), Buffer.alloc(DICOM_LIMITS.maxBytes)])), 'file of 128 MiB is larger than the 128 MiB limit for one image: not read');
});

test('a UID too long for a file name, and a file-system error writing one image, fail that file only: the others convert', async () => {
  const dir = tempDir();
  const longUid = write(dir, 'long-uid.dcm', smallDicom({ sopInstanceUid: `1.2.${'3'.repeat(296)}` }));
  const blocked = write(dir, 'blocked.dcm', smallDicom({ sopInstanceUid: uid(5) }));
  const good = write(dir, 'good.dcm', smallDicom({ sopInstanceUid: uid(6) }));
  const out = join(dir, 'png');
  // a folder where blocked.dcm's PNG must go: the rename onto it fails (EISDIR)
  mkdirSync(join(out, `${uid(5)}.png`, 'taken'), { recursive: true });
  const run = await convert([longUid, blocked, good, '--out', out, '--layout', 'flat']);
  assert.equal(run.code, 1, run.stderr);
  assert.equal(run.stdout, `converted 1, skipped 0 (already converted), failed 2; manifest: ${join(out, 'manifest.jsonl')}\n`);
  assert.deepEqual(stderrLines(run.stderr), [
    `cxrbench: ${blocked}: its PNG ${uid(5)}.png could not be written (EISDIR: illegal operation on a directory): not converted`,
    `cxrbench: ${longUid}: SOP Instance UID of 300 characters is too long to name an output file or folder (a UID has at most 64): not converted`,
  ]);
  assert.deepEqual(readdirSync(out).sort(), [`${uid(5)}.png`, `${uid(6)}.png`, 'manifest.jsonl']);
  assert.deepEqual(readdirSync(join(out, `${uid(5)}.png`)), ['taken']);
  const sources = readFileSync(join(out, 'manifest.jsonl'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { source: string }).source);
  assert.deepEqual(sources, [good]);

  // In the ReXGradient layout a long Patient ID would be a folder name: refused, naming --deid, which hashes it.
  const longPatient = write(dir, 'long-patient.dcm', smallDicom({ sopInstanceUid: uid(7), patientId: 'P'.repeat(80) }));
  const nested = await convert([longPatient, '--out', join(dir, 'nested')]);
  assert.equal(nested.stderr, `cxrbench: ${longPatient}: Patient ID of 80 characters is too long to name an output file or folder (a DICOM LO value has at most 64; --deid writes a hash of it instead): not converted\n`);
});

test('a FIFO, a character device and a socket on the command line are refused by reason without being read; the good file converts', async () => {
  const dir = tempDir();
  const fifo = join(dir, 'pipe.dcm');
  execFileSync('mkfifo', [fifo]);
  const socketPath = join(dir, 'socket.dcm');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  try {
    const good = write(dir, 'good.dcm', smallDicom());
    const out = join(dir, 'png');
    const run = await convert([fifo, '/dev/zero', socketPath, good, '--out', out, '--layout', 'flat'], 30_000);
    assert.equal(run.code, 1, run.stderr);
    assert.equal(run.stdout, `converted 1, skipped 0 (already converted), failed 3; manifest: ${join(out, 'manifest.jsonl')}\n`);
    assert.deepEqual(stderrLines(run.stderr), [
      'cxrbench: /dev/zero: a character device, not a DICOM file: not read',
      `cxrbench: ${fifo}: a FIFO (named pipe), not a DICOM file: not read`,
      `cxrbench: ${socketPath}: a socket, not a DICOM file: not read`,
    ]);
  } finally {
    server.close();
  }
});
