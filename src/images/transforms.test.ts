import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chooseVoi, isInverted, modalityLut, modalityRange, parseWindow, rangeMap, renderGrey, renderStoredThroughLut, storedExtent, voiLinear, voiLinearExact, voiSigmoid, type AppliedVoi } from './transforms.js';
import { lookUp } from './lut-table.js';

// Values worked by hand from PS3.3 C.11.2.1.2.1 / C.11.2.1.3: with c = 100, w = 80 LINEAR maps exactly the 80
// integers 60…139 onto the ramp (c − 0.5 ± (w − 1)/2 = 60 … 139), LINEAR_EXACT the interval (60, 140].
const voiCases: { name: string; f: typeof voiLinear; x: number; c: number; w: number; y: number }[] = [
  { name: 'LINEAR at the lower bound is black', f: voiLinear, x: 60, c: 100, w: 80, y: 0 },
  { name: 'LINEAR just above the lower bound', f: voiLinear, x: 61, c: 100, w: 80, y: ((61 - 99.5) / 79 + 0.5) * 255 },
  { name: 'LINEAR at c − 0.5 is mid-grey', f: voiLinear, x: 99.5, c: 100, w: 80, y: 127.5 },
  { name: 'LINEAR at the upper bound is white', f: voiLinear, x: 139, c: 100, w: 80, y: 255 },
  { name: 'LINEAR above the window is white', f: voiLinear, x: 1000, c: 100, w: 80, y: 255 },
  { name: 'LINEAR below the window is black', f: voiLinear, x: -1000, c: 100, w: 80, y: 0 },
  { name: 'LINEAR width 1 is a threshold at c − 0.5 (below)', f: voiLinear, x: 99.5, c: 100, w: 1, y: 0 },
  { name: 'LINEAR width 1 is a threshold at c − 0.5 (above)', f: voiLinear, x: 99.6, c: 100, w: 1, y: 255 },
  { name: 'LINEAR_EXACT at c − w/2 is black', f: voiLinearExact, x: 60, c: 100, w: 80, y: 0 },
  { name: 'LINEAR_EXACT at c is mid-grey', f: voiLinearExact, x: 100, c: 100, w: 80, y: 127.5 },
  { name: 'LINEAR_EXACT at c + w/2 is white', f: voiLinearExact, x: 140, c: 100, w: 80, y: 255 },
  { name: 'LINEAR_EXACT a quarter in', f: voiLinearExact, x: 80, c: 100, w: 80, y: 63.75 },
  { name: 'SIGMOID at c is mid-grey', f: voiSigmoid, x: 100, c: 100, w: 80, y: 127.5 },
  { name: 'SIGMOID at c + w/2', f: voiSigmoid, x: 140, c: 100, w: 80, y: 255 / (1 + Math.exp(-2)) },
  { name: 'SIGMOID at c − w/2', f: voiSigmoid, x: 60, c: 100, w: 80, y: 255 / (1 + Math.exp(2)) },
];
for (const c of voiCases) {
  test(`VOI: ${c.name}`, () => {
    assert.ok(Math.abs(c.f(c.x, c.c, c.w, 255) - c.y) < 1e-9, `${c.f(c.x, c.c, c.w, 255)} ≠ ${c.y}`);
  });
}

test('modality LUT: slope and intercept, stored → modality values', () => {
  assert.deepEqual([...modalityLut([0, 1, 2, 4095], 2, -100)], [-100, -98, -96, 8090]);
  assert.deepEqual([...modalityLut(new Int32Array([-2048, 0, 2047]), 1, -1024)], [-3072, -1024, 1023]);
});

test('modality range: what the stored bits can hold, through the LUT (a negative slope swaps the ends)', () => {
  const base = { rescaleSlope: 1, rescaleIntercept: 0 };
  assert.deepEqual(modalityRange({ ...base, bitsStored: 8, pixelRepresentation: 0 }), { low: 0, high: 255 });
  assert.deepEqual(modalityRange({ ...base, bitsStored: 12, pixelRepresentation: 1 }), { low: -2048, high: 2047 });
  assert.deepEqual(modalityRange({ bitsStored: 12, pixelRepresentation: 0, rescaleSlope: 1, rescaleIntercept: -1024 }), { low: -1024, high: 3071 });
  assert.deepEqual(modalityRange({ bitsStored: 8, pixelRepresentation: 0, rescaleSlope: -1, rescaleIntercept: 0 }), { low: -255, high: 0 });
});

test('window choice: auto takes the first window of the file, else min/max; none is the full range; given is given', () => {
  const range = { low: 0, high: 4095 };
  const windows = [{ center: 500, width: 1000 }, { center: 40, width: 400 }];
  assert.deepEqual(chooseVoi({ kind: 'auto' }, windows, 'SIGMOID', [1, 2], range), { kind: 'window', source: 'file', center: 500, width: 1000, function: 'SIGMOID' });
  assert.deepEqual(chooseVoi({ kind: 'auto' }, [], 'LINEAR', [10, 250, 30], range), { kind: 'window', source: 'min-max', center: 130.5, width: 241, function: 'LINEAR' });
  assert.deepEqual(chooseVoi({ kind: 'none' }, windows, 'LINEAR', [1], range), { kind: 'range', low: 0, high: 4095 });
  assert.deepEqual(chooseVoi({ kind: 'given', center: 40, width: 400 }, windows, 'LINEAR_EXACT', [1], range), { kind: 'window', source: 'given', center: 40, width: 400, function: 'LINEAR_EXACT' });
});

