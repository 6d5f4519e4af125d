import { constants, deflateRawSync } from 'node:zlib';

/**
 * DICOM Part 10 files built byte by byte in explicit VR little endian: a small valid image, and the hostile shapes
 * of it the probe found (sequences nested thousands deep, a deflate bomb, a UID too long for a file name). Built
 * here rather than with dcmtk: dcmtk refuses to write most of them, and the bytes must be exactly the hostile ones.
 */

const LONG_VRS = new Set(['OB', 'OW', 'OF', 'SQ', 'UN', 'UT', 'UC', 'UR']);

/** One explicit VR little endian element; the value is padded to an even length (UI with NUL, text with a space). */
export function element(group: number, elementNumber: number, vr: string, value: Buffer | string): Buffer {
  let bytes = typeof value === 'string' ? Buffer.from(value, 'latin1') : value;
  if (bytes.length % 2 === 1) bytes = Buffer.concat([bytes, Buffer.from([vr === 'UI' || vr === 'OB' ? 0 : 0x20])]);
  const head = Buffer.alloc(LONG_VRS.has(vr) ? 12 : 8);
  head.writeUInt16LE(group, 0);
  head.writeUInt16LE(elementNumber, 2);
  head.write(vr, 4, 'latin1');
  if (LONG_VRS.has(vr)) head.writeUInt32LE(bytes.length, 8);
  else head.writeUInt16LE(bytes.length, 6);
  return Buffer.concat([head, bytes]);
}

function us(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(n);
  return b;
}

/** Preamble, "DICM" and a file meta group of `elements` (after its group length, which is computed). */
function metaGroup(elements: Buffer[]): Buffer {
  const group = Buffer.concat(elements);
  const length = Buffer.alloc(4);
  length.writeUInt32LE(group.length);
  return Buffer.concat([Buffer.alloc(128), Buffer.from('DICM', 'latin1'), element(0x0002, 0x0000, 'UL', length), group]);
}

/** The usual meta elements before the Transfer Syntax UID. */
function metaHead(sopInstanceUid: string): Buffer[] {
  return [element(0x0002, 0x0001, 'OB', Buffer.from([0, 1])), element(0x0002, 0x0002, 'UI', '1.2.840.10008.5.1.4.1.1.1.1'), element(0x0002, 0x0003, 'UI', sopInstanceUid)];
}

/** Preamble, "DICM" and the file meta group (with its group length) for a transfer syntax. */
function fileMeta(transferSyntaxUid: string, sopInstanceUid: string): Buffer {
  return metaGroup([...metaHead(sopInstanceUid), element(0x0002, 0x0010, 'UI', transferSyntaxUid)]);
}

/**
 * A file whose meta group holds `transferSyntax` — one or more Transfer Syntax UID elements, or one value with a
 * backslash — then `after` (more meta elements), and whose data set is `dataSet` as given (any syntax).
 */
export function withMeta(transferSyntax: Buffer[], after: Buffer[], dataSet: Buffer): Buffer {
  return Buffer.concat([metaGroup([...metaHead('1.2.826.0.1.3680043.10.99.1'), ...transferSyntax, ...after]), dataSet]);
}

/** What the small test image is made of; every field may be overridden. */
export interface SmallImage {
  sopInstanceUid: string;
  /** Bytes placed after the SOP Instance UID, in tag order before (0010,0020) (e.g. nested sequences). */
  extra: Buffer;
  patientId: string;
  rows: number;
  columns: number;
}

