/**
 * Compressed transfer syntaxes in `cxrbench images convert`: JPEG (baseline, extended, lossless), JPEG-LS
 * and JPEG 2000 / HTJ2K files made with the reference tools from the NIH sample and from 12/16-bit images built
 * here. JPEG and JPEG-LS output is compared with dcmtk's dcmj2pnm / dcml2pnm (±1 grey level); JPEG 2000 and HTJ2K, which
 * dcmtk cannot decode, are encoded with OpenJPEG's / OpenJPH's own tools and compared with the uncompressed source
 * (lossless: identical) and with opj_decompress (lossy). Damaged codestreams of every codec are refused by reason
 * while the other files of the run convert.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import dcmjs from 'dcmjs';
import sharp from 'sharp';
import { readDicom } from '../src/images/read-dicom.js';
import { runCli } from './helpers/cli.js';
import { dcmtk, openjpegTools, openjphTools } from './helpers/dcmtk.js';
import { tempDir } from './helpers/records.js';

const SAMPLE = fileURLToPath(new URL('../examples/nih-dicom-sample/1.3.6.1.4.1.11129.5.5.110503645592756492463169821050252582267888.dcm', import.meta.url));
const SIZE = 1024;

const work = tempDir();
const at = (name: string) => join(work, name);
const file = (name: string) => (name === 'sample' ? SAMPLE : at(`${name}.dcm`));

interface Entry {
  output: string;
  transferSyntaxUid: string;
  transform: { inverted: boolean };
}
const manifest = (out: string): Entry[] => readFileSync(join(out, 'manifest.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Entry);

async function greyOf(png: string, bits: 8 | 16): Promise<Uint8Array | Uint16Array> {
  const image = sharp(png).extractChannel(0);
  if (bits === 8) return new Uint8Array(await image.raw().toBuffer());
  const raw = await image.toColourspace('grey16').raw({ depth: 'ushort' }).toBuffer();
  return new Uint16Array(raw.buffer, raw.byteOffset, raw.length / 2);
}

/** Converts one file at full resolution; returns its manifest entry and grey samples. */
async function convert(name: string, window: string, bits: 8 | 16): Promise<{ entry: Entry; grey: Uint8Array | Uint16Array; out: string }> {
  const out = join(tempDir(), 'png');
  const run = await runCli(['images', 'convert', file(name), '--out', out, '--layout', 'flat', '--bits', String(bits), '--window', window]);
  assert.equal(run.code, 0, run.stderr);
  const [entry] = manifest(out);
  assert.ok(entry);
  return { entry, grey: await greyOf(join(out, entry.output), bits), out };
}

function worstDifference(a: ArrayLike<number>, b: ArrayLike<number>): { worst: number; mean: number } {
  assert.equal(a.length, b.length);
  let worst = 0;
  let sum = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i]! - b[i]!);
    sum += d;
    if (d > worst) worst = d;
  }
  return { worst, mean: sum / a.length };
}

/** The sample's 8-bit stored values (its pixel data is the last SIZE² bytes of the file). */
const sampleStored = () => readFileSync(SAMPLE).subarray(-SIZE * SIZE);

/**
 * Test images of more than 8 bits, built from the sample's pixels with dcmtk's dump2dcm (so dcmtk reads them as
 * meant): unsigned 12-bit, unsigned 16-bit, and signed 12-bit MONOCHROME1 with a rescale and a window.
 */
const WIDE: Record<string, { value: (stored: number, i: number) => number; bitsStored: number; signed: boolean; extra: string[] }> = {
  u12: { value: (s, i) => s * 16 + (i % 16), bitsStored: 12, signed: false, extra: ['(0028,0004) CS [MONOCHROME2]'] },
  u16: { value: (s, i) => s * 256 + ((i * 7) % 256), bitsStored: 16, signed: false, extra: ['(0028,0004) CS [MONOCHROME2]'] },
  s12: {
    value: (s, i) => s * 16 - 2048 + (i % 16),
    bitsStored: 12,
    signed: true,
    extra: ['(0028,0004) CS [MONOCHROME1]', '(0028,1050) DS [-100]', '(0028,1051) DS [1500]', '(0028,1052) DS [-24]', '(0028,1053) DS [2]'],
  },
};
const wideValues = (name: string): Int32Array => {
  const spec = WIDE[name]!;
  return Int32Array.from(sampleStored(), (s, i) => spec.value(s, i));
};

