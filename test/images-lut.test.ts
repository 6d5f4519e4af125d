/**
 * Modality LUT Sequence and VOI LUT Sequence (PS3.3 C.11.1, C.11.2): files built with dcmtk's dump2dcm from the
 * NIH sample's pixels, each with a non-linear table, convert within ±1 grey level of dcm2pnm (which applies a
 * Modality LUT always and the n-th VOI LUT with `+Wl n`); unusable tables are refused with the sequence, item and
 * reason named.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { runCli } from './helpers/cli.js';
import { dcmtk } from './helpers/dcmtk.js';
import { tempDir } from './helpers/records.js';

const SAMPLE = fileURLToPath(new URL('../examples/nih-dicom-sample/1.3.6.1.4.1.11129.5.5.110503645592756492463169821050252582267888.dcm', import.meta.url));
const SIDE = 1024;

const work = tempDir();
const file = (name: string) => join(work, `${name}.dcm`);
let tools: ReturnType<typeof dcmtk>;

/** Little-endian 16-bit words of a table or pixel list, written to a file dump2dcm reads as OW. */
function words(name: string, values: ArrayLike<number>): string {
  const bytes = Buffer.alloc(values.length * 2);
  for (let i = 0; i < values.length; i++) bytes.writeUInt16LE(values[i]! & 0xffff, i * 2);
  const path = join(work, `${name}.raw`);
  writeFileSync(path, bytes);
  return path;
}

interface LutSpec {
  entries: number;
  firstMapped: number;
  bits: number;
  data: ArrayLike<number>;
  explanation?: string;
  /** 8-bit entries packed two to a word (PS3.3 C.11.1.1.1) instead of one per word. */
  packed?: boolean;
}

/** A dcmdump-format sequence of LUT items that dump2dcm turns into DICOM. */
function lutSequence(tag: string, name: string, luts: LutSpec[]): string[] {
  const lines = [`${tag} SQ (Sequence with explicit length #=${luts.length})`];
  luts.forEach((lut, i) => {
    lines.push('(fffe,e000) na (Item with explicit length #=3)');
    lines.push(`(0028,3002) ${lut.firstMapped < 0 ? 'SS' : 'US'} ${lut.entries === 65536 ? 0 : lut.entries}\\${lut.firstMapped}\\${lut.bits}`);
    if (lut.explanation) lines.push(`(0028,3003) LO [${lut.explanation}]`);
    const data = lut.packed ? Array.from({ length: Math.ceil(lut.data.length / 2) }, (_, k) => (lut.data[2 * k]! & 0xff) | ((lut.data[2 * k + 1] ?? 0) << 8)) : lut.data;
    lines.push(`(0028,3006) OW =${words(`${name}-lut${i}`, data)}`);
    lines.push('(fffe,e00d) na (ItemDelimitationItem for re-encoding)');
  });
  lines.push('(fffe,e0dd) na (SequenceDelimitationItem for re-encod.)');
  return lines;
}

/** A 12-of-16-bit image from the sample's pixels (stored = sample × 16 + a small ramp), with the extra elements given. */
function build(name: string, opts: { signed?: boolean; photometric?: string; extra: string[] }): string {
  const sample = readFileSync(SAMPLE).subarray(-SIDE * SIDE);
  const pixels = new Uint16Array(SIDE * SIDE);
  for (let i = 0; i < pixels.length; i++) {
    const v = sample[i]! * 16 + (i % 16);
    pixels[i] = opts.signed ? (v - 2048) & 0x0fff : v;
  }
  const dump = [
    '(0002,0010) UI =LittleEndianExplicit', '(0008,0016) UI =DigitalXRayImageStorageForPresentation', `(0008,0018) UI [1.2.826.0.1.3680043.10.2.${name.length}.${name.charCodeAt(0)}]`,
    '(0020,000d) UI [1.2.826.0.1.3680043.10.2]', '(0020,000e) UI [1.2.826.0.1.3680043.10.2.1]', '(0010,0020) LO [P/2]', '(0018,5101) CS [PA]',
    '(0028,0002) US 1', `(0028,0004) CS [${opts.photometric ?? 'MONOCHROME2'}]`, `(0028,0010) US ${SIDE}`, `(0028,0011) US ${SIDE}`, '(0028,0100) US 16', '(0028,0101) US 12',
    '(0028,0102) US 11', `(0028,0103) US ${opts.signed ? 1 : 0}`, ...opts.extra,
    `(7fe0,0010) OW =${words(`${name}-pixels`, pixels)}`,
  ];
  // dump2dcm wants elements in tag order; the sequences' own lines stay together.
  writeFileSync(join(work, `${name}.txt`), dump.join('\n'));
  tools.run('dump2dcm', ['+E', join(work, `${name}.txt`), file(name)]);
  return file(name);
}

const ramp = (entries: number, top: number, f: (t: number) => number) => Array.from({ length: entries }, (_, i) => Math.round(top * f(i / (entries - 1))));

