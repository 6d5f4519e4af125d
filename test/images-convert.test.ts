/**
 * `cxrbench images convert`: the NIH sample and files derived from it with dcmtk's own tools convert to PNGs
 * within ±1 grey level of dcmtk's dcm2pnm at full resolution and the same window; bad files are each reported
 * with their reason while the good ones still convert; re-runs skip what is done; --deid hashes ids with a key.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { runCli } from './helpers/cli.js';
import { dcmtk } from './helpers/dcmtk.js';
import { tempDir } from './helpers/records.js';

const SAMPLE_DIR = fileURLToPath(new URL('../examples/nih-dicom-sample/', import.meta.url));
const SAMPLE = join(SAMPLE_DIR, '1.3.6.1.4.1.11129.5.5.110503645592756492463169821050252582267888.dcm');
const SOP = '1.3.6.1.4.1.11129.5.5.110503645592756492463169821050252582267888';
const STUDY = '1.3.6.1.4.1.11129.5.5.112507010803284478207522016832191866964708';
const SERIES = '1.3.6.1.4.1.11129.5.5.112630850362182468372440828755218293352329';

interface Entry {
  source: string;
  output: string;
  sha256: string;
  patientId: string;
  accession: string;
  before: { rows: number; columns: number };
  after: { rows: number; columns: number };
  transform: { voi: Record<string, unknown>; inverted: boolean; bits: number; scale: number; kernel: string | null };
  [key: string]: unknown;
}
const manifest = (out: string): Entry[] => readFileSync(join(out, 'manifest.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Entry);
const allFiles = (dir: string): string[] => readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => relative(dir, join(e.parentPath, e.name))).sort();

/** The grey samples of a PNG (8- or 16-bit), one per pixel. */
async function greyOf(png: Buffer | string, bits: 8 | 16): Promise<Uint8Array | Uint16Array> {
  const image = sharp(png).extractChannel(0);
  if (bits === 8) return new Uint8Array(await image.raw().toBuffer());
  const raw = await image.toColourspace('grey16').raw({ depth: 'ushort' }).toBuffer();
  return new Uint16Array(raw.buffer, raw.byteOffset, raw.length / 2);
}

// Files derived from the sample with dcmtk's tools, made once.
const work = tempDir();
const derived = (name: string) => join(work, `${name}.dcm`);
let tools: ReturnType<typeof dcmtk>;
before(() => {
  tools = dcmtk();
  const copy = (name: string) => {
    copyFileSync(SAMPLE, derived(name));
    return derived(name);
  };
  const modify = (name: string, ...args: string[]) => tools.run('dcmodify', ['-nb', ...args, copy(name)]);
  tools.run('dcmconv', ['+te', SAMPLE, derived('explicit-le')]);
  tools.run('dcmconv', ['+tb', SAMPLE, derived('explicit-be')]);
  tools.run('dcmconv', ['+td', SAMPLE, derived('deflated')]);
  tools.run('dcmcrle', [SAMPLE, derived('rle')]);
  // a transfer syntax without a codec here (JPEG 2000 Part 2 multi-component): a JPEG lossless file relabelled,
  // its UID being of the same length
  tools.run('dcmcjpeg', [SAMPLE, derived('no-codec')]);
  const relabelled = readFileSync(derived('no-codec'));
  relabelled.write('1.2.840.10008.1.2.4.92', relabelled.indexOf('1.2.840.10008.1.2.4.70'), 'latin1');
  writeFileSync(derived('no-codec'), relabelled);
  modify('window', '-i', '(0028,1050)=100\\60', '-i', '(0028,1051)=80\\20');
  modify('sigmoid', '-i', '(0028,1050)=100', '-i', '(0028,1051)=80', '-i', '(0028,1056)=SIGMOID');
  modify('monochrome1', '-m', '(0028,0004)=MONOCHROME1');
  modify('rescale', '-i', '(0028,1053)=2', '-i', '(0028,1052)=-100', '-i', '(0028,1050)=50', '-i', '(0028,1051)=200');
  modify('no-pixels', '-ea', '(7fe0,0010)');
  modify('multi-frame', '-i', '(0028,0008)=2');
  // (An integer slope: dcm2pnm truncates non-integer modality values before the VOI stage, the standard does not
  // and neither do we; docs/images.md says how far apart that puts us.)
  // A signed 12-bit image in 16-bit words, with junk in the 4 unused high bits (which readers must mask off), from
  // the sample's pixels: dump2dcm builds it, so dcmtk reads our test data exactly as we meant it.
  const stored = readFileSync(SAMPLE).subarray(-1024 * 1024);
  const words = Buffer.alloc(stored.length * 2);
  for (let i = 0; i < stored.length; i++) words.writeUInt16LE((((stored[i]! * 16 - 2048 + (i % 16)) & 0x0fff) | ((i % 7) << 12)) & 0xffff, i * 2);
  writeFileSync(join(work, 'px16.raw'), words);
  writeFileSync(join(work, 'signed12.txt'), [
    '(0002,0010) UI =LittleEndianExplicit', '(0008,0016) UI =DigitalXRayImageStorageForPresentation', '(0008,0018) UI [1.2.826.0.1.3680043.10.1.1]',
    '(0020,000d) UI [1.2.826.0.1.3680043.10.1]', '(0020,000e) UI [1.2.826.0.1.3680043.10.1.2]', '(0010,0020) LO [P/1]', '(0008,0050) SH [ACC1]', '(0018,5101) CS [PA]',
    '(0028,0002) US 1', '(0028,0004) CS [MONOCHROME1]', '(0028,0010) US 1024', '(0028,0011) US 1024', '(0028,0100) US 16', '(0028,0101) US 12',
    '(0028,0102) US 11', '(0028,0103) US 1', '(0028,1050) DS [-100\\500]', '(0028,1051) DS [1500\\200]', '(0028,1052) DS [-24]', '(0028,1053) DS [2]',
    `(7fe0,0010) OW =${join(work, 'px16.raw')}`,
  ].join('\n'));
  tools.run('dump2dcm', ['+E', join(work, 'signed12.txt'), derived('signed12')]);
  tools.run('dcmconv', ['+tb', derived('signed12'), derived('signed12-be')]);
  tools.run('dcmcrle', [derived('signed12'), derived('signed12-rle')]);
});