function buildWide(tools: ReturnType<typeof dcmtk>, name: string): void {
  const spec = WIDE[name]!;
  const values = wideValues(name);
  const words = Buffer.alloc(values.length * 2);
  values.forEach((v, i) => words.writeUInt16LE(v & 0xffff, i * 2));
  writeFileSync(at(`${name}.raw`), words);
  writeFileSync(at(`${name}.txt`), [
    '(0002,0010) UI =LittleEndianExplicit', '(0008,0016) UI =DigitalXRayImageStorageForPresentation', `(0008,0018) UI [1.2.826.0.1.3680043.10.3.${spec.bitsStored}${spec.signed ? 1 : 0}]`,
    '(0020,000d) UI [1.2.826.0.1.3680043.10.3]', '(0020,000e) UI [1.2.826.0.1.3680043.10.3.2]', '(0010,0020) LO [P3]', '(0008,0050) SH [ACC3]',
    '(0028,0002) US 1', `(0028,0010) US ${SIZE}`, `(0028,0011) US ${SIZE}`, '(0028,0100) US 16', `(0028,0101) US ${spec.bitsStored}`,
    `(0028,0102) US ${spec.bitsStored - 1}`, `(0028,0103) US ${spec.signed ? 1 : 0}`, ...spec.extra, `(7fe0,0010) OW =${at(`${name}.raw`)}`,
  ].join('\n'));
  tools.run('dump2dcm', ['+E', at(`${name}.txt`), file(name)]);
}

/** A PGM (8-bit, or 16-bit big-endian) of a source's stored values, for the JPEG 2000 encoders. */
function pgm(name: string, maxval: number): string {
  const values = name === 'sample' ? Int32Array.from(sampleStored()) : wideValues(name);
  const wide = maxval > 255;
  const body = Buffer.alloc(values.length * (wide ? 2 : 1));
  values.forEach((v, i) => (wide ? body.writeUInt16BE(v, i * 2) : body.writeUInt8(v, i)));
  const path = at(`${name}-${maxval}.pgm`);
  writeFileSync(path, Buffer.concat([Buffer.from(`P5\n${SIZE} ${SIZE}\n${maxval}\n`), body]));
  return path;
}

