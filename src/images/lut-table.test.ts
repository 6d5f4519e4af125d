import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DcmjsElement } from 'dcmjs';
import { readLutItem, type LutTable } from './lut-table.js';

const words = (values: number[]) => new Uint8Array(Uint16Array.from(values).buffer);
const item = (descriptor: DcmjsElement, data: DcmjsElement) => ({ '00283002': descriptor, '00283006': data });

test('LUT Descriptor: the number of entries is unsigned even when the descriptor is SS (40000 entries read back as −25536)', () => {
  const data = Array.from({ length: 40000 }, (_, i) => i);
  const table = readLutItem(item({ vr: 'SS', Value: [40000 - 65536, -2048, 16] }, { vr: 'OW', Value: [words(data)] }), true, false) as LutTable;
  assert.equal(typeof table, 'object', String(table));
  assert.equal(table.data.length, 40000);
  assert.equal(table.firstMapped, -2048);
  assert.equal(table.data[39999], 39999);
});

test('LUT Data as US words with 8-bit entries packed two to a word (the first entry in the low byte), as dcmtk reads them', () => {
  const table = readLutItem(item({ vr: 'US', Value: [3, 0, 8] }, { vr: 'US', Value: [0x2010, 0x0030] }), false, false) as LutTable;
  assert.equal(typeof table, 'object', String(table));
  assert.deepEqual([...table.data], [0x10, 0x20, 0x30]);
  // one value per entry is still read as it is
  const unpacked = readLutItem(item({ vr: 'US', Value: [3, 0, 8] }, { vr: 'US', Value: [1, 2, 3] }), false, false) as LutTable;
  assert.deepEqual([...unpacked.data], [1, 2, 3]);
  // any other count is refused
  assert.match(String(readLutItem(item({ vr: 'US', Value: [8, 0, 8] }, { vr: 'US', Value: [1, 2, 3] }), false, false)), /LUT Data \(0028,3006\) has 3 entries where the descriptor says 8/);
});

test('an entry the descriptor\'s bits cannot hold refuses the table, naming the entry and the bits', () => {
  assert.match(String(readLutItem(item({ vr: 'US', Value: [3, 0, 8] }, { vr: 'OW', Value: [words([0, 200, 4095])] }), false, false)), /LUT Data \(0028,3006\) holds the entry 4095, more than 8 bits per entry .* can hold \(255\)/);
  assert.equal(typeof readLutItem(item({ vr: 'US', Value: [3, 0, 12] }, { vr: 'OW', Value: [words([0, 200, 4095])] }), false, false), 'object');
});

test('LUT Descriptor: 0 entries means 65536; 8-bit entries packed in OW bytes, in order (little endian) or swapped in pairs (big endian)', () => {
  const full = readLutItem(item({ vr: 'US', Value: [0, 0, 16] }, { vr: 'OW', Value: [words(Array.from({ length: 65536 }, (_, i) => i))] }), false, false) as LutTable;
  assert.equal(full.data.length, 65536);
  assert.equal(full.data[65535], 65535);
  const bytes = Uint8Array.from([1, 2, 3, 4]);
  assert.deepEqual([...(readLutItem(item({ vr: 'US', Value: [4, 0, 8] }, { vr: 'OW', Value: [bytes] }), false, false) as LutTable).data], [1, 2, 3, 4]);
  assert.deepEqual([...(readLutItem(item({ vr: 'US', Value: [4, 0, 8] }, { vr: 'OW', Value: [bytes] }), false, true) as LutTable).data], [2, 1, 4, 3]);
});