test('the NIH sample converts: ReXGradient layout, 256 × 256 at --scale 0.25, manifest fields, sha256 of the file; a re-run skips it', async () => {
  const out = join(tempDir(), 'png');
  const run = await runCli(['images', 'convert', SAMPLE_DIR, '--out', out, '--scale', '0.25']);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /converted 1, skipped 0 \(already converted\), failed 0/);
  const [entry, ...more] = manifest(out);
  assert.equal(more.length, 0);
  assert.ok(entry);
  assert.equal(entry.output, `deid_png/Covid0000/NO_ACCESSION/studies/${STUDY}/series/${SERIES}/instances/${SOP}.png`);
  assert.equal(entry.source, SAMPLE);
  assert.deepEqual([entry.before, entry.after], [{ rows: 1024, columns: 1024 }, { rows: 256, columns: 256 }]);
  assert.deepEqual(entry.transform, {
    modality: { slope: 1, intercept: 0 }, voi: { kind: 'window', source: 'min-max', center: 126.5, width: 253, function: 'LINEAR' },
    inverted: false, bits: 8, scale: 0.25, kernel: 'lanczos3',
  });
  assert.deepEqual([entry.sopInstanceUid, entry.studyInstanceUid, entry.seriesInstanceUid, entry.patientId, entry.viewPosition, entry.deidentified], [SOP, STUDY, SERIES, 'Covid0000', null, false]);
  const png = readFileSync(join(out, entry.output));
  assert.equal(createHash('sha256').update(png).digest('hex'), entry.sha256);
  const meta = await sharp(png).metadata();
  assert.deepEqual([meta.format, meta.width, meta.height, meta.channels, meta.depth], ['png', 256, 256, 1, 'uchar']);
  const mtime = statSync(join(out, entry.output)).mtimeMs;

  const again = await runCli(['images', 'convert', SAMPLE_DIR, '--out', out, '--scale', '0.25']);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /converted 0, skipped 1 \(already converted\), failed 0/);
  assert.equal(manifest(out).length, 1);
  assert.equal(statSync(join(out, entry.output)).mtimeMs, mtime);
  assert.deepEqual(allFiles(out), [entry.output, 'manifest.jsonl'].sort());

  const other = await runCli(['images', 'convert', SAMPLE_DIR, '--out', out, '--scale', '0.5']);
  assert.equal(other.code, 1);
  assert.match(other.stderr, /already converted in .* with other options .*: use another --out/);
});

