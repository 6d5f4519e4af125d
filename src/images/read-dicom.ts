import dcmjs, { type DcmjsDataSet, type DcmjsElement } from 'dcmjs';
import { decodeCompressed } from './codecs/index.js';
import { DicomRejection, type DicomImage, type VoiLutFunction, type VoiWindow } from './dicom-image.js';
import { checkDataSet, DICOM_LIMITS, fileSizeProblem, inflateDeflatedFile, readFileMeta } from './dicom-limits.js';
import { readLutSequence } from './lut-table.js';
import { decodeRle } from './rle.js';

// dcmjs logs every tolerated oddity (e.g. an AS of the wrong length) at error level on the console; those are not
// the user's problem and would drown the one line per failed file that the command prints.
dcmjs.log.setLevel('silent');
dcmjs.log.getLogger('validation.dcmjs').setLevel('silent');

/**
 * Transfer syntaxes whose pixel data is stored uncompressed. Deflated Explicit VR Little Endian is one too, but it
 * never reaches dcmjs: it is inflated here first, with a cap, and read as Explicit VR Little Endian.
 */
const NATIVE = new Map<string, string>([
  ['1.2.840.10008.1.2', 'Implicit VR Little Endian'],
  ['1.2.840.10008.1.2.1', 'Explicit VR Little Endian'],
  ['1.2.840.10008.1.2.2', 'Explicit VR Big Endian'],
]);
const RLE = '1.2.840.10008.1.2.5';
const DEFLATED = '1.2.840.10008.1.2.1.99';

/** How much of a file to offer dcmjs first: the attributes before the pixels fit in it nearly always. */
const HEAD_BYTES = 256 * 1024;

/**
 * The attributes up to the top-level Pixel Data, parsed from a copy of the file's first HEAD_BYTES only, or null
 * when that is not enough: the caller then parses from the whole file, which also gives the real error. Only when
 * the limits' walk found the Pixel Data's tag (`pixelDataAt`) within the head: every attribute before it then ends
 * before it, and dcmjs reads in the head what the walk followed in the file — an attribute cut by the head would be
 * read otherwise (a UN read as a sequence, for one, as a copy zero-filled to its length). (A deflated file is
 * inflated before it gets here.)
 */
function attributesFromHead(bytes: Uint8Array, pixelDataAt: number | null): DcmjsDataSet | null {
  if (bytes.byteLength <= HEAD_BYTES || pixelDataAt === null || pixelDataAt + 4 > HEAD_BYTES) return null;
  try {
    const head = dcmjs.data.DicomMessage.readFile(bytes.slice(0, HEAD_BYTES).buffer, { noCopy: true, untilTag: '7FE00010', includeUntilTagValue: false });
    return head.dict['7FE00010'] ? head : null;
  } catch {
    return null;
  }
}

/** dcmjs's parse of the file, whole or up to the top-level Pixel Data; a parse failure is the file's rejection. */
function parseDataSet(buffer: ArrayBuffer, file: string, untilPixels: boolean): DcmjsDataSet {
  try {
    return dcmjs.data.DicomMessage.readFile(buffer, untilPixels ? { noCopy: true, untilTag: '7FE00010', includeUntilTagValue: false } : { noCopy: true });
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new DicomRejection(file, /offset|bounds|range|end of|length|allocated buffer/i.test(why) ? `truncated or damaged DICOM file (${why})` : `unreadable DICOM data set (${why})`);
  }
}

function values(dict: Record<string, DcmjsElement>, tag: string): unknown[] {
  return dict[tag]?.Value ?? [];
}
function text(dict: Record<string, DcmjsElement>, tag: string): string | null {
  const v = values(dict, tag)[0];
  if (v === undefined || v === null) return null;
  const s = String(v).trim();
  return s === '' ? null : s;
}
function num(dict: Record<string, DcmjsElement>, tag: string): number | null {
  const v = values(dict, tag)[0];
  if (v === undefined || v === null || v === '') return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}
function nums(dict: Record<string, DcmjsElement>, tag: string): number[] {
  return values(dict, tag).map(Number).filter(Number.isFinite);
}

/**
 * The file's bytes ready for dcmjs: refused (a DicomRejection) when over DICOM_LIMITS — too large, a deflated data
 * set inflating past the cap, sequences nested too deep or holding too much, structure the limits' walk does not
 * follow — before dcmjs parses anything, since dcmjs itself has no limits. A deflated file comes back inflated, as
 * Explicit VR Little Endian; `pixelDataAt` is where the top-level Pixel Data's tag is (null: none).
 */