before(() => {
  tools = dcmtk();
  // A gamma VOI LUT over the whole 12-bit range, beside a window (so `auto` takes the window and `lut` the table).
  build('voi-gamma', { extra: ['(0028,1050) DS [2048]', '(0028,1051) DS [4096]', ...lutSequence('(0028,3010)', 'voi-gamma', [{ entries: 4096, firstMapped: 0, bits: 12, data: ramp(4096, 4095, Math.sqrt), explanation: 'GAMMA 0.5' }])] });
  // Two VOI LUTs only (no window: `auto` takes the first): a 16-bit S-curve over part of the range, so values
  // below 1000 and above 3047 take the end entries; and a 10-bit inverse ramp.
  build('voi-two', {
    extra: lutSequence('(0028,3010)', 'voi-two', [
      { entries: 2048, firstMapped: 1000, bits: 16, data: ramp(2048, 65535, (t) => t * t * (3 - 2 * t)) },
      { entries: 4096, firstMapped: 0, bits: 10, data: ramp(4096, 1023, (t) => 1 - t) },
    ]),
  });
  // A logarithmic Modality LUT (16-bit output) with a window in its output units, MONOCHROME1.
  build('modality-log', {
    photometric: 'MONOCHROME1',
    extra: ['(0028,1050) DS [40000]', '(0028,1051) DS [30000]', ...lutSequence('(0028,3000)', 'modality-log', [{ entries: 4096, firstMapped: 0, bits: 16, data: ramp(4096, 65535, (t) => Math.log1p(1000 * t) / Math.log1p(1000)) }])],
  });
  // Signed stored values with a Modality LUT whose first mapped value is negative (an SS descriptor).
  build('modality-signed', { signed: true, extra: lutSequence('(0028,3000)', 'modality-signed', [{ entries: 4096, firstMapped: -2048, bits: 12, data: ramp(4096, 4095, (t) => 1 - t * t) }]) });
  // An 8-bit VOI LUT packed two entries to a word, and a 65,536-entry one (descriptor count 0), in one file.
  build('voi-packed', {
    extra: lutSequence('(0028,3010)', 'voi-packed', [
      { entries: 4096, firstMapped: 0, bits: 8, data: ramp(4096, 255, (t) => Math.sqrt(t)), packed: true },
      { entries: 65536, firstMapped: 0, bits: 16, data: ramp(65536, 65535, (t) => Math.min(1, 16 * t) ** 2) },
    ]),
  });
  // The same tables in implicit VR (the descriptor's signedness is then not in the file) and in big endian.
  tools.run('dcmconv', ['+ti', file('modality-signed'), file('modality-signed-implicit')]);
  tools.run('dcmconv', ['+tb', file('voi-two'), file('voi-two-be')]);
  // A VOI LUT whose data is shorter than its descriptor says.
  build('voi-short', { extra: lutSequence('(0028,3010)', 'voi-short', [{ entries: 4096, firstMapped: 0, bits: 12, data: ramp(100, 4095, (t) => t) }]) });
});

/** The grey samples of a PNG (8- or 16-bit), one per pixel. */
async function greyOf(png: string, bits: 8 | 16): Promise<Uint8Array | Uint16Array> {
  const image = sharp(png).extractChannel(0);
  if (bits === 8) return new Uint8Array(await image.raw().toBuffer());
  const raw = await image.toColourspace('grey16').raw({ depth: 'ushort' }).toBuffer();
  return new Uint16Array(raw.buffer, raw.byteOffset, raw.length / 2);
}

interface ManifestLine {
  output: string;
  transform: { voi: Record<string, unknown>; modality: Record<string, unknown>; inverted: boolean };
}

// dcm2pnm writes a 12-bit VOI LUT's entry v at 16 bits as v × 16 (white 65520), as it does for any n-level input
// without a window; the standard's output range is the whole 0…65535, which cxrbench fills (v × 65535/4095). The
// 16-bit comparison of a 12-bit table therefore maps dcm2pnm's value through that one known factor first.
const FROM_DCMTK_12_IN_16 = (x: number) => (x / 16) * (65535 / 4095);

