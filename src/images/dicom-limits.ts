import { inflateRawSync } from 'node:zlib';
import { type Syntax, type TopLevelElement, walkAsDcmjs } from './dcmjs-walk.js';

/**
 * How much a DICOM file may ask of the reader before it is refused. dcmjs parses sequences recursively and copies
 * each item's bytes once for every level that holds it (and scans an undefined-length item byte pair by byte pair
 * to find its end), and inflates a deflated data set without a limit: a file of a few hundred kilobytes could make
 * it work for minutes and hold gigabytes. These bounds are derived from what a real chest film needs (docs/images.md).
 */
export const DICOM_LIMITS = {
  /**
   * The file, a deflated data set once inflated, and the decoded pixels (rows × columns × bytes per sample): a
   * 16-bit 8,192 × 8,192 image. The largest chest detectors give 4,300 × 4,300 (43 × 43 cm at 100 µm), 37 MB.
   */
  maxBytes: 128 * 1024 * 1024,
  /**
   * Sequences inside sequences. Radiograph IODs nest at most 5 deep (Request Attributes > Scheduled Protocol Code >
   * Protocol Context > Content Item Modifier > Concept Name Code), one more inside an Original Attributes Sequence.
   */
  maxSequenceDepth: 32,
  /**
   * The bytes of every sequence item, counted once for each level that holds them (what dcmjs copies and scans),
   * and the whole file (or item) dcmjs copies for an encapsulated value with an offset table. A film's sequences
   * hold codes, references and at most an icon image (a few kilobytes to tens of kilobytes).
   */
  maxItemBytes: 64 * 1024 * 1024,
  /**
   * The values of text and number attributes (every VR but the binary OB, OD, OF, OW, UN and SQ), in all. dcmjs
   * makes a JavaScript value of each number and each backslash-separated string: 120 MB of backslashes took 25 s
   * and 2.5 GB. A film's largest are LUT tables (65,536 16-bit entries, 128 KiB each) and texts of a few kilobytes.
   */
  maxValueBytes: 4 * 1024 * 1024,
  /**
   * Attributes, sequence items and fragments, in all and at every level (with each word dcmjs skips inside a
   * sequence). dcmjs makes an object of each: a million empty attributes (8 MB) took 3–5 s and 500 MB, as many empty
   * fragments 0.8 s and 600 MB. A film has a few hundred attributes, a few thousand with private ones.
   */
  maxElements: 100_000,
} as const;

const MiB = (n: number) => `${Math.round(n / (1024 * 1024))} MiB`;

/** Why a file of `size` bytes is not read, or null when it is within DICOM_LIMITS.maxBytes. */
export function fileSizeProblem(size: number): string | null {
  return size > DICOM_LIMITS.maxBytes ? `file of ${MiB(size)} is larger than the ${MiB(DICOM_LIMITS.maxBytes)} limit for one image: not read` : null;
}

/** Where a Part 10 file's meta group ends and what it says the data set's transfer syntax is. */
export interface FileMeta {
  /** Offset of the first byte after the meta group: the data set. */
  dataSetStart: number;
  transferSyntaxUid: string;
  /** Where the Transfer Syntax UID's value lies in the file and its length (to rewrite it in place). */
  transferSyntaxValue: { offset: number; length: number };
}

/** Explicit VR little endian: the file meta group's syntax in every file. */
const EXPLICIT_LITTLE: Syntax = { littleEndian: true, implicit: false };

/**
 * The file meta group as dcmjs reads it: (0002,0000) first, its value (a UL here, as in every file) the group's
 * length; the group's elements read like any data set (and within the same limits); the Transfer Syntax UID the
 * last (0002,0010) at its top level, as dcmjs keeps the last of a tag, and as dcmjs parses a UI: the part before a
 * backslash, without characters other than digits and dots. A string says why the file is refused: the group is
 * not there, cut, unreadable for dcmjs, without a UI Transfer Syntax UID, or over the limits.
 */