function withinLimits(bytes: Uint8Array, file: string): { bytes: Uint8Array; deflated: boolean; pixelDataAt: number | null } {
  const tooLarge = fileSizeProblem(bytes.length);
  if (tooLarge) throw new DicomRejection(file, tooLarge);
  const meta = readFileMeta(bytes);
  // (dcmjs refuses a file without one too, but only after it would have inflated a deflated data set without a cap)
  if (typeof meta === 'string') throw new DicomRejection(file, meta);
  let checked = bytes;
  if (meta.transferSyntaxUid === DEFLATED) {
    const inflated = inflateDeflatedFile(bytes, meta);
    if (typeof inflated === 'string') throw new DicomRejection(file, inflated);
    checked = inflated;
  }
  const check = checkDataSet(checked, meta.dataSetStart, meta.transferSyntaxUid === DEFLATED ? '1.2.840.10008.1.2.1' : meta.transferSyntaxUid);
  if ('refused' in check) throw new DicomRejection(file, check.refused);
  return { bytes: checked, deflated: checked !== bytes, pixelDataAt: check.pixelDataAt };
}

/**
 * Reads one DICOM Part 10 file into a DicomImage, or throws a DicomRejection that says why not (not DICOM,
 * truncated, no pixel module, multi-frame, colour, a transfer syntax without a codec here, over DICOM_LIMITS). The
 * bytes are taken over: the image's pixels may be a view into them, masked in place — pass a copy to keep the
 * file's bytes.
 */
