/**
 * Benchmark (issue #15): ≥ 200 chest-X-ray-sized DICOM files (2,000 × 2,500, 12 bits stored in 16, MONOCHROME2,
 * explicit VR little endian, no window in the file) → ¼-resolution 8-bit PNG.
 *   A. cxrbench, as users run it: `node bin/cxrbench.js images convert <dir> --out <dir> --scale 0.25 --bits 8`
 *      (default threads = CPUs, and --threads 1 for context).
 *   B. the limit: dcmtk's `dcm2pnm +Wm` (min-max window = what `--window auto` does without a file window) to an
 *      8-bit PGM, then sharp/libvips Lanczos-3 to the same size and PNG settings, 2 files at a time in one node
 *      driver process (the same parallelism as A's default on this 2-core machine).
 * The inputs are the NIH sample (1,024², 8-bit) upscaled bilinearly to 12 bits, each file with its own gain,
 * offset, noise, flip and UIDs; building them is timed separately. Wall time, and peak memory two ways: the sum
 * of the RSS of the whole process tree sampled every 25 ms, and the largest single process (`/usr/bin/time %M`).
 * Prints the ratio B time / A time (goal ≥ 1.0) and exits 1 below it.
 * Run: `./run bench:images` (options: --files N, --keep).
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SAMPLE = join(ROOT, 'examples/nih-dicom-sample/1.3.6.1.4.1.11129.5.5.110503645592756492463169821050252582267888.dcm');
const ROWS = 2500;
const COLUMNS = 2000;
const SCALE = 0.25;
const OUT_ROWS = Math.round(ROWS * SCALE);
const OUT_COLUMNS = Math.round(COLUMNS * SCALE);

// ---------------------------------------------------------------- side B's driver (a child process of the bench)
/** PGM (P5, maxval 255) → its pixels; comments allowed in the header. */
function parsePgm(bytes: Buffer): { width: number; height: number; pixels: Buffer } {
  let at = 0;
  const fields: string[] = [];
  while (fields.length < 4) {
    while (bytes[at] === 0x23) while (bytes[at++] !== 0x0a); // # comment line
    let token = '';
    while (at < bytes.length && !/\s/.test(String.fromCharCode(bytes[at]!))) token += String.fromCharCode(bytes[at++]!);
    if (token) fields.push(token);
    at++; // one whitespace byte (after maxval exactly one precedes the data)
  }
  const [magic, w, h, max] = fields;
  if (magic !== 'P5' || max !== '255') throw new Error(`not an 8-bit binary PGM: ${fields.join(' ')}`);
  return { width: Number(w), height: Number(h), pixels: bytes.subarray(at, at + Number(w) * Number(h)) };
}

async function dcmtkSide(inDir: string, outDir: string, lanes: number): Promise<void> {
  const files = readdirSync(inDir).filter((f) => f.endsWith('.dcm')).sort();
  let next = 0;
  let dcm2pnmMs = 0;
  let resizeMs = 0;
  const lane = async () => {
    while (next < files.length) {
      const name = files[next++]!;
      const pgm = join(outDir, `${name}.pgm`);
      const t0 = performance.now();
      await new Promise<void>((resolve, reject) => {
        const child = spawn('/usr/bin/dcm2pnm', ['+Wm', '+op', join(inDir, name), pgm], { stdio: ['ignore', 'ignore', 'inherit'] });
        child.on('error', reject);
        child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`dcm2pnm ${name}: exit ${code}`))));
      });
      const t1 = performance.now();
      const { width, height, pixels } = parsePgm(await readFile(pgm));
      const png = await sharp(pixels, { raw: { width, height, channels: 1 } })
        .resize(Math.round(width * SCALE), Math.round(height * SCALE), { kernel: 'lanczos3', fit: 'fill' })
        .toColourspace('b-w').png({ compressionLevel: 6 }).toBuffer();
      await writeFile(join(outDir, name.replace(/\.dcm$/, '.png')), png);
      unlinkSync(pgm);
      dcm2pnmMs += t1 - t0;
      resizeMs += performance.now() - t1;
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
  process.stdout.write(`DCMTK_STAGES dcm2pnm=${(dcm2pnmMs / 1000).toFixed(2)} resize+png=${(resizeMs / 1000).toFixed(2)}\n`);
}