const comparisons: { name: string; window: string; bits: 8 | 16; dcmtk: string[]; voi: Record<string, unknown>; modalityLut?: Record<string, unknown>; fromDcmtk?: (x: number) => number }[] = [
  { name: 'voi-gamma', window: 'lut', bits: 8, dcmtk: ['+Wl', '1'], voi: { kind: 'lut', index: 1, firstMapped: 0, entries: 4096, bits: 12, explanation: 'GAMMA 0.5' } },
  { name: 'voi-gamma', window: 'lut:1', bits: 16, dcmtk: ['+Wl', '1'], voi: { kind: 'lut', index: 1 }, fromDcmtk: FROM_DCMTK_12_IN_16 },
  { name: 'voi-gamma', window: 'auto', bits: 8, dcmtk: ['+Wi', '1'], voi: { kind: 'window', source: 'file', center: 2048, width: 4096 } },
  { name: 'voi-two', window: 'auto', bits: 8, dcmtk: ['+Wl', '1'], voi: { kind: 'lut', index: 1, firstMapped: 1000, entries: 2048, bits: 16 } },
  { name: 'voi-two', window: 'auto', bits: 16, dcmtk: ['+Wl', '1'], voi: { kind: 'lut', index: 1 } },
  { name: 'voi-two', window: 'lut:2', bits: 8, dcmtk: ['+Wl', '2'], voi: { kind: 'lut', index: 2, bits: 10 } },
  { name: 'voi-packed', window: 'lut:1', bits: 8, dcmtk: ['+Wl', '1'], voi: { kind: 'lut', index: 1, entries: 4096, bits: 8 } },
  { name: 'voi-packed', window: 'lut:2', bits: 16, dcmtk: ['+Wl', '2'], voi: { kind: 'lut', index: 2, entries: 65536, bits: 16 } },
  { name: 'modality-log', window: 'auto', bits: 8, dcmtk: ['+Wi', '1'], voi: { kind: 'window', source: 'file' }, modalityLut: { firstMapped: 0, entries: 4096, bits: 16 } },
  { name: 'modality-log', window: 'auto', bits: 16, dcmtk: ['+Wi', '1'], voi: { kind: 'window', source: 'file' } },
  { name: 'modality-log', window: '30000/20000', bits: 8, dcmtk: ['+Ww', '30000', '20000'], voi: { kind: 'window', source: 'given' } },
  { name: 'modality-log', window: 'none', bits: 8, dcmtk: [], voi: { kind: 'range', low: 0, high: 65535 } },
  { name: 'modality-signed', window: 'auto', bits: 8, dcmtk: ['+Wm'], voi: { kind: 'window', source: 'min-max' }, modalityLut: { firstMapped: -2048, bits: 12 } },
  { name: 'modality-signed', window: 'none', bits: 8, dcmtk: [], voi: { kind: 'range', low: 0, high: 4095 } },
  { name: 'modality-signed-implicit', window: 'auto', bits: 8, dcmtk: ['+Wm'], voi: { kind: 'window', source: 'min-max' }, modalityLut: { firstMapped: -2048, bits: 12 } },
  { name: 'voi-two-be', window: 'lut:2', bits: 8, dcmtk: ['+Wl', '2'], voi: { kind: 'lut', index: 2, bits: 10 } },
  { name: 'voi-two-be', window: 'auto', bits: 16, dcmtk: ['+Wl', '1'], voi: { kind: 'lut', index: 1, firstMapped: 1000 } },
];

for (const c of comparisons) {
  test(`LUT sequences match dcm2pnm ±1: ${c.name}, --window ${c.window}, ${c.bits}-bit`, async () => {
    const out = join(tempDir(), 'png');
    const run = await runCli(['images', 'convert', file(c.name), '--out', out, '--layout', 'flat', '--bits', String(c.bits), '--window', c.window]);
    assert.equal(run.code, 0, run.stderr);
    const [entry] = readFileSync(join(out, 'manifest.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as ManifestLine);
    assert.ok(entry);
    for (const [k, v] of Object.entries(c.voi)) assert.deepEqual(entry.transform.voi[k], v, `voi.${k} in ${JSON.stringify(entry.transform.voi)}`);
    if (c.modalityLut) for (const [k, v] of Object.entries(c.modalityLut)) assert.deepEqual((entry.transform.modality.lut as Record<string, unknown>)[k], v);
    const reference = join(out, 'dcm2pnm.png');
    tools.run('dcm2pnm', [...c.dcmtk, c.bits === 16 ? '+on2' : '+on', file(c.name), reference]);
    const ours = await greyOf(join(out, entry.output), c.bits);
    const theirs = await greyOf(reference, c.bits);
    assert.equal(ours.length, theirs.length);
    let worst = 0;
    const expected = c.fromDcmtk ?? ((x: number) => x);
    for (let i = 0; i < ours.length; i++) worst = Math.max(worst, Math.abs(ours[i]! - expected(theirs[i]!)));
    assert.ok(worst <= 1, `max |cxrbench − dcm2pnm| = ${worst} grey levels (transform ${JSON.stringify(entry.transform)})`);
    assert.ok(new Set(ours).size > 16, 'the rendered image has fewer than 16 grey levels');
  });
}

test('unusable LUTs and LUT choices are refused, each named with its reason; the other file still converts', async () => {
  const out = join(tempDir(), 'png');
  const run = await runCli(['images', 'convert', file('voi-short'), file('voi-gamma'), '--out', out, '--layout', 'flat', '--window', 'lut:2']);
  assert.equal(run.code, 1);
  assert.match(run.stderr, /voi-short\.dcm: VOI LUT Sequence \(0028,3010\) item 1: LUT Data \(0028,3006\) holds 200 bytes where the descriptor says 4096 entries of 12 bits/);
  assert.match(run.stderr, /voi-gamma\.dcm: --window lut:2: the file has 1 VOI LUT\(s\)/);
  const again = await runCli(['images', 'convert', file('modality-log'), file('voi-gamma'), '--out', join(tempDir(), 'png'), '--layout', 'flat', '--window', 'lut']);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /modality-log\.dcm: --window lut:1: the file has no VOI LUT Sequence/);
  assert.match(again.stdout, /converted 1, skipped 0 \(already converted\), failed 1/);
});