export function readDicom(fileBytes: Uint8Array, file: string): DicomImage {
  if (fileBytes.length < 132 || String.fromCharCode(...fileBytes.subarray(128, 132)) !== 'DICM') {
    throw new DicomRejection(file, 'not a DICOM file (no "DICM" marker at byte 128: not DICOM Part 10)');
  }
  const { bytes, deflated, pixelDataAt } = withinLimits(fileBytes, file);
  // dcmjs wants an ArrayBuffer of the file alone: a file read on its own is one; a view into a larger (reused)
  // buffer is copied — only when dcmjs needs more than the attributes before the pixels.
  const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer;
  let exact: ArrayBuffer | null = whole ? (bytes.buffer as ArrayBuffer) : null;
  const buffer = () => (exact ??= bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
  // The attributes first, stopping at the top-level Pixel Data (dcmjs reads sequence items without the stop, so an
  // icon image's pixels do not end it): native pixels are then found in the file's bytes and used where they lie,
  // instead of dcmjs copying a 10 MB value. Everything else (deflated, encapsulated, or pixels not found with
  // confidence) is parsed again in full by dcmjs.
  let dataSet = (!whole && attributesFromHead(bytes, pixelDataAt)) || parseDataSet(buffer(), file, true);
  // (what dcmjs reads is Explicit VR Little Endian for a file inflated here; the image says what the file was)
  const transferSyntaxUid = text(dataSet.meta, '00020010') ?? '1.2.840.10008.1.2';
  const { dict } = dataSet;
  const rows = num(dict, '00280010');
  const columns = num(dict, '00280011');
  const bitsAllocated = num(dict, '00280100');
  const pixelElement = dict['7FE00010'];
  if (rows === null || columns === null || bitsAllocated === null || !pixelElement) {
    const missing = [rows === null && 'Rows', columns === null && 'Columns', bitsAllocated === null && 'Bits Allocated', !pixelElement && 'Pixel Data'].filter(Boolean);
    throw new DicomRejection(file, `no image pixel module (missing ${missing.join(', ')})`);
  }
  if (rows < 1 || columns < 1 || !Number.isInteger(rows) || !Number.isInteger(columns)) throw new DicomRejection(file, `Rows × Columns ${rows} × ${columns} is not an image size`);
  const frames = num(dict, '00280008') ?? 1;
  if (frames !== 1) throw new DicomRejection(file, `multi-frame image (${frames} frames): only single-frame images are converted`);
  const samples = num(dict, '00280002') ?? 1;
  const photometric = text(dict, '00280004') ?? (samples === 1 ? 'MONOCHROME2' : 'RGB');
  if (samples !== 1 || (photometric !== 'MONOCHROME1' && photometric !== 'MONOCHROME2')) {
    throw new DicomRejection(file, `not a greyscale image (Photometric Interpretation ${photometric}, ${samples} samples per pixel)`);
  }
  if (bitsAllocated !== 8 && bitsAllocated !== 16) throw new DicomRejection(file, `Bits Allocated ${bitsAllocated} is not supported (8 or 16)`);
  // Before any decoder allocates them: a 1 kB compressed frame may claim 65,535 × 65,535 pixels.
  if (rows * columns * (bitsAllocated / 8) > DICOM_LIMITS.maxBytes) {
    throw new DicomRejection(file, `Rows × Columns ${rows} × ${columns} at ${bitsAllocated} bits is larger than the ${DICOM_LIMITS.maxBytes / (1024 * 1024)} MiB limit for one image`);
  }
  const bitsStored = num(dict, '00280101') ?? bitsAllocated;
  if (bitsStored < 1 || bitsStored > bitsAllocated) throw new DicomRejection(file, `Bits Stored ${bitsStored} does not fit Bits Allocated ${bitsAllocated}`);
  const pixelRepresentation = num(dict, '00280103') === 1 ? 1 : 0;

  const expected = rows * columns * (bitsAllocated / 8);
  const bigEndian = transferSyntaxUid === '1.2.840.10008.1.2.2';
  let raw: Uint8Array;
  const inPlace = NATIVE.has(transferSyntaxUid) ? nativePixelData(bytes, transferSyntaxUid, expected) : null;
  if (inPlace) {
    if (inPlace.end > bytes.length) throw new DicomRejection(file, `truncated file: Pixel Data declares ${inPlace.end - inPlace.start} bytes but the file ends before them`);
    raw = bytes.subarray(inPlace.start, inPlace.end);
    if (bigEndian && bitsAllocated === 8 && inPlace.vr === 'OW') raw = swapPairs(raw);
  } else {
    dataSet = parseDataSet(buffer(), file, false);
    const pixelValue = dataSet.dict['7FE00010'];
    const fragments = pixelFragments(pixelValue?.Value ?? []);
    if (NATIVE.has(transferSyntaxUid)) {
      raw = fragments[0] ?? new Uint8Array(0);
      // Big endian OW holds 8-bit samples byte-swapped within each word (PS3.5 7.3 / A.2); dcmjs returns the bytes as stored.
      if (bigEndian && bitsAllocated === 8 && pixelValue?.vr === 'OW') raw = swapPairs(raw);
      if (pixelDataOverruns(bytes, raw.length, transferSyntaxUid)) {
        throw new DicomRejection(file, `truncated file: Pixel Data declares ${raw.length} bytes but the file ends before them`);
      }
    } else if (transferSyntaxUid === RLE) {
      raw = decodeRle(concat(fragments), rows, columns, bitsAllocated, file);
    } else {
      raw = decodeCompressed(transferSyntaxUid, concat(fragments), { rows, columns, bitsAllocated, bitsStored, pixelRepresentation }, file);
    }
  }
  if (raw.length < expected) throw new DicomRejection(file, `truncated pixel data: ${raw.length} bytes where ${rows}×${columns}×${bitsAllocated / 8} = ${expected} are needed`);

  const centers = nums(dict, '00281050');
  const widths = nums(dict, '00281051');
  const explanations = values(dict, '00281055').map(String);
  const windows: VoiWindow[] = [];
  for (let i = 0; i < Math.min(centers.length, widths.length); i++) {
    windows.push({ center: centers[i]!, width: widths[i]!, ...(explanations[i] ? { explanation: explanations[i] } : {}) });
  }
  const fn = text(dict, '00281056')?.toUpperCase();
  const voiLutFunction: VoiLutFunction = fn === 'SIGMOID' ? 'SIGMOID' : fn === 'LINEAR_EXACT' ? 'LINEAR_EXACT' : 'LINEAR';
  const shape = text(dict, '20500020')?.toUpperCase();

  const required = (tag: string, name: string): string => {
    const v = text(dict, tag);
    if (v === null) throw new DicomRejection(file, `missing ${name} (${tag.slice(0, 4)},${tag.slice(4)})`);
    return v;
  };
  return {
    sopInstanceUid: required('00080018', 'SOP Instance UID'),
    studyInstanceUid: required('0020000D', 'Study Instance UID'),
    seriesInstanceUid: required('0020000E', 'Series Instance UID'),
    sopClassUid: text(dict, '00080016') ?? '',
    transferSyntaxUid: deflated ? DEFLATED : transferSyntaxUid,
    patientId: text(dict, '00100020'),
    accession: text(dict, '00080050'),
    viewPosition: text(dict, '00185101'),
    rows,
    columns,
    bitsAllocated,
    bitsStored,
    pixelRepresentation,
    photometric,
    rescaleSlope: num(dict, '00281053') ?? 1,
    rescaleIntercept: num(dict, '00281052') ?? 0,
    windows,
    voiLutFunction,
    presentationLutShape: shape === 'INVERSE' ? 'INVERSE' : shape === 'IDENTITY' ? 'IDENTITY' : null,
    ...lutSequences(dict, file, pixelRepresentation, transferSyntaxUid === '1.2.840.10008.1.2.2'),
    frames,
    ...storedValues(raw, rows * columns, bitsAllocated, bitsStored, pixelRepresentation, bigEndian),
  };
}

/**
 * The Modality and VOI LUT Sequences. The first item of a Modality LUT Sequence replaces the rescale; VOI LUTs
 * take modality values, signed when the stored values are or the rescale can make them negative. An unusable
 * table refuses the file: rendering it some other way would silently change what a model sees.
 */
function lutSequences(dict: Record<string, DcmjsElement>, file: string, pixelRepresentation: 0 | 1, bigEndian: boolean): Pick<DicomImage, 'modalityLut' | 'voiLuts'> {
  const modality = readLutSequence(dict['00283000'], 'Modality LUT Sequence (0028,3000)', pixelRepresentation === 1, bigEndian);
  if (typeof modality === 'string') throw new DicomRejection(file, modality);
  const modalityLut = modality[0] ?? null;
  const negativeModality = modalityLut ? false : pixelRepresentation === 1 || (num(dict, '00281052') ?? 0) < 0 || (num(dict, '00281053') ?? 1) < 0;
  const voiLuts = readLutSequence(dict['00283010'], 'VOI LUT Sequence (0028,3010)', negativeModality, bigEndian);
  if (typeof voiLuts === 'string') throw new DicomRejection(file, voiLuts);
  return { modalityLut, voiLuts };
}

/** One candidate Pixel Data element header in a native file's bytes: where its value starts, its declared length, its VR. */
interface PixelHeader {
  start: number;
  /** null when the file ends inside the header. */
  length: number | null;
  vr: string;
}

/**
 * Every place in the bytes where a Pixel Data tag (7FE0,0010) appears with a header that can be read as one (explicit
 * VR: OB, OW or UN and two zero bytes), in file order.
 */
function* pixelDataHeaders(bytes: Uint8Array, transferSyntaxUid: string): Generator<PixelHeader> {
  const bigEndian = transferSyntaxUid === '1.2.840.10008.1.2.2';
  const explicit = transferSyntaxUid !== '1.2.840.10008.1.2';
  const tag = bigEndian ? [0x7f, 0xe0, 0x00, 0x10] : [0xe0, 0x7f, 0x10, 0x00];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = bytes.indexOf(tag[0]!, 132); at >= 0 && at + 4 <= bytes.length; at = bytes.indexOf(tag[0]!, at + 1)) {
    if (bytes[at + 1] !== tag[1] || bytes[at + 2] !== tag[2] || bytes[at + 3] !== tag[3]) continue;
    // explicit VR: tag, VR, 2 reserved bytes, 4-byte length; implicit VR: tag, 4-byte length
    const start = explicit ? at + 12 : at + 8;
    const vr = explicit && at + 6 <= bytes.length ? String.fromCharCode(bytes[at + 4]!, bytes[at + 5]!) : 'OW';
    if (explicit && at + 8 <= bytes.length && ((vr !== 'OB' && vr !== 'OW' && vr !== 'UN') || bytes[at + 6] !== 0 || bytes[at + 7] !== 0)) continue;
    yield { start, length: start <= bytes.length ? view.getUint32(start - 4, !bigEndian) : null, vr };
  }
}

