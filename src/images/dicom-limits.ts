import { inflateRawSync } from 'node:zlib';
import dcmjs from 'dcmjs';

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
   * The bytes of every sequence item, counted once for each level that holds them (what dcmjs copies and scans). A
   * film's sequences hold codes, references and at most an icon image (a few kilobytes to tens of kilobytes).
   */
  maxItemBytes: 64 * 1024 * 1024,
  /**
   * The values of text and number attributes (every VR but the binary OB, OD, OF, OW, UN and SQ), in all. dcmjs
   * makes a JavaScript value of each number and each backslash-separated string: 120 MB of backslashes took 25 s
   * and 2.5 GB. A film's largest are LUT tables (65,536 16-bit entries, 128 KiB each) and texts of a few kilobytes.
   */
  maxValueBytes: 4 * 1024 * 1024,
} as const;

/** The VRs dcmjs reads as one binary value, whatever their length (the others become one JavaScript value per number or string). */
const BINARY_VRS = new Set(['OB', 'OD', 'OF', 'OW', 'UN']);

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

/** How dcmjs reads an element header: its VR (as dcmjs takes it) and whether the length is 32 bits (after 2 reserved bytes). */
const vrCache = new Map<string, { type: string; long: boolean }>();
function vrOf(code: string): { type: string; long: boolean } {
  let vr = vrCache.get(code);
  if (!vr) {
    // dcmjs's own table: an unknown code becomes UN (32-bit length), as dcmjs reads it.
    const parsed = dcmjs.data.ValueRepresentation.createByTypeString(code);
    vr = { type: parsed.type, long: parsed.isLength32() };
    vrCache.set(code, vr);
  }
  return vr;
}

/** The VR the DICOM dictionary gives a tag (dcmjs's dictionary, as dcmjs looks it up), or undefined for an unknown tag. */
function dictionaryVr(group: number, element: number): string | undefined {
  const hex = (n: number) => n.toString(16).toUpperCase().padStart(4, '0');
  return dcmjs.data.DicomMetaDictionary.dictionary[`(${hex(group)},${hex(element)})`]?.vr;
}

const UNDEFINED = 0xffffffff;

/**
 * The file meta group as dcmjs reads it: explicit VR little endian, its length from (0002,0000), which must come
 * first. Null when the group is not there or cut (dcmjs then refuses the file with its own reason).
 */
export function readFileMeta(bytes: Uint8Array): FileMeta | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 144 || view.getUint16(132, true) !== 0x0002 || view.getUint16(134, true) !== 0x0000) return null;
  const dataSetStart = 144 + view.getUint32(140, true);
  if (dataSetStart > bytes.length) return null;
  for (let at = 144; at + 8 <= dataSetStart; ) {
    const element = view.getUint16(at + 2, true);
    const vr = vrOf(String.fromCharCode(bytes[at + 4]!, bytes[at + 5]!));
    const headerLength = vr.long ? 12 : 8;
    if (at + headerLength > dataSetStart) return null;
    const length = vr.long ? view.getUint32(at + 8, true) : view.getUint16(at + 6, true);
    const offset = at + headerLength;
    if (length === UNDEFINED || offset + length > dataSetStart) return null;
    if (element === 0x0010) {
      const transferSyntaxUid = String.fromCharCode(...bytes.subarray(offset, offset + length)).replace(/[^0-9.]/g, '');
      return { dataSetStart, transferSyntaxUid, transferSyntaxValue: { offset, length } };
    }
    at = offset + length;
  }
  return null;
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

/** A container being walked: a data set (the top level or an item), a sequence of items, or encapsulated fragments. */
interface Frame {
  kind: 'data set' | 'sequence' | 'fragments';
  /** Offset just past the container when its length is defined, else null (it ends at a delimiter). */
  end: number | null;
  /** Where an item's bytes start (items only), to count them when it closes. */
  itemStart?: number;
}