test('min/max window under LINEAR puts the minimum at black and the maximum at white', () => {
  const values = [10, 11, 130, 250];
  const voi = chooseVoi({ kind: 'auto' }, [], 'LINEAR', values, { low: 0, high: 255 });
  assert.deepEqual([...renderGrey(values, voi, false, 8)], [0, 1, 128, 255]);
});

test('render: 8 and 16 bits, rounding, clamping, and inversion for MONOCHROME1', () => {
  const voi = { kind: 'window', source: 'given', center: 100, width: 80, function: 'LINEAR' } as const;
  assert.deepEqual([...renderGrey([0, 60, 99.5, 139, 500], voi, false, 8)], [0, 0, 128, 255, 255]);
  assert.deepEqual([...renderGrey([0, 60, 99.5, 139, 500], voi, true, 8)], [255, 255, 127, 0, 0]);
  assert.deepEqual([...renderGrey([0, 99.5, 500], voi, false, 16)], [0, 32768, 65535]);
  assert.deepEqual([...renderGrey([-1024, 0, 1023], { kind: 'range', low: -1024, high: 1023 }, false, 8)], [0, 128, 255]);
});

test('range map: the ends of the range go to black and white', () => {
  assert.equal(rangeMap(0, 0, 255, 65535), 0);
  assert.equal(rangeMap(255, 0, 255, 65535), 65535);
  assert.equal(rangeMap(300, 0, 255, 255), 255);
  assert.equal(rangeMap(5, 5, 5, 255), 0);
});

test('inversion: MONOCHROME1 or Presentation LUT Shape INVERSE, once', () => {
  assert.equal(isInverted({ photometric: 'MONOCHROME2', presentationLutShape: null }), false);
  assert.equal(isInverted({ photometric: 'MONOCHROME1', presentationLutShape: null }), true);
  assert.equal(isInverted({ photometric: 'MONOCHROME1', presentationLutShape: 'INVERSE' }), true);
  assert.equal(isInverted({ photometric: 'MONOCHROME2', presentationLutShape: 'INVERSE' }), true);
});

const windowCases: [string, ReturnType<typeof parseWindow>][] = [
  ['auto', { kind: 'auto' }],
  ['none', { kind: 'none' }],
  ['40/400', { kind: 'given', center: 40, width: 400 }],
  ['-600/1500.5', { kind: 'given', center: -600, width: 1500.5 }],
  ['40/0', null],
  ['40', null],
  ['a/b', null],
  ['lut', { kind: 'lut', index: 1 }],
  ['lut:3', { kind: 'lut', index: 3 }],
  ['lut:0', null],
  ['lut:', null],
  ['lut:x', null],
];
for (const [text, expected] of windowCases) test(`--window ${text}`, () => assert.deepEqual(parseWindow(text), expected));

test('the lookup-table path gives exactly what the per-pixel chain gives (windows, functions, polarity, bits, slopes)', () => {
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  for (const [slope, intercept] of [[1, 0], [2, -1024], [-1, 4095], [0.5, 3.25]] as const) {
    const stored = Int32Array.from({ length: 5000 }, () => Math.floor(random() * 4096) - (slope < 0 ? 0 : 100));
    const extent = storedExtent(stored);
    const voiChoices: AppliedVoi[] = [
      { kind: 'window', source: 'given', center: 900, width: 1200, function: 'LINEAR' },
      { kind: 'window', source: 'given', center: 900, width: 1200, function: 'LINEAR_EXACT' },
      { kind: 'window', source: 'given', center: 1500, width: 800, function: 'SIGMOID' },
      { kind: 'range', low: -2000, high: 6000 },
    ];
    for (const voi of voiChoices) for (const invert of [false, true]) for (const bits of [8, 16] as const) {
      const expected = renderGrey(modalityLut(stored, slope, intercept), voi, invert, bits);
      assert.deepEqual(renderStoredThroughLut(stored, extent, { kind: 'rescale', slope, intercept }, voi, invert, bits), expected);
    }
  }
});

test('LUT tables: entries by index from the first mapped value, clamped at both ends, inputs truncated toward −∞', () => {
  const table = { firstMapped: -2, bits: 8, data: Uint16Array.from([10, 20, 30, 40]), explanation: null };
  assert.deepEqual([-5, -2, -1, 0, 1, 1.9, 2, 99].map((x) => lookUp(table, x)), [10, 10, 20, 30, 40, 40, 40, 40]);
  assert.equal(lookUp(table, -1.5), 10);
  // through renderGrey a VOI LUT's 0…255 output fills the 8-bit range; 16-bit output is scaled by 65535/255
  const voi: AppliedVoi = { kind: 'lut', index: 1, firstMapped: -2, entries: 4, bits: 8, explanation: null };
  assert.deepEqual([...renderGrey([-2, 1], voi, false, 8, { ...table, data: Uint16Array.from([0, 51, 102, 255]) })], [0, 255]);
  assert.deepEqual([...renderGrey([-1], voi, false, 16, { ...table, data: Uint16Array.from([0, 51, 102, 255]) })], [13107]);
  assert.throws(() => renderGrey([0], voi, false, 8), /VOI LUT 1 applied without its table/);
});