/**
 * Where the top-level native Pixel Data value lies in the file: the first well-formed Pixel Data header that
 * declares at least the image's bytes — an icon image inside a sequence is smaller, and a chance match in other
 * bytes would also need a plausible header and length. `end` may lie past the file's end (then the file is
 * truncated). Null when no such element is found: the caller then lets dcmjs parse the whole file, which also
 * reports a Pixel Data shorter than the image.
 */
function nativePixelData(bytes: Uint8Array, transferSyntaxUid: string, minimum: number): { start: number; end: number; vr: string } | null {
  for (const h of pixelDataHeaders(bytes, transferSyntaxUid)) {
    if (h.length === null || h.length === 0xffffffff || h.length < minimum) continue;
    return { start: h.start, end: h.start + h.length, vr: h.vr };
  }
  return null;
}

/**
 * Whether the native Pixel Data element runs past the end of the file. dcmjs does not say: it hands back a
 * buffer of the declared length, zero-filled past the end, so a truncated file would silently render black.
 * The element is found as the tag followed by the length dcmjs reported (pixel bytes matching both by chance
 * is negligible); when it cannot be found the check says nothing rather than guess.
 */
function pixelDataOverruns(bytes: Uint8Array, length: number, transferSyntaxUid: string): boolean {
  for (const h of pixelDataHeaders(bytes, transferSyntaxUid)) {
    if (h.length === null) return true;
    if (h.length === length) return h.start + h.length > bytes.length;
  }
  return false;
}