/** The data set of a 16 × 16 8-bit MONOCHROME2 image (a ramp), in explicit VR little endian: before and after `extra`. */
function smallDataSetParts(overrides: Partial<SmallImage> = {}): [Buffer, Buffer] {
  const image: SmallImage = { sopInstanceUid: '1.2.826.0.1.3680043.10.99.1', extra: Buffer.alloc(0), patientId: 'P1', rows: 16, columns: 16, ...overrides };
  const pixels = Buffer.alloc(image.rows * image.columns);
  for (let i = 0; i < pixels.length; i++) pixels[i] = i % 256;
  const head = Buffer.concat([element(0x0008, 0x0016, 'UI', '1.2.840.10008.5.1.4.1.1.1.1'), element(0x0008, 0x0018, 'UI', image.sopInstanceUid), image.extra]);
  return [head, Buffer.concat([
    element(0x0010, 0x0020, 'LO', image.patientId),
    element(0x0020, 0x000d, 'UI', '1.2.826.0.1.3680043.10.99.2'),
    element(0x0020, 0x000e, 'UI', '1.2.826.0.1.3680043.10.99.3'),
    element(0x0028, 0x0002, 'US', us(1)),
    element(0x0028, 0x0004, 'CS', 'MONOCHROME2'),
    element(0x0028, 0x0010, 'US', us(image.rows)),
    element(0x0028, 0x0011, 'US', us(image.columns)),
    element(0x0028, 0x0100, 'US', us(8)),
    element(0x0028, 0x0101, 'US', us(8)),
    element(0x0028, 0x0102, 'US', us(7)),
    element(0x0028, 0x0103, 'US', us(0)),
    element(0x7fe0, 0x0010, 'OB', pixels),
  ])];
}

/** The data set of a 16 × 16 8-bit MONOCHROME2 image (a ramp), in explicit VR little endian. */
export function smallDataSet(overrides: Partial<SmallImage> = {}): Buffer {
  return Buffer.concat(smallDataSetParts(overrides));
}

/** A small valid explicit VR little endian file (16 × 16, 8-bit). */
export function smallDicom(overrides: Partial<SmallImage> = {}): Buffer {
  return Buffer.concat([fileMeta('1.2.840.10008.1.2.1', overrides.sopInstanceUid ?? '1.2.826.0.1.3680043.10.99.1'), smallDataSet(overrides)]);
}

const ITEM_OF_UNDEFINED_LENGTH = Buffer.from([0xfe, 0xff, 0x00, 0xe0, 0xff, 0xff, 0xff, 0xff]);
const ITEM_END = Buffer.from([0xfe, 0xff, 0x0d, 0xe0, 0, 0, 0, 0]);
const SEQUENCE_END = Buffer.from([0xfe, 0xff, 0xdd, 0xe0, 0, 0, 0, 0]);

/**
 * `depth` Referenced Image Sequences (0008,1140) nested one inside the other's only item, every sequence and
 * item of undefined length (closed by delimiters), as dcmjs reads most slowly: it scans and copies each item to
 * find its end, once per level. `innermost` goes inside the innermost item (e.g. a large value). In implicit VR
 * the sequences' headers have no VR (the dictionary says SQ).
 */
export function nestedSequences(depth: number, innermost: Buffer = Buffer.alloc(0), syntax: 'explicit' | 'implicit' = 'explicit'): Buffer {
  const header = syntax === 'explicit' ? [0x08, 0x00, 0x40, 0x11, 0x53, 0x51, 0, 0, 0xff, 0xff, 0xff, 0xff] : [0x08, 0x00, 0x40, 0x11, 0xff, 0xff, 0xff, 0xff];
  const open = Buffer.concat([Buffer.from(header), ITEM_OF_UNDEFINED_LENGTH]);
  const close = Buffer.concat([ITEM_END, SEQUENCE_END]);
  return Buffer.concat([...Array<Buffer>(depth).fill(open), innermost, ...Array<Buffer>(depth).fill(close)]);
}

/**
 * `levels` Referenced Image Sequences (or sequences of `tag`) of defined length nested one inside the other's only
 * item (of defined length), `innermost` inside the innermost: dcmjs copies it once per level.
 */
export function nestedDefinedLength(levels: number, innermost: Buffer, tag: [number, number] = [0x0008, 0x1140]): Buffer {
  let inner = innermost;
  for (let i = 0; i < levels; i++) {
    const item = Buffer.from([0xfe, 0xff, 0x00, 0xe0, 0, 0, 0, 0]);
    item.writeUInt32LE(inner.length, 4);
    inner = element(tag[0], tag[1], 'SQ', Buffer.concat([item, inner]));
  }
  return inner;
}