if (process.argv[2] === '--dcmtk-side') {
  await dcmtkSide(process.argv[3]!, process.argv[4]!, Number(process.argv[5]));
  process.exit(0);
}

// ---------------------------------------------------------------- building the inputs
const argValue = (name: string) => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
};
const N = Number(argValue('--files') ?? 200);
const keep = process.argv.includes('--keep');
const work = mkdtempSync(join(tmpdir(), 'cxrbench-dicom-bench-'));
const inDir = join(work, 'dicom');
mkdirSync(inDir);

const uid = () => `2.25.${BigInt(`0x${randomBytes(15).toString('hex')}`).toString()}`;
function element(group: number, el: number, vr: string, value: Buffer | string): Buffer {
  let body = typeof value === 'string' ? Buffer.from(value, 'latin1') : value;
  if (body.length % 2) body = Buffer.concat([body, Buffer.from(vr === 'UI' || vr === 'OB' ? [0] : [0x20])]);
  const long = ['OB', 'OW', 'SQ', 'UN', 'UT'].includes(vr);
  const head = Buffer.alloc(long ? 12 : 8);
  head.writeUInt16LE(group, 0);
  head.writeUInt16LE(el, 2);
  head.write(vr, 4, 'latin1');
  if (long) head.writeUInt32LE(body.length, 8);
  else head.writeUInt16LE(body.length, 6);
  return Buffer.concat([head, body]);
}
const us = (n: number) => {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(n);
  return b;
};
const DX = '1.2.840.10008.5.1.4.1.1.1.1';
const EXPLICIT_LE = '1.2.840.10008.1.2.1';
function dicomFile(i: number, pixels: Uint16Array): Buffer {
  const sop = uid();
  const meta = Buffer.concat([
    element(0x0002, 0x0001, 'OB', Buffer.from([0, 1])), element(0x0002, 0x0002, 'UI', DX), element(0x0002, 0x0003, 'UI', sop),
    element(0x0002, 0x0010, 'UI', EXPLICIT_LE), element(0x0002, 0x0012, 'UI', '1.2.826.0.1.3680043.10.1.99'),
  ]);
  const groupLength = Buffer.alloc(4);
  groupLength.writeUInt32LE(meta.length);
  const id = String(i).padStart(4, '0');
  const data = Buffer.concat([
    element(0x0008, 0x0016, 'UI', DX), element(0x0008, 0x0018, 'UI', sop), element(0x0008, 0x0050, 'SH', `ACC${id}`), element(0x0008, 0x0060, 'CS', 'DX'),
    element(0x0010, 0x0020, 'LO', `BENCH${id}`), element(0x0018, 0x5101, 'CS', i % 3 ? 'PA' : 'AP'), element(0x0020, 0x000d, 'UI', uid()), element(0x0020, 0x000e, 'UI', uid()),
    element(0x0028, 0x0002, 'US', us(1)), element(0x0028, 0x0004, 'CS', 'MONOCHROME2'), element(0x0028, 0x0010, 'US', us(ROWS)), element(0x0028, 0x0011, 'US', us(COLUMNS)),
    element(0x0028, 0x0100, 'US', us(16)), element(0x0028, 0x0101, 'US', us(12)), element(0x0028, 0x0102, 'US', us(11)), element(0x0028, 0x0103, 'US', us(0)),
    element(0x7fe0, 0x0010, 'OW', Buffer.from(pixels.buffer, pixels.byteOffset, pixels.byteLength)),
  ]);
  return Buffer.concat([Buffer.alloc(128), Buffer.from('DICM'), element(0x0002, 0x0000, 'UL', groupLength), meta, data]);
}