test('bad inputs: each named with its reason, exit 1 with the counts; the good file still converts; nothing half-written is left', async () => {
  const dir = tempDir();
  const text = join(dir, 'notes.dcm');
  writeFileSync(text, 'this is a text file, not an image\n');
  const truncated = join(dir, 'truncated.dcm');
  writeFileSync(truncated, readFileSync(SAMPLE).subarray(0, 600_000));
  const out = join(dir, 'png');
  const run = await runCli(['images', 'convert', SAMPLE, text, truncated, derived('no-pixels'), derived('multi-frame'), derived('no-codec'), join(dir, 'missing.dcm'), '--out', out, '--layout', 'flat']);
  assert.equal(run.code, 1, run.stderr);
  assert.match(run.stdout, /converted 1, skipped 0 \(already converted\), failed 6/);
  const lines = run.stderr.trim().split('\n');
  const expected: [string, RegExp][] = [
    [join(dir, 'missing.dcm'), /no such file or folder/],
    [text, /not a DICOM file/],
    [truncated, /truncated file: Pixel Data declares 1048576 bytes but the file ends before them/],
    [derived('no-pixels'), /no image pixel module \(missing Pixel Data\)/],
    [derived('multi-frame'), /multi-frame image \(2 frames\)/],
    [derived('no-codec'), /no codec for transfer syntax 1\.2\.840\.10008\.1\.2\.4\.92/],
  ];
  assert.equal(lines.length, expected.length, run.stderr);
  for (const [file, reason] of expected) {
    const line = lines.find((l) => l.startsWith(`cxrbench: ${file}: `));
    assert.ok(line, `no line for ${file} in:\n${run.stderr}`);
    assert.match(line, reason);
  }
  assert.deepEqual(allFiles(out), [`${SOP}.png`, 'manifest.jsonl'].sort());
});

// Each case: a file, our --window and --bits, and dcm2pnm's options for the same VOI. "none" is compared at 8 bits
// only: dcm2pnm without a window scales n input levels by 2^16/n, so its white is 65280, not 65535 (docs/images.md).
const comparisons: { file: string; window: string; bits: 8 | 16; dcmtk: string[] }[] = [
  { file: 'sample', window: 'none', bits: 8, dcmtk: [] },
  { file: 'sample', window: 'auto', bits: 8, dcmtk: ['+Wm'] },
  { file: 'sample', window: 'auto', bits: 16, dcmtk: ['+Wm'] },
  { file: 'sample', window: '100/80', bits: 8, dcmtk: ['+Ww', '100', '80'] },
  { file: 'sample', window: '100/80', bits: 16, dcmtk: ['+Ww', '100', '80'] },
  { file: 'window', window: 'auto', bits: 8, dcmtk: ['+Wi', '1'] },
  { file: 'window', window: 'auto', bits: 16, dcmtk: ['+Wi', '1'] },
  { file: 'sigmoid', window: 'auto', bits: 8, dcmtk: ['+Wi', '1'] },
  { file: 'sigmoid', window: 'auto', bits: 16, dcmtk: ['+Wi', '1'] },
  { file: 'monochrome1', window: 'none', bits: 8, dcmtk: [] },
  { file: 'monochrome1', window: 'auto', bits: 16, dcmtk: ['+Wm'] },
  { file: 'rescale', window: 'auto', bits: 8, dcmtk: ['+Wi', '1'] },
  { file: 'rescale', window: 'auto', bits: 16, dcmtk: ['+Wi', '1'] },
  { file: 'rescale', window: 'none', bits: 8, dcmtk: [] },
  { file: 'explicit-le', window: 'none', bits: 8, dcmtk: [] },
  { file: 'explicit-be', window: 'none', bits: 8, dcmtk: [] },
  { file: 'deflated', window: 'none', bits: 8, dcmtk: [] },
  { file: 'rle', window: 'auto', bits: 8, dcmtk: ['+Wm'] },
  { file: 'signed12', window: 'auto', bits: 16, dcmtk: ['+Wi', '1'] },
  { file: 'signed12', window: 'auto', bits: 8, dcmtk: ['+Wi', '1'] },
  { file: 'signed12', window: '-300/900', bits: 16, dcmtk: ['+Ww', '-300', '900'] },
  { file: 'signed12', window: 'none', bits: 8, dcmtk: [] },
  { file: 'signed12-be', window: 'auto', bits: 16, dcmtk: ['+Wi', '1'] },
  { file: 'signed12-rle', window: 'auto', bits: 16, dcmtk: ['+Wi', '1'] },
];
for (const c of comparisons) {
  test(`matches dcm2pnm ±1: ${c.file}, --window ${c.window}, ${c.bits}-bit`, async () => {
    const file = c.file === 'sample' ? SAMPLE : derived(c.file);
    const out = join(tempDir(), 'png');
    const run = await runCli(['images', 'convert', file, '--out', out, '--layout', 'flat', '--bits', String(c.bits), '--window', c.window]);
    assert.equal(run.code, 0, run.stderr);
    const [entry] = manifest(out);
    assert.ok(entry);
    // the derived file really is in the transfer syntax its name says (so the decoder path under test is the one meant)
    const syntax = c.file.endsWith('rle') ? '1.2.840.10008.1.2.5' : c.file.endsWith('be') ? '1.2.840.10008.1.2.2' : c.file === 'deflated' ? '1.2.840.10008.1.2.1.99' : c.file === 'sample' ? '1.2.840.10008.1.2' : null;
    if (syntax) assert.equal(entry.transferSyntaxUid, syntax);
    if (c.file === 'sigmoid') assert.equal(entry.transform.voi.function, 'SIGMOID');
    if (c.file.includes('monochrome1') || c.file.startsWith('signed12')) assert.equal(entry.transform.inverted, true);
    const reference = join(out, 'dcm2pnm.png');
    tools.run('dcm2pnm', [...c.dcmtk, c.bits === 16 ? '+on2' : '+on', file, reference]);
    const ours = await greyOf(join(out, entry.output), c.bits);
    const theirs = await greyOf(reference, c.bits);
    assert.equal(ours.length, theirs.length);
    let worst = 0;
    for (let i = 0; i < ours.length; i++) worst = Math.max(worst, Math.abs(ours[i]! - theirs[i]!));
    assert.ok(worst <= 1, `max |cxrbench − dcm2pnm| = ${worst} grey levels (transform ${JSON.stringify(entry.transform)})`);
    // the image is not trivially flat: a blank output would match a blank reference
    assert.ok(new Set(ours).size > 16, 'the rendered image has fewer than 16 grey levels');
  });
}