/**
 * `nestedSequences(…)` with a word that is not an item tag after the first sequence's header: dcmjs's
 * SequenceOfItems skips any such 4-byte word and reads on, so the sequences below it are parsed all the same.
 */
export function withStrayWord(nested: Buffer): Buffer {
  return Buffer.concat([nested.subarray(0, 12), Buffer.from([1, 2, 3, 4]), nested.subarray(12)]);
}

/**
 * A Referenced Image Sequence whose first item, read element by element, holds one long text (UC) covering
 * `hidden` — but dcmjs ends an item of undefined length at the first Item Delimitation Item its two-bytes-at-a-time
 * scan meets, values included: at the one the text begins with. The item it parses is the text's header (the
 * value cut to nothing at the item's end), and the sequence reads on inside the text: an item holding `hidden`.
 */
export function sequenceHiddenInText(hidden: Buffer): Buffer {
  const inText = Buffer.concat([ITEM_END, ITEM_OF_UNDEFINED_LENGTH, hidden, ITEM_END]);
  const firstItem = Buffer.concat([ITEM_OF_UNDEFINED_LENGTH, element(0x0008, 0x0119, 'UC', inText), ITEM_END]);
  const header = Buffer.from([0x08, 0x00, 0x40, 0x11, 0x53, 0x51, 0, 0, 0xff, 0xff, 0xff, 0xff]);
  return Buffer.concat([header, firstItem, SEQUENCE_END]);
}

/**
 * A Referenced Image Sequence whose one item of undefined length, read element by element, holds one long text
 * (UT) — but dcmjs counts an Item Delimitation Item of non-zero length inside it as 2 bytes where it skips 4, and
 * parses a copy of the item starting 2 bytes late: there the text's header reads as an empty UN and its value as
 * `hidden` (then one more empty UN). `hidden` must leave the text under 64 KiB and hold balanced items.
 */
export function sequenceBehindShiftedItem(hidden: Buffer): Buffer {
  const strayDelimiter = Buffer.from([0xfe, 0xff, 0x0d, 0xe0, 2, 0, 0, 0, 0, 0, 0, 0]);
  const text = element(0x0009, 0x1011, 'UT', Buffer.concat([Buffer.alloc(2), hidden, strayDelimiter]));
  if (text.length - 12 >= 0x10000) throw new Error('the hidden bytes must leave the text under 64 KiB');
  const header = Buffer.from([0x08, 0x00, 0x40, 0x11, 0x53, 0x51, 0, 0, 0xff, 0xff, 0xff, 0xff]);
  return Buffer.concat([header, ITEM_OF_UNDEFINED_LENGTH, text, ITEM_END, SEQUENCE_END]);
}

/**
 * A private OB (0009,1010) of undefined length — encapsulated fragments — whose Basic Offset Table lists `frames`
 * frames (all at 0), then one fragment of `fragmentBytes`: dcmjs copies the whole file once per listed frame.
 */
export function encapsulatedWithOffsetTable(frames: number, fragmentBytes: number): Buffer {
  const item = (length: number) => {
    const head = Buffer.from(ITEM_OF_UNDEFINED_LENGTH);
    head.writeUInt32LE(length, 4);
    return head;
  };
  const header = Buffer.from([0x09, 0x00, 0x10, 0x10, 0x4f, 0x42, 0, 0, 0xff, 0xff, 0xff, 0xff]);
  return Buffer.concat([header, item(4 * frames), Buffer.alloc(4 * frames), item(fragmentBytes), Buffer.alloc(fragmentBytes), SEQUENCE_END]);
}

/** `count` empty private LO attributes, (0009,0000) on, each tag different: dcmjs makes an object of each. */
export function manyAttributes(count: number): Buffer {
  const out = Buffer.alloc(8 * count);
  for (let i = 0; i < count; i++) {
    out.writeUInt16LE(0x0009 + 2 * Math.floor(i / 0x10000), 8 * i);
    out.writeUInt16LE(i % 0x10000, 8 * i + 2);
    out.write('LO', 8 * i + 4, 'latin1');
  }
  return out;
}