const buildStart = performance.now();
// The sample's 8-bit pixels (implicit VR LE, the last 1,024² bytes), upscaled bilinearly to 2,000 × 2,500 × 16.
const sample = readFileSync(SAMPLE).subarray(-1024 * 1024);
const base = new Float32Array(ROWS * COLUMNS);
for (let r = 0; r < ROWS; r++) {
  const y = (r + 0.5) * (1024 / ROWS) - 0.5;
  const y0 = Math.max(0, Math.floor(y));
  const y1 = Math.min(1023, y0 + 1);
  const fy = Math.min(1, Math.max(0, y - y0));
  for (let c = 0; c < COLUMNS; c++) {
    const x = (c + 0.5) * (1024 / COLUMNS) - 0.5;
    const x0 = Math.max(0, Math.floor(x));
    const x1 = Math.min(1023, x0 + 1);
    const fx = Math.min(1, Math.max(0, x - x0));
    const top = sample[y0 * 1024 + x0]! * (1 - fx) + sample[y0 * 1024 + x1]! * fx;
    const bottom = sample[y1 * 1024 + x0]! * (1 - fx) + sample[y1 * 1024 + x1]! * fx;
    base[r * COLUMNS + c] = (top * (1 - fy) + bottom * fy) * 12; // 0..3060 of 4095
  }
}
let seed = 0x9e3779b9;
const rand = () => {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 4294967296;
};
const pixels = new Uint16Array(ROWS * COLUMNS);
for (let i = 0; i < N; i++) {
  const gain = 0.8 + 0.4 * rand();
  const offset = Math.floor(200 * rand());
  const flip = i % 2 === 1;
  for (let r = 0; r < ROWS; r++) {
    const row = r * COLUMNS;
    for (let c = 0; c < COLUMNS; c++) {
      const v = base[row + (flip ? COLUMNS - 1 - c : c)]! * gain + offset + (rand() - 0.5) * 24;
      pixels[row + c] = v < 0 ? 0 : v > 4095 ? 4095 : v | 0;
    }
  }
  writeFileSync(join(inDir, `${String(i).padStart(4, '0')}.dcm`), dicomFile(i, pixels));
}
const buildSeconds = (performance.now() - buildStart) / 1000;