const LITTLE_ENDIAN_MACHINE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

function swapPairs(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length);
  for (let i = 0; i + 1 < bytes.length; i += 2) {
    out[i] = bytes[i + 1]!;
    out[i + 1] = bytes[i]!;
  }
  if (bytes.length % 2 === 1) out[bytes.length - 1] = bytes[bytes.length - 1]!;
  return out;
}

function concat(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

/**
 * The Pixel Data value as byte views, in order. Read with noCopy, dcmjs gives native data as one view and
 * encapsulated data as one entry per frame — a view, an ArrayBuffer, or a list of fragment views when a frame
 * spans several fragments.
 */
function pixelFragments(value: unknown[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  const add = (v: unknown) => {
    if (v instanceof Uint8Array) out.push(v);
    else if (v instanceof ArrayBuffer) out.push(new Uint8Array(v));
    else if (Array.isArray(v)) v.forEach(add);
  };
  value.forEach(add);
  return out;
}

/**
 * The stored values as numbers, with their lowest and highest: bits above Bits Stored are masked off (they may
 * hold overlays or noise) and, for signed data, the top stored bit is sign-extended — reading the raw 16-bit word
 * would be wrong for both. The extremes come from the same pass because the render needs them and a second pass
 * over a 5-megapixel film costs as much as this one.
 */
function storedValues(raw: Uint8Array, count: number, bitsAllocated: number, bitsStored: number, signed: 0 | 1, bigEndian: boolean): Pick<DicomImage, 'pixels' | 'storedRange'> {
  const mask = bitsStored >= 32 ? 0xffffffff : (1 << bitsStored) - 1;
  const signBit = 1 << (bitsStored - 1);
  let min = Infinity;
  let max = -Infinity;
  // The common case (unsigned 16-bit little endian on a little-endian machine): the words are masked where they
  // lie — in the file's own bytes for native pixels (readDicom takes them over), else in dcmjs's copy or the
  // decoder's output — in one typed-array pass: no second 10 MB array and no DataView call per pixel.
  if (!signed && bitsAllocated === 16 && !bigEndian && LITTLE_ENDIAN_MACHINE && raw.byteLength >= count * 2) {
    const words = raw.byteOffset % 2 === 0 ? new Uint16Array(raw.buffer, raw.byteOffset, count) : new Uint16Array(raw.slice(0, count * 2).buffer);
    for (let i = 0; i < count; i++) {
      const v = words[i]! & mask;
      words[i] = v;
      if (v < min) min = v;
      if (v > max) max = v;
    }
    return { pixels: words, storedRange: { min, max } };
  }
  const out = signed ? new Int32Array(count) : bitsAllocated === 8 ? new Uint8Array(count) : new Uint16Array(count);
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  for (let i = 0; i < count; i++) {
    let v = bitsAllocated === 8 ? raw[i]! : view.getUint16(i * 2, !bigEndian);
    v &= mask;
    if (signed && v & signBit) v -= 1 << bitsStored;
    out[i] = v;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return { pixels: out, storedRange: { min, max } };
}