test('--deid: keyed hashes of patient id and accession in paths and manifest; the key sits beside --out, is reused, never printed', async () => {
  const dir = tempDir();
  const out = join(dir, 'png');
  const run = await runCli(['images', 'convert', derived('signed12'), SAMPLE, '--out', out, '--deid', '--bits', '16']);
  assert.equal(run.code, 0, run.stderr);
  const keyFile = `${out}.deid-key`;
  assert.ok(existsSync(keyFile));
  const key = readFileSync(keyFile, 'utf8').trim();
  assert.match(key, /^[0-9a-f]{64}$/);
  assert.equal((statSync(keyFile).mode & 0o777).toString(8), '600');
  assert.ok(!run.stdout.includes(key) && !run.stderr.includes(key));
  const entries = manifest(out);
  const text = readFileSync(join(out, 'manifest.jsonl'), 'utf8') + allFiles(out).join('\n');
  for (const id of ['Covid0000', 'ACC1', 'P/1', 'P_1']) assert.ok(!text.includes(id), `${id} appears in the output`);
  const hashed = entries.find((e) => e.source === derived('signed12'));
  assert.ok(hashed);
  assert.match(hashed.output, /^deid_png\/[0-9a-f]{32}\/[0-9a-f]{32}\/studies\/1\.2\.826\.0\.1\.3680043\.10\.1\/series\/1\.2\.826\.0\.1\.3680043\.10\.1\.2\/instances\/1\.2\.826\.0\.1\.3680043\.10\.1\.1\.png$/);
  assert.equal(hashed.viewPosition, 'PA');
  assert.equal((await sharp(join(out, hashed.output)).metadata()).depth, 'ushort');

  // the same key gives the same hashed path in another output folder's run? No: each folder has its own key.
  // A second run into the same folder reuses the key, so nothing is converted twice.
  const again = await runCli(['images', 'convert', derived('signed12'), SAMPLE, '--out', out, '--deid', '--bits', '16']);
  assert.match(again.stdout, /converted 0, skipped 2/);
  assert.equal(readFileSync(keyFile, 'utf8').trim(), key);
});