// ---------------------------------------------------------------- measuring
interface Measured {
  seconds: number;
  treePeakMb: number;
  largestProcessMb: number;
  stdout: string;
}
const PAGE = 4096;
/** RSS of a process and all its descendants, in bytes (from /proc). */
function treeRss(root: number): number {
  const parent = new Map<number, number>();
  const rss = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parent.set(Number(name), Number(fields[1]));
      rss.set(Number(name), Number(fields[21]) * PAGE);
    } catch {
      // gone
    }
  }
  let total = 0;
  for (const [pid, bytes] of rss) {
    for (let p: number | undefined = pid; p !== undefined && p > 1; p = parent.get(p)) {
      if (p === root) {
        total += bytes;
        break;
      }
    }
  }
  return total;
}
async function measure(args: string[]): Promise<Measured> {
  const timeFile = join(work, 'time.txt');
  const started = performance.now();
  const child = spawn('/usr/bin/time', ['-f', '%M', '-o', timeFile, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  let peak = 0;
  const poll = setInterval(() => (peak = Math.max(peak, treeRss(child.pid!))), 25);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  const seconds = (performance.now() - started) / 1000;
  clearInterval(poll);
  if (code !== 0) throw new Error(`${args.join(' ')}: exit ${code}\n${stdout}`);
  return { seconds, treePeakMb: peak / 2 ** 20, largestProcessMb: Number(readFileSync(timeFile, 'utf8').trim().split('\n').pop()) / 1024, stdout };
}
const pngsIn = (dir: string): string[] => readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile() && e.name.endsWith('.png')).map((e) => join(e.parentPath, e.name));
/** Width and height from the PNG's IHDR chunk. */
const pngSize = (file: string) => {
  const head = readFileSync(file).subarray(0, 24);
  return { width: head.readUInt32BE(16), height: head.readUInt32BE(20) };
};
function checkOutputs(dir: string, side: string): string[] {
  const files = pngsIn(dir);
  if (files.length !== N) throw new Error(`${side}: ${files.length} PNGs, expected ${N}`);
  for (const f of files) {
    const { width, height } = pngSize(f);
    if (width !== OUT_COLUMNS || height !== OUT_ROWS) throw new Error(`${side}: ${f} is ${width}×${height}, expected ${OUT_COLUMNS}×${OUT_ROWS}`);
  }
  return files;
}

const cpus = availableParallelism();
const lanes = Math.min(cpus, 8); // cxrbench's default thread count
const cxrOut = join(work, 'cxrbench');
const cxr1Out = join(work, 'cxrbench-1');
const dcmOut = join(work, 'dcmtk');
mkdirSync(dcmOut);
const node = process.execPath;
const cli = ['bin/cxrbench.js', 'images', 'convert', inDir, '--scale', '0.25', '--bits', '8'];
// Order: dcmtk, cxrbench (default threads), cxrbench --threads 1 — each reads the inputs from the page cache after the build.
const dcmtk = await measure([node, '--import', 'tsx', fileURLToPath(import.meta.url), '--dcmtk-side', inDir, dcmOut, String(lanes)]);
const cxr = await measure([node, ...cli, '--out', cxrOut]);
const cxr1 = await measure([node, ...cli, '--out', cxr1Out, '--threads', '1']);
checkOutputs(dcmOut, 'dcmtk');
const cxrFiles = checkOutputs(cxrOut, 'cxrbench');
checkOutputs(cxr1Out, 'cxrbench --threads 1');

// Agreement on a few files (same SOP → same source file): mean and largest absolute grey-level difference.
const manifest = readFileSync(join(cxrOut, 'manifest.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { source: string; output: string });
let diffSum = 0;
let diffMax = 0;
let diffCount = 0;
for (const entry of manifest.slice(0, 5)) {
  const a = await sharp(join(cxrOut, entry.output)).extractChannel(0).raw().toBuffer();
  const b = await sharp(join(dcmOut, entry.source.split('/').pop()!.replace(/\.dcm$/, '.png'))).extractChannel(0).raw().toBuffer();
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i]! - b[i]!);
    diffSum += d;
    if (d > diffMax) diffMax = d;
  }
  diffCount += a.length;
}

// Where cxrbench's time goes, for one file, in this process (one thread, after a warm-up of the same file), along
// the path the converter takes (src/images/render-png.ts): decode, one lookup table over the stored values, resize, PNG.
const { readDicom } = await import('../src/images/read-dicom.js');
const { modalityLut, chooseVoi, modalityRange, modalityStage, isInverted, renderStoredThroughLut } = await import('../src/images/transforms.js');
const profileFile = join(inDir, '0000.dcm');
const stages: Record<string, number> = { read: 0, decode: 0, table: 0, resize: 0, png: 0 };
const ROUNDS = 3;
for (let round = 0; round <= ROUNDS; round++) {
  const t: number[] = [performance.now()];
  const bytes = await readFile(profileFile);
  t.push(performance.now());
  const image = readDicom(bytes, profileFile);
  t.push(performance.now());
  const ends = modalityLut([image.storedRange.min, image.storedRange.max], image.rescaleSlope, image.rescaleIntercept);
  const voi = chooseVoi({ kind: 'auto' }, image.windows, image.voiLutFunction, ends, modalityRange(image));
  const grey = renderStoredThroughLut(image.pixels, image.storedRange, modalityStage(image), voi, isInverted(image), 8);
  t.push(performance.now());
  const resized = await sharp(grey, { raw: { width: image.columns, height: image.rows, channels: 1 } }).resize(OUT_COLUMNS, OUT_ROWS, { kernel: 'lanczos3', fit: 'fill' }).raw().toBuffer();
  t.push(performance.now());
  await sharp(resized, { raw: { width: OUT_COLUMNS, height: OUT_ROWS, channels: 1 } }).toColourspace('b-w').png({ compressionLevel: 6 }).toBuffer();
  t.push(performance.now());
  if (round === 0) continue;
  Object.keys(stages).forEach((k, i) => (stages[k]! += (t[i + 1]! - t[i]!) / ROUNDS));
}
const profileTotal = Object.values(stages).reduce((a, b) => a + b, 0);
const dcm2pnmAlone: number[] = [];
for (let round = 0; round <= ROUNDS; round++) {
  const t0 = performance.now();
  spawnSync('/usr/bin/dcm2pnm', ['+Wm', '+op', profileFile, join(work, 'one.pgm')]);
  if (round > 0) dcm2pnmAlone.push(performance.now() - t0);
}

