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