test('bad options are refused before any work', async () => {
  for (const [flag, value, message] of [['--scale', '0', /--scale 0/], ['--scale', '2', /--scale 2/], ['--bits', '12', /--bits 12/], ['--window', '40', /--window 40/], ['--layout', 'tree', /--layout tree/]] as const) {
    const out = join(tempDir(), 'png');
    const run = await runCli(['images', 'convert', SAMPLE, '--out', out, flag, value]);
    assert.equal(run.code, 2, `${flag} ${value}: ${run.stderr}`);
    assert.match(run.stderr, message);
    assert.ok(!existsSync(out));
  }
});

test('threads: the same PNGs and manifest order with 1 or 3 threads; a second file with the same SOP Instance UID is refused, not overwritten', async () => {
  const runs: Entry[][] = [];
  for (const threads of ['1', '3']) {
    const out = join(tempDir(), 'png');
    const files = [SAMPLE, derived('explicit-le'), derived('signed12'), derived('rle')];
    const run = await runCli(['images', 'convert', ...files, '--out', out, '--threads', threads, '--scale', '0.3', '--layout', 'flat']);
    assert.equal(run.code, 1);
    assert.match(run.stdout, /converted 2, skipped 0 \(already converted\), failed 2/);
    for (const copy of [derived('explicit-le'), derived('rle')]) assert.match(run.stderr, new RegExp(`${copy}: same output ${SOP}\\.png as ${SAMPLE}`));
    runs.push(manifest(out));
  }
  assert.deepEqual(runs[0]!.map((e) => [e.source, e.sha256]), runs[1]!.map((e) => [e.source, e.sha256]));
});

test('the main thread never decodes: convert-images.ts imports the decoder and renderer only as types', () => {
  const source = readFileSync(fileURLToPath(new URL('../src/images/convert-images.ts', import.meta.url)), 'utf8');
  const valueImports = [...source.matchAll(/^import (?!type )[^;]*from '([^']+)'/gm)].map((m) => m[1]);
  for (const decoder of ['./read-dicom.js', './render-png.js', './convert-one.js', 'dcmjs', 'sharp']) assert.ok(!valueImports.includes(decoder), `convert-images.ts imports ${decoder}`);
});

test('a manifest line cut short by a crash is ignored: that image is converted again and the manifest stays one JSON per line', async () => {
  const out = join(tempDir(), 'png');
  assert.equal((await runCli(['images', 'convert', SAMPLE, '--out', out])).code, 0);
  const file = join(out, 'manifest.jsonl');
  const line = readFileSync(file, 'utf8');
  writeFileSync(file, line.slice(0, 100));
  const run = await runCli(['images', 'convert', SAMPLE, '--out', out]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /converted 1, skipped 0/);
  const lines = readFileSync(file, 'utf8').split('\n');
  assert.deepEqual([lines[0], lines[1], lines.length], [line.slice(0, 100), line.trimEnd(), 3]);
});

test('--metadata: ReXGradient-style study JSON (ImagePath, ImageViewPosition) for everything in the manifest, also after a resumed run', async () => {
  const dir = tempDir();
  const out = join(dir, 'png');
  const metadata = join(dir, 'metadata.json');
  const first = await runCli(['images', 'convert', SAMPLE, '--out', out, '--metadata', metadata]);
  assert.equal(first.code, 0, first.stderr);
  const second = await runCli(['images', 'convert', SAMPLE, derived('signed12'), '--out', out, '--metadata', metadata]);
  assert.equal(second.code, 0, second.stderr);
  assert.match(second.stdout, /converted 1, skipped 1/);
  const sampleStudy = `deid_png/Covid0000/NO_ACCESSION/studies/${STUDY}/series/${SERIES}/instances/${SOP}.png`;
  assert.deepEqual(JSON.parse(readFileSync(metadata, 'utf8')), {
    [`pCovid0000_aNO_ACCESSION_s${STUDY}`]: { PatientID: 'Covid0000', AccessionNumber: 'NO_ACCESSION', StudyInstanceUid: STUDY, ImagePath: [sampleStudy], ImageViewPosition: [null] },
    'pP/1_aACC1_s1.2.826.0.1.3680043.10.1': {
      PatientID: 'P/1', AccessionNumber: 'ACC1', StudyInstanceUid: '1.2.826.0.1.3680043.10.1',
      ImagePath: ['deid_png/P_1/ACC1/studies/1.2.826.0.1.3680043.10.1/series/1.2.826.0.1.3680043.10.1.2/instances/1.2.826.0.1.3680043.10.1.1.png'], ImageViewPosition: ['PA'],
    },
  });
});
