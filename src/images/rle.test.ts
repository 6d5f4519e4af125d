import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DicomRejection } from './dicom-image.js';
import { decodeRle } from './rle.js';

/** An RLE frame (PS3.5 G.3): a 64-byte header of segment count and offsets, then the segments. */
function frame(segments: number[][]): Uint8Array {
  const header = new Uint8Array(64);
  const view = new DataView(header.buffer);
  view.setUint32(0, segments.length, true);
  let offset = 64;
  segments.forEach((s, i) => {
    view.setUint32(4 + 4 * i, offset, true);
    offset += s.length;
  });
  return new Uint8Array([...header, ...segments.flat()]);
}

test('RLE 8-bit: a literal run and a replicate run (PackBits)', () => {
  // 2 literal bytes (header 1), then 3 × 7 (header −2 = 0xfe), then the no-op −128
  assert.deepEqual([...decodeRle(frame([[1, 10, 20, 0xfe, 7, 0x80]]), 1, 5, 8, 'f')], [10, 20, 7, 7, 7]);
});

test('RLE 16-bit: the first segment holds the high bytes, output is little-endian words', () => {
  const out = decodeRle(frame([[0xfd, 0x01], [2, 0x02, 0x03, 0x04]]), 1, 3, 16, 'f');
  assert.deepEqual([...new Uint16Array(out.buffer)], [0x0102, 0x0103, 0x0104]);
});

test('RLE: a short segment or a wrong segment count is refused, naming the file', () => {
  assert.throws(() => decodeRle(frame([[0xfe, 7]]), 2, 2, 8, 'a.dcm'), (e: unknown) => e instanceof DicomRejection && /a\.dcm: RLE segment 1 decodes to 3 of 4 pixels/.test(e.message));
  assert.throws(() => decodeRle(frame([[0xfe, 7]]), 1, 3, 16, 'b.dcm'), /1 segment\(s\) where 2 are expected/);
  assert.throws(() => decodeRle(new Uint8Array(10), 1, 3, 8, 'c.dcm'), /shorter than its 64-byte header/);
});