/** Wraps a codestream as the single-fragment encapsulated Pixel Data of a copy of `source` (dcmjs writes it). */
function encapsulate(source: string, codestream: Uint8Array, transferSyntaxUid: string, out: string): void {
  const bytes = readFileSync(source);
  const dataSet = dcmjs.data.DicomMessage.readFile(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
  dataSet.meta['00020010'] = { vr: 'UI', Value: [transferSyntaxUid] };
  const copy = new Uint8Array(codestream); // a copy in an ArrayBuffer of its own (a Buffer may be a view into a larger one)
  dataSet.dict['7FE00010'] = { vr: 'OB', Value: [copy.buffer] };
  writeFileSync(out, Buffer.from((dataSet as unknown as { write(): ArrayBuffer }).write()));
}

/** The frame of an encapsulated file: its fragments joined. */
function frameOf(name: string): Uint8Array {
  const bytes = readFileSync(file(name));
  const dataSet = dcmjs.data.DicomMessage.readFile(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
  const parts: Uint8Array[] = [];
  const add = (v: unknown) => {
    if (v instanceof ArrayBuffer) parts.push(new Uint8Array(v));
    else if (v instanceof Uint8Array) parts.push(v);
    else if (Array.isArray(v)) v.forEach(add);
  };
  (dataSet.dict['7FE00010']?.Value ?? []).forEach(add);
  return new Uint8Array(Buffer.concat(parts));
}

const syntaxOf = (name: string) => {
  const dataSet = dcmjs.data.DicomMessage.readFile(new Uint8Array(readFileSync(file(name))).buffer, { untilTag: '00080016' });
  return String(dataSet.meta['00020010']?.Value?.[0]);
};

let tools: ReturnType<typeof dcmtk>;
before(() => {
  tools = dcmtk();
  const opj = openjpegTools();
  const ojph = openjphTools();
  for (const name of Object.keys(WIDE)) buildWide(tools, name);
  const derive = (tool: string, args: string[], source: string, name: string) => tools.run(tool, [...args, file(source), file(name)]);
  derive('dcmcjpeg', ['+eb'], 'sample', 'jpeg-baseline');
  derive('dcmcjpeg', ['+eb', '+fs', '8'], 'sample', 'jpeg-baseline-fragments');
  derive('dcmcjpeg', ['+ee'], 'sample', 'jpeg-extended');
  derive('dcmcjpeg', ['+ee'], 'u12', 'jpeg-extended-u12');
  derive('dcmcjpeg', ['+el'], 'sample', 'jpeg-lossless');
  derive('dcmcjpeg', ['+e1'], 'sample', 'jpeg-sv1');
  derive('dcmcjpeg', ['+e1'], 'u12', 'jpeg-sv1-u12');
  derive('dcmcjpeg', ['+el'], 'u16', 'jpeg-lossless-u16');
  derive('dcmcjpeg', ['+e1'], 's12', 'jpeg-sv1-s12');
  derive('dcmcjpls', ['+el'], 'sample', 'jpeg-ls');
  derive('dcmcjpls', ['+el'], 'u16', 'jpeg-ls-u16');
  derive('dcmcjpls', ['+el'], 's12', 'jpeg-ls-s12');
  derive('dcmcjpls', ['+en', '+md', '3'], 'u12', 'jpeg-ls-near-u12');

  // JPEG 2000: OpenJPEG's encoder (5/3 reversible by default; -I -r 10 is the irreversible 9/7 at 10:1)
  const j2k = (input: string, args: string[], source: string, uid: string, name: string) => {
    const codestream = at(`${name}.j2k`);
    opj.run('opj_compress', ['-i', input, '-o', codestream, ...args]);
    encapsulate(file(source), readFileSync(codestream), uid, file(name));
  };
  j2k(pgm('sample', 255), [], 'sample', '1.2.840.10008.1.2.4.90', 'j2k');
  j2k(pgm('u16', 65535), [], 'u16', '1.2.840.10008.1.2.4.90', 'j2k-u16');
  const s12 = Buffer.alloc(SIZE * SIZE * 2);
  wideValues('s12').forEach((v, i) => s12.writeInt16LE(v, i * 2));
  writeFileSync(at('s12.rawl'), s12);
  j2k(at('s12.rawl'), ['-F', `${SIZE},${SIZE},1,12,s`], 's12', '1.2.840.10008.1.2.4.90', 'j2k-s12');
  j2k(pgm('sample', 255), ['-I', '-r', '10'], 'sample', '1.2.840.10008.1.2.4.91', 'j2k-lossy');
  j2k(pgm('u12', 4095), ['-I', '-r', '10'], 'u12', '1.2.840.10008.1.2.4.91', 'j2k-lossy-u12');
  // HTJ2K: OpenJPH's encoder, reversible
  const htj2k = (input: string, source: string, name: string) => {
    const codestream = at(`${name}.j2c`);
    ojph.run('ojph_compress', ['-i', input, '-o', codestream, '-reversible', 'true']);
    encapsulate(file(source), readFileSync(codestream), '1.2.840.10008.1.2.4.201', file(name));
  };
  htj2k(pgm('sample', 255), 'sample', 'htj2k');
  htj2k(pgm('u16', 65535), 'u16', 'htj2k-u16');
});

test('each derived file is in the transfer syntax its name says (so the decoder under test is the one meant)', () => {
  const expected: Record<string, string> = {
    'jpeg-baseline': '1.2.840.10008.1.2.4.50', 'jpeg-baseline-fragments': '1.2.840.10008.1.2.4.50', 'jpeg-extended': '1.2.840.10008.1.2.4.51', 'jpeg-extended-u12': '1.2.840.10008.1.2.4.51',
    'jpeg-lossless': '1.2.840.10008.1.2.4.57', 'jpeg-lossless-u16': '1.2.840.10008.1.2.4.57', 'jpeg-sv1': '1.2.840.10008.1.2.4.70',
    'jpeg-sv1-u12': '1.2.840.10008.1.2.4.70', 'jpeg-sv1-s12': '1.2.840.10008.1.2.4.70', 'jpeg-ls': '1.2.840.10008.1.2.4.80',
    'jpeg-ls-u16': '1.2.840.10008.1.2.4.80', 'jpeg-ls-s12': '1.2.840.10008.1.2.4.80', 'jpeg-ls-near-u12': '1.2.840.10008.1.2.4.81',
    j2k: '1.2.840.10008.1.2.4.90', 'j2k-u16': '1.2.840.10008.1.2.4.90', 'j2k-s12': '1.2.840.10008.1.2.4.90', 'j2k-lossy': '1.2.840.10008.1.2.4.91',
    'j2k-lossy-u12': '1.2.840.10008.1.2.4.91', htj2k: '1.2.840.10008.1.2.4.201', 'htj2k-u16': '1.2.840.10008.1.2.4.201',
  };
  for (const [name, uid] of Object.entries(expected)) assert.equal(syntaxOf(name), uid, name);
  // the fragmented one really is in several fragments, and the extended ones hold 8- and 12-bit samples
  const bytes = readFileSync(file('jpeg-baseline-fragments'));
  let items = 0;
  for (let i = bytes.indexOf(Buffer.from([0xfe, 0xff, 0x00, 0xe0])); i >= 0; i = bytes.indexOf(Buffer.from([0xfe, 0xff, 0x00, 0xe0]), i + 4)) items++;
  assert.ok(items > 3, `${items} items`);
  for (const [name, precision] of [['jpeg-extended', 8], ['jpeg-extended-u12', 12]] as const) {
    const frame = Buffer.from(frameOf(name));
    assert.equal(frame[frame.indexOf(Buffer.from([0xff, 0xc1])) + 4], precision, name);
  }
});

// JPEG and JPEG-LS: dcmtk's dcmj2pnm and dcml2pnm (dcm2pnm with its JPEG (IJG 8/12/16-bit) and JPEG-LS (CharLS)
// decoders; Debian's dcm2pnm has neither) render them; the same window, ±1 grey level.
const comparisons: { name: string; window: string; bits: 8 | 16; dcmtk: string[] }[] = [
  { name: 'jpeg-baseline', window: 'auto', bits: 8, dcmtk: ['+Wm'] },
  { name: 'jpeg-baseline', window: 'none', bits: 8, dcmtk: [] },
  { name: 'jpeg-baseline-fragments', window: 'auto', bits: 8, dcmtk: ['+Wm'] },
  { name: 'jpeg-extended', window: 'auto', bits: 16, dcmtk: ['+Wm'] },
  { name: 'jpeg-extended', window: '100/80', bits: 8, dcmtk: ['+Ww', '100', '80'] },
  { name: 'jpeg-lossless', window: 'auto', bits: 8, dcmtk: ['+Wm'] },
  { name: 'jpeg-sv1', window: 'auto', bits: 16, dcmtk: ['+Wm'] },
  { name: 'jpeg-sv1-u12', window: 'auto', bits: 16, dcmtk: ['+Wm'] },
  { name: 'jpeg-lossless-u16', window: 'auto', bits: 16, dcmtk: ['+Wm'] },
  { name: 'jpeg-sv1-s12', window: 'auto', bits: 16, dcmtk: ['+Wi', '1'] },
  { name: 'jpeg-ls', window: 'auto', bits: 8, dcmtk: ['+Wm'] },
  { name: 'jpeg-ls-u16', window: 'auto', bits: 16, dcmtk: ['+Wm'] },
  { name: 'jpeg-ls-s12', window: 'auto', bits: 16, dcmtk: ['+Wi', '1'] },
  { name: 'jpeg-ls-near-u12', window: 'auto', bits: 16, dcmtk: ['+Wm'] },
];
for (const c of comparisons) {
  const tool = c.name.startsWith('jpeg-ls') ? 'dcml2pnm' : 'dcmj2pnm';
  test(`matches ${tool} ±1: ${c.name}, --window ${c.window}, ${c.bits}-bit`, async () => {
    const { entry, grey, out } = await convert(c.name, c.window, c.bits);
    assert.equal(entry.transferSyntaxUid, syntaxOf(c.name));
    if (c.name.endsWith('s12')) assert.equal(entry.transform.inverted, true);
    const reference = join(out, 'dcmtk.png');
    tools.run(tool, [...c.dcmtk, c.bits === 16 ? '+on2' : '+on', file(c.name), reference]);
    const { worst } = worstDifference(grey, await greyOf(reference, c.bits));
    assert.ok(worst <= 1, `max |cxrbench − ${tool}| = ${worst} grey levels`);
    assert.ok(new Set(grey).size > 16, 'the rendered image has fewer than 16 grey levels');
  });
}

test('lossless JPEG, JPEG-LS, JPEG 2000 and HTJ2K decode to exactly the stored values of their source', () => {
  const sources: [string, string][] = [
    ['jpeg-lossless', 'sample'], ['jpeg-sv1-u12', 'u12'], ['jpeg-lossless-u16', 'u16'], ['jpeg-sv1-s12', 's12'],
    ['jpeg-ls-u16', 'u16'], ['jpeg-ls-s12', 's12'],
    ['j2k', 'sample'], ['j2k-u16', 'u16'], ['j2k-s12', 's12'], ['htj2k', 'sample'], ['htj2k-u16', 'u16'],
  ];
  for (const [name, source] of sources) {
    const decoded = readDicom(readFileSync(file(name)), name);
    const original = readDicom(readFileSync(file(source)), source);
    assert.deepEqual([decoded.storedRange, decoded.bitsStored, decoded.pixelRepresentation], [original.storedRange, original.bitsStored, original.pixelRepresentation], name);
    assert.ok(decoded.pixels.every((v, i) => v === original.pixels[i]), `${name} differs from ${source}`);
  }
});

test('JPEG 2000 and HTJ2K lossless: the PNGs are those of the uncompressed source, at 8 and 16 bits', async () => {
  for (const [name, source, window, bits] of [['j2k', 'sample', 'auto', 8], ['j2k-u16', 'u16', 'auto', 16], ['j2k-s12', 's12', 'auto', 16], ['htj2k', 'sample', 'none', 8], ['htj2k-u16', 'u16', 'auto', 16]] as const) {
    const compressed = await convert(name, window, bits);
    const original = await convert(source, window, bits);
    assert.equal(worstDifference(compressed.grey, original.grey).worst, 0, `${name} vs ${source}`);
  }
});

test('JPEG 2000 lossy (9/7 at 10:1): stored values within ±1 of opj_decompress; PNG within a mean of 1 grey level of the uncompressed source', async () => {
  const opj = openjpegTools();
  for (const [name, source, maxval] of [['j2k-lossy', 'sample', 255], ['j2k-lossy-u12', 'u12', 4095]] as const) {
    const reference = at(`${name}-opj.pgm`);
    opj.run('opj_decompress', ['-i', at(`${name}.j2k`), '-o', reference]);
    const pgmBytes = readFileSync(reference);
    const body = pgmBytes.subarray(pgmBytes.length - SIZE * SIZE * (maxval > 255 ? 2 : 1));
    const theirs = Array.from({ length: SIZE * SIZE }, (_, i) => (maxval > 255 ? body.readUInt16BE(i * 2) : body[i]!));
    const decoded = readDicom(readFileSync(file(name)), name);
    assert.ok(worstDifference(decoded.pixels, theirs).worst <= 1, `${name}: stored values differ from opj_decompress by more than 1`);

    const lossy = await convert(name, 'none', 8);
    const original = await convert(source, 'none', 8);
    const { worst, mean } = worstDifference(lossy.grey, original.grey);
    assert.ok(mean < 1, `${name}: mean |lossy − source| = ${mean.toFixed(3)} grey levels (worst ${worst})`);
    assert.ok(worst > 0, `${name} is not lossy at all`);
  }
});

test('damaged codestreams of every codec are refused with the reason; the good files of the same run still convert', async () => {
  const dir = tempDir();
  const damaged: [string, RegExp][] = [];
  const damage = (name: string, uid: string, reason: RegExp, change: (frame: Uint8Array) => Uint8Array) => {
    const out = join(dir, `${name}-damaged-${damaged.length + 1}.dcm`);
    encapsulate(file(name), change(frameOf(name)), uid, out);
    damaged.push([out, reason]);
  };
  const cut = (frame: Uint8Array) => frame.subarray(0, Math.floor(frame.length * 0.6));
  // cut, and given back its end marker so that the codec itself meets the missing data
  const cutKeepingEnd = (frame: Uint8Array) => Buffer.concat([frame.subarray(0, Math.floor(frame.length * 0.6)), Buffer.from([0xff, 0xd9])]);
  const families: [string, string, string, RegExp][] = [
    ['jpeg-baseline', '1.2.840.10008.1.2.4.50', 'JPEG Baseline', /libjpeg-turbo/],
    ['jpeg-extended', '1.2.840.10008.1.2.4.51', 'JPEG Extended', /libjpeg-turbo/],
    ['jpeg-sv1', '1.2.840.10008.1.2.4.70', 'JPEG Lossless SV1', /jpeg-lossless-decoder-js/],
    ['jpeg-ls', '1.2.840.10008.1.2.4.80', 'JPEG-LS Lossless', /CharLS/],
    ['j2k', '1.2.840.10008.1.2.4.90', 'JPEG 2000 Lossless', /OpenJPEG/],
    ['htj2k', '1.2.840.10008.1.2.4.201', 'HTJ2K Lossless', /OpenJPH/],
  ];
  // JPEG 2000 / HTJ2K: a cut one given back its EOC is caught by its tile-part lengths; the codecs are shown a
  // main header whose COD segment asks for 255 decomposition levels (at most 32 exist)
  const badCod = (frame: Uint8Array) => {
    const copy = frame.slice();
    copy[copy.indexOf(0x52, 4) + 8] = 0xff;
    return copy;
  };
  for (const [name, uid, syntax, codec] of families) {
    const j2k = name.includes('j2k');
    damage(name, uid, new RegExp(`${syntax}[^:]*\\(${uid.replaceAll('.', '\\.')}\\): the .* codestream does not end with its end marker \\(0xFFD9\\): truncated`), cut);
    damage(name, uid, new RegExp(`${syntax} .*could not be decoded: ${codec.source}`), j2k ? badCod : cutKeepingEnd);
    if (j2k) damage(name, uid, new RegExp(`${syntax} .*damaged codestream: tile-part 1 is \\d+ bytes long but the codestream ends \\d+ bytes after its start \\(truncated\\)`), cutKeepingEnd);
  }
  // a frame header that disagrees with the data set: refused before any codec runs
  damage('jpeg-ls', '1.2.840.10008.1.2.4.80', /the codestream is 1024 × 512 pixels but Columns × Rows say 1024 × 1024/, (frame) => {
    const copy = frame.slice();
    const sof = copy.indexOf(0xf7, 2) - 1;
    copy[sof + 5] = 0x02; // rows 1024 → 512
    return copy;
  });
  const good = [file('jpeg-baseline'), file('j2k-u16'), file('jpeg-ls-s12')];
  const out = join(dir, 'png');
  const run = await runCli(['images', 'convert', ...good, ...damaged.map(([f]) => f), '--out', out, '--layout', 'flat', '--threads', '2']);
  assert.equal(run.code, 1, run.stderr);
  assert.match(run.stdout, new RegExp(`converted 3, skipped 0 \\(already converted\\), failed ${damaged.length}`), run.stderr);
  for (const [path, reason] of damaged) {
    const line = run.stderr.split('\n').find((l) => l.startsWith(`cxrbench: ${path}: `));
    assert.ok(line, `no line for ${path} in:\n${run.stderr}`);
    assert.match(line, reason);
  }
  assert.deepEqual(manifest(out).map((e) => e.transferSyntaxUid), ['1.2.840.10008.1.2.4.50', '1.2.840.10008.1.2.4.90', '1.2.840.10008.1.2.4.80']);
});

test('refused by name: a transfer syntax without a codec here, and 12-bit lossy JPEG (no accurate decoder yet)', async () => {
  const out = join(tempDir(), 'png');
  const mpeg = at('mpeg2.dcm');
  encapsulate(file('jpeg-baseline'), frameOf('jpeg-baseline'), '1.2.840.10008.1.2.4.100', mpeg);
  const run = await runCli(['images', 'convert', mpeg, file('jpeg-extended-u12'), '--out', out]);
  assert.equal(run.code, 1);
  assert.match(run.stderr, new RegExp(`${mpeg}: no codec for transfer syntax 1\\.2\\.840\\.10008\\.1\\.2\\.4\\.100`));
  assert.match(run.stderr, /jpeg-extended-u12\.dcm: JPEG Extended .*12-bit lossy JPEG \(JPEG Extended, SOF1\/SOF2 at 12 bits\) has no decoder here yet/);
});