const ratio = dcmtk.seconds / cxr.seconds;
const mpx = (N * ROWS * COLUMNS) / 1e6;
const line = (name: string, m: Measured) =>
  `${name.padEnd(44)} ${m.seconds.toFixed(2).padStart(7)} s  ${(mpx / m.seconds).toFixed(1).padStart(6)} Mpx/s  peak tree RSS ${m.treePeakMb.toFixed(0).padStart(5)} MB  largest process ${m.largestProcessMb.toFixed(0).padStart(5)} MB`;
const out = [
  `${new Date().toISOString().slice(0, 10)} · ${N} DICOM files ${COLUMNS}×${ROWS} (12 of 16 bits, MONOCHROME2, explicit VR LE, ${(N * ROWS * COLUMNS * 2 / 2 ** 30).toFixed(2)} GiB of pixels, ${mpx.toFixed(0)} Mpx) → ${OUT_COLUMNS}×${OUT_ROWS} 8-bit PNG · ${cpus} CPUs · node ${process.version}`,
  `inputs built in ${buildSeconds.toFixed(1)} s (not timed below)`,
  line(`cxrbench (--threads default = ${lanes})`, cxr),
  line('cxrbench --threads 1', cxr1),
  line(`dcm2pnm +Wm + sharp lanczos3, ${lanes} at a time`, dcmtk),
  `  dcmtk side, summed over files: ${dcmtk.stdout.match(/DCMTK_STAGES (.*)/)?.[1] ?? '?'} s; one dcm2pnm alone ${(dcm2pnmAlone.reduce((a, b) => a + b, 0) / ROUNDS).toFixed(0)} ms`,
  `ratio dcmtk / cxrbench: ${ratio.toFixed(2)} (goal ≥ 1.0: ${ratio >= 1 ? 'met' : 'NOT met'}); with --threads 1: ${(dcmtk.seconds / cxr1.seconds).toFixed(2)}`,
  `outputs: ${cxrFiles.length} + ${N} + ${N} PNGs, all ${OUT_COLUMNS}×${OUT_ROWS}; first 5 files vs dcmtk: mean |diff| ${(diffSum / diffCount).toFixed(3)}, max ${diffMax} grey levels`,
  `cxrbench, one file in one thread (mean of ${ROUNDS}): ${Object.entries(stages).map(([k, v]) => `${k} ${v.toFixed(0)} ms`).join(', ')}; total ${profileTotal.toFixed(0)} ms`,
];
process.stdout.write(`${out.join('\n')}\n`);
if (keep) process.stdout.write(`kept: ${work}\n`);
else rmSync(work, { recursive: true, force: true });
if (existsSync(work) && !keep) process.stdout.write(`could not remove ${work}\n`);
process.exitCode = ratio >= 1 ? 0 : 1;