/**
 * Walks the data set's elements without reading their values — linear in the number of elements, constant in the
 * size of values — and says why the file must be refused before dcmjs sees it: sequences nested deeper than
 * DICOM_LIMITS.maxSequenceDepth, items holding more than DICOM_LIMITS.maxItemBytes counted per level, or text and
 * number values over DICOM_LIMITS.maxValueBytes. Each element's VR is the one dcmjs reads it with: the file's (a UN
 * of a known tag taking the dictionary's, as dcmjs does), or in implicit VR the dictionary's, an unknown tag being
 * UN — or SQ when its length is undefined. Damaged structure stops the walk without a verdict: dcmjs then gives
 * the file's real error.
 */
export function dataSetLimitProblem(bytes: Uint8Array, start: number, transferSyntaxUid: string): string | null {
  const little = transferSyntaxUid !== '1.2.840.10008.1.2.2';
  const implicit = transferSyntaxUid === '1.2.840.10008.1.2';
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const stack: Frame[] = [{ kind: 'data set', end: bytes.length }];
  let depth = 0;
  let itemBytes = 0;
  let valueBytes = 0;
  let at = start;
  const close = () => {
    const frame = stack.pop()!;
    if (frame.kind === 'sequence') depth--;
    if (frame.itemStart !== undefined) itemBytes += at - frame.itemStart;
  };
  while (stack.length > 0) {
    if (itemBytes > DICOM_LIMITS.maxItemBytes) {
      return `sequence items hold more than ${MiB(DICOM_LIMITS.maxItemBytes)} counted at each level of nesting (the limit; a film's sequences hold kilobytes)`;
    }
    const frame = stack.at(-1)!;
    if (frame.end !== null && at >= frame.end) {
      close();
      continue;
    }
    if (at + 8 > bytes.length) return null;
    const group = view.getUint16(at, little);
    const element = view.getUint16(at + 2, little);
    if (group === 0xfffe) {
      // Item, Item Delimitation and Sequence Delimitation have a 4-byte length and no VR in every syntax.
      const length = view.getUint32(at + 4, little);
      at += 8;
      if (element === 0xe00d && frame.kind === 'data set' && frame.end === null) close();
      else if (element === 0xe0dd && frame.kind !== 'data set') close();
      else if (element === 0xe000 && frame.kind === 'sequence') stack.push({ kind: 'data set', end: length === UNDEFINED ? null : at + length, itemStart: at });
      else if (element === 0xe000 && frame.kind === 'fragments' && length !== UNDEFINED) at += length;
      else return null;
      continue;
    }
    if (frame.kind !== 'data set') return null;
    let vr: string;
    let length: number;
    if (implicit) {
      length = view.getUint32(at + 4, true);
      at += 8;
      const known = dictionaryVr(group, element);
      vr = known ? vrOf(known).type : length === UNDEFINED ? 'SQ' : 'UN';
    } else {
      const code = String.fromCharCode(bytes[at + 4]!, bytes[at + 5]!);
      const { type, long } = vrOf(code);
      if (long && at + 12 > bytes.length) return null;
      length = long ? view.getUint32(at + 8, little) : view.getUint16(at + 6, little);
      at += long ? 12 : 8;
      const known = code === 'UN' ? dictionaryVr(group, element) : undefined;
      vr = known ? vrOf(known).type : type;
    }
    if (vr === 'SQ') {
      if (++depth > DICOM_LIMITS.maxSequenceDepth) {
        return `sequences nested more than ${DICOM_LIMITS.maxSequenceDepth} deep (the limit; radiographs nest at most about 6)`;
      }
      stack.push({ kind: 'sequence', end: length === UNDEFINED ? null : at + length });
    } else if (length === UNDEFINED) {
      stack.push({ kind: 'fragments', end: null });
    } else {
      at += length;
      if (!BINARY_VRS.has(vr) && (valueBytes += length) > DICOM_LIMITS.maxValueBytes) {
        return `text and number attributes hold more than ${MiB(DICOM_LIMITS.maxValueBytes)} (the limit; a film's largest are LUT tables of 128 KiB)`;
      }
    }
  }
  return null;
}
