/** Damaged DICOM headers: every file either converts or is refused with a DicomRejection (a reason), never a crash. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DicomRejection } from '../src/images/dicom-image.js';
import { readDicom } from '../src/images/read-dicom.js';
import { renderPng } from '../src/images/render-png.js';

const SAMPLE = fileURLToPath(new URL('../examples/nih-dicom-sample/1.3.6.1.4.1.11129.5.5.110503645592756492463169821050252582267888.dcm', import.meta.url));

test('200 copies of the NIH sample with 1–6 random header bytes changed: each converts or is refused with a reason', async () => {
  const base = readFileSync(SAMPLE);
  let seed = 11; // a fixed linear congruential sequence: the same 200 files every run
  const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const outcomes = { converted: 0, refused: 0 };
  for (let k = 0; k < 200; k++) {
    const bytes = Buffer.from(base);
    const changes = 1 + Math.floor(random() * 6);
    for (let j = 0; j < changes; j++) bytes[132 + Math.floor(random() * 700)] = Math.floor(random() * 256);
    try {
      await renderPng(readDicom(bytes, `copy ${k}`), { scale: 0.25, bits: 8, window: { kind: 'auto' } }, `copy ${k}`);
      outcomes.converted++;
    } catch (error) {
      assert.ok(error instanceof DicomRejection, `copy ${k} (${changes} bytes changed) threw ${error instanceof Error ? error.stack : String(error)}`);
      assert.match(error.message, new RegExp(`^copy ${k}: .+`));
      outcomes.refused++;
    }
  }
  // both outcomes happen: the damage reaches the attributes that matter
  assert.ok(outcomes.converted > 20 && outcomes.refused > 20, JSON.stringify(outcomes));
});