export function readFileMeta(bytes: Uint8Array): FileMeta | string {
  const unreadable = 'no readable file meta information (group 0002, starting with its group length, and a Transfer Syntax UID)';
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const code = (at: number) => String.fromCharCode(bytes[at]!, bytes[at + 1]!);
  if (bytes.length < 144 || view.getUint16(132, true) !== 0x0002 || view.getUint16(134, true) !== 0x0000 || code(136) !== 'UL' || view.getUint16(138, true) !== 4) {
    return unreadable;
  }
  const dataSetStart = 144 + view.getUint32(140, true);
  if (dataSetStart > bytes.length) return unreadable;
  const syntaxElements: TopLevelElement[] = [];
  const outcome = walkAsDcmjs(bytes, { start: 144, from: 144, end: dataSetStart, name: 'the file meta information' }, EXPLICIT_LITTLE, DICOM_LIMITS, (element) => {
    if (element.group === 0x0002 && element.element === 0x0010) syntaxElements.push(element);
  });
  if (typeof outcome === 'object') return outcome.refused;
  const found = syntaxElements.at(-1);
  if (!found || found.code !== 'UI') return unreadable;
  const { valueStart: offset, length } = found;
  const transferSyntaxUid = Buffer.from(bytes.buffer, bytes.byteOffset + offset, length).toString('latin1').split('\\')[0]!.replace(/[^0-9.]/g, '');
  return { dataSetStart, transferSyntaxUid, transferSyntaxValue: { offset, length } };
}

/**
 * The data set of a Deflated Explicit VR Little Endian file, inflated with a cap, as the same file in Explicit VR
 * Little Endian (the meta group kept, its Transfer Syntax UID rewritten in place, NUL-padded to its length). A
 * string when it is refused: inflating past the cap, or a damaged deflate stream.
 */
export function inflateDeflatedFile(bytes: Uint8Array, meta: FileMeta): Uint8Array | string {
  let inflated: Buffer;
  try {
    inflated = inflateRawSync(bytes.subarray(meta.dataSetStart), { maxOutputLength: DICOM_LIMITS.maxBytes });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      return `the deflated data set inflates to more than ${MiB(DICOM_LIMITS.maxBytes)} (the limit for one file; a deflate bomb?)`;
    }
    return `the deflated data set cannot be inflated (${(error as Error).message})`;
  }
  const out = new Uint8Array(meta.dataSetStart + inflated.length);
  out.set(bytes.subarray(0, meta.dataSetStart));
  out.set(inflated, meta.dataSetStart);
  const uid = '1.2.840.10008.1.2.1';
  const { offset, length } = meta.transferSyntaxValue;
  for (let i = 0; i < length; i++) out[offset + i] = i < uid.length ? uid.charCodeAt(i) : 0;
  return out;
}

/** What the walk of a data set found: why it is refused, or where its top-level Pixel Data's tag is (null: none). */
export type DataSetCheck = { refused: string } | { pixelDataAt: number | null };

/**
 * Whether the data set that starts at `start` must be refused before dcmjs reads it. It is walked as dcmjs reads
 * it (dcmjs-walk.ts: the same bytes, read as the same things) without reading values — linear in the file — and
 * refused when dcmjs would nest sequences deeper than DICOM_LIMITS.maxSequenceDepth, copy more than
 * DICOM_LIMITS.maxItemBytes of items, make values of more than DICOM_LIMITS.maxValueBytes of text and numbers or
 * objects of more than DICOM_LIMITS.maxElements parts — or read anything the walk does not follow: past the end of
 * an item or sequence (damaged, or a zero-filled read dcmjs would go on with), a multi-frame offset table, a UN of
 * undefined length. Each reason names what was found. Else it says where the first top-level Pixel Data begins:
 * where dcmjs stops when told to read up to it.
 */
export function checkDataSet(bytes: Uint8Array, start: number, transferSyntaxUid: string): DataSetCheck {
  const syntax: Syntax = { littleEndian: transferSyntaxUid !== '1.2.840.10008.1.2.2', implicit: transferSyntaxUid === '1.2.840.10008.1.2' };
  let pixelDataAt: number | null = null;
  const outcome = walkAsDcmjs(bytes, { start: 0, from: start, end: bytes.length, name: 'the file' }, syntax, DICOM_LIMITS, (element) => {
    if (pixelDataAt === null && element.group === 0x7fe0 && element.element === 0x0010) pixelDataAt = element.at;
  });
  return typeof outcome === 'object' ? outcome : { pixelDataAt };
}