/**
 * A Deflated Explicit VR Little Endian file whose data set inflates to the small image's attributes followed by
 * an OB element of `inflatedMiB` MiB of zeros: about 1 kB of deflate stream per MiB. The stream is built from one
 * compressed MiB repeated (each piece ends on a sync flush, so pieces can follow each other) and a final empty block.
 */
export function deflateBomb(inflatedMiB: number): Buffer {
  const [head, tail] = smallDataSetParts();
  const bomb = Buffer.alloc(12);
  bomb.writeUInt16LE(0x0009, 0); // a private group: any reader skips it
  bomb.writeUInt16LE(0x1010, 2);
  bomb.write('OB', 4, 'latin1');
  bomb.writeUInt32LE(inflatedMiB * 1024 * 1024, 8);
  const sync = { finishFlush: constants.Z_SYNC_FLUSH };
  const zeros = deflateRawSync(Buffer.alloc(1024 * 1024), sync);
  // the bomb's element sits among the attributes, before the image pixel module (a reader meets it first)
  const stream = Buffer.concat([deflateRawSync(Buffer.concat([head, bomb]), sync), ...Array<Buffer>(inflatedMiB).fill(zeros), deflateRawSync(tail, { finishFlush: constants.Z_FINISH })]);
  return Buffer.concat([fileMeta('1.2.840.10008.1.2.1.99', '1.2.826.0.1.3680043.10.99.1'), stream]);
}

/** A well-formed deflated copy of the small image (a control: the limits must not refuse it). */
export function deflatedSmallDicom(): Buffer {
  return Buffer.concat([fileMeta('1.2.840.10008.1.2.1.99', '1.2.826.0.1.3680043.10.99.1'), deflateRawSync(smallDataSet())]);
}

/**
 * An RLE Lossless file whose data set claims `rows` × `columns` 16-bit pixels, with a frame of one short segment:
 * a decoder that believes the header allocates rows × columns × 2 bytes before it finds the frame too short.
 */
export function rleClaiming(rows: number, columns: number): Buffer {
  const frame = Buffer.alloc(64 + 4);
  frame.writeUInt32LE(2, 0); // two segments (16-bit), both at the same place: it only has to reach the decoder
  frame.writeUInt32LE(64, 4);
  frame.writeUInt32LE(64, 8);
  frame.set([0x81, 0x00, 0x81, 0x00], 64); // two runs of 128 zeros
  const item = (bytes: Buffer) => {
    const head = Buffer.from([0xfe, 0xff, 0x00, 0xe0, 0, 0, 0, 0]);
    head.writeUInt32LE(bytes.length, 4);
    return Buffer.concat([head, bytes]);
  };
  const pixelData = Buffer.concat([
    Buffer.from([0xe0, 0x7f, 0x10, 0x00, 0x4f, 0x42, 0, 0, 0xff, 0xff, 0xff, 0xff]),
    item(Buffer.alloc(0)),
    item(frame),
    Buffer.from([0xfe, 0xff, 0xdd, 0xe0, 0, 0, 0, 0]),
  ]);
  const [head] = smallDataSetParts();
  const attributes = Buffer.concat([
    head,
    element(0x0010, 0x0020, 'LO', 'P1'),
    element(0x0020, 0x000d, 'UI', '1.2.826.0.1.3680043.10.99.2'),
    element(0x0020, 0x000e, 'UI', '1.2.826.0.1.3680043.10.99.3'),
    element(0x0028, 0x0002, 'US', us(1)),
    element(0x0028, 0x0004, 'CS', 'MONOCHROME2'),
    element(0x0028, 0x0010, 'US', us(rows)),
    element(0x0028, 0x0011, 'US', us(columns)),
    element(0x0028, 0x0100, 'US', us(16)),
    element(0x0028, 0x0101, 'US', us(16)),
    element(0x0028, 0x0102, 'US', us(15)),
    element(0x0028, 0x0103, 'US', us(0)),
  ]);
  return Buffer.concat([fileMeta('1.2.840.10008.1.2.5', '1.2.826.0.1.3680043.10.99.1'), attributes, pixelData]);
}
