import dcmjs from 'dcmjs';

/**
 * How dcmjs 0.52 reads a stream of DICOM elements (DicomMessage._read and _readTag, SequenceOfItems.readBytes,
 * BinaryRepresentation.readBytes), followed step by step without making any value, so that a limit checked here
 * bounds what dcmjs will do: the walk reaches exactly the bytes dcmjs reaches, in the same order, and reads them as
 * the same things. This matters because dcmjs is lenient in ways a reader of the standard would not guess — it
 * skips any 4-byte word in a sequence that is not an item tag, finds the end of an item of undefined length by
 * scanning its bytes two at a time for a delimiter (inside values too), ends a sequence of defined length only when
 * its count hits the length exactly, reads a number value of 3 bytes as 4, reads a UN element of a known tag again
 * as the dictionary's VR (a sequence included) — and a walk that read the file "correctly" instead would check one
 * structure while dcmjs parsed another. Wherever dcmjs would read past the end of a stream — where it throws, or
 * where it reads on with zeros (a read that starts before the end is zero-filled past it) — and wherever following
 * dcmjs would mean following a zero-filled copy or a per-frame copy of the whole file, the walk stops and the file
 * is refused, naming what was found: nothing the walk has not followed reaches dcmjs. (Only a few bytes after the
 * last attribute of the file, too few for a header, are let through: dcmjs stops or throws there, reading nothing
 * else.)
 */

/** The dcmjs release whose parser the walk follows: another one must be read again before it is used (a test checks). */
export const DCMJS_VERSION_FOLLOWED = '0.52.0';

/** The bounds a walk enforces (DICOM_LIMITS; see there why each is what it is). */
export interface WalkLimits {
  maxSequenceDepth: number;
  maxItemBytes: number;
  maxValueBytes: number;
  maxElements: number;
}

/** How the walked stream is encoded (dcmjs reads every transfer syntax but these two as explicit VR little endian). */
export interface Syntax {
  littleEndian: boolean;
  implicit: boolean;
}

/** One element read at the top level of the walked stream (not inside a sequence). */
export interface TopLevelElement {
  /** Where its header begins. */
  at: number;
  group: number;
  element: number;
  /** The VR as written in the file (explicit VR), or null in implicit VR. */
  code: string | null;
  valueStart: number;
  length: number;
}

/** How a walk ended: the file is refused (why), or dcmjs reads the stream as walked, within the limits. */
export type WalkOutcome = { refused: string } | 'read';

/**
 * The stream walked: dcmjs's stream holds bytes [start, end) (the file's from 0, the meta group's from 144), its
 * elements are read from `from` on, and a reason calls it `name` ("the file").
 */
export interface Stream {
  start: number;
  from: number;
  end: number;
  name: string;
}

/** How dcmjs reads a value of a VR: a sequence, one binary copy (OB, OD, OF, OW, UN), numbers of `unit` bytes, or text. */
interface Vr {
  type: string;
  /** A 32-bit length after 2 reserved bytes, in explicit VR. */
  long: boolean;
  kind: 'sequence' | 'binary' | 'number' | 'text';
  unit: number;
  /** UI: dcmjs peeks at the value's last byte first, which throws when the value runs past the stream. */
  peeksLastByte: boolean;
}

const BINARY_TYPES = new Set(['OB', 'OD', 'OF', 'OW', 'UN']);
const vrCache = new Map<string, Vr>();

/** The VR dcmjs reads a code as (its own table: an unknown code, or none, becomes UN). */
function dcmjsVr(code: string | undefined): Vr {
  const key = String(code);
  let vr = vrCache.get(key);
  if (!vr) {
    const parsed = dcmjs.data.ValueRepresentation.createByTypeString(code);
    const kind = parsed.type === 'SQ' ? 'sequence' : parsed.isBinary() ? 'number' : BINARY_TYPES.has(parsed.type) ? 'binary' : 'text';
    vr = { type: parsed.type, long: parsed.isLength32(), kind, unit: parsed.maxLength ?? 1, peeksLastByte: parsed.type === 'UI' };
    vrCache.set(key, vr);
  }
  return vr;
}

const hex = (n: number) => n.toString(16).toUpperCase().padStart(4, '0');
const tagName = (group: number, element: number) => `(${hex(group)},${hex(element)})`;

/** The dictionary entry dcmjs looks a tag up by (DicomMessage.lookupTag), or undefined for a tag it does not know. */
function dictionaryEntry(group: number, element: number): { vr?: string } | undefined {
  return dcmjs.data.DicomMetaDictionary.dictionary[tagName(group, element)];
}

const UNDEFINED = 0xffffffff;
const ITEM = 0xe000;
const ITEM_END = 0xe00d;
const SEQUENCE_END = 0xe0dd;
const MiB = (n: number) => `${Math.round(n / (1024 * 1024))} MiB`;

/** A data set being read: the file's (or the meta group's) or an item's, each item being its own copy in dcmjs. */
interface DataSetFrame {
  kind: 'data set';
  /** The stream dcmjs reads the data set from (strings stop at `end`; any other read past it is refused). */
  start: number;
  end: number;
  /** Where the stream holding the item goes on once the item is read; null for the walked stream itself. */
  resume: number | null;
  /** What to call the stream in a reason. */
  name: string;
}

/** A sequence being read (SequenceOfItems.readBytes), from the stream of the data set that holds it. */
interface SequenceFrame {
  kind: 'sequence';
  tag: string;
  /** The stream the sequence is read from ends at `end`; `name` is what to call it in a reason. */
  end: number;
  name: string;
  /** The sequence's length (UNDEFINED when it has none) and dcmjs's count of the bytes it read, compared with `===`. */
  length: number;
  read: number;
  littleEndian: boolean;
  /** For a UN element read as a sequence (its own copy): where the holding stream goes on. Else null. */
  resume: number | null;
}

type Frame = DataSetFrame | SequenceFrame;

/** undefined: go on; a string: refuse the file for that reason. */
type Step = undefined | string;

class DcmjsWalk {
  private readonly view: DataView;
  private readonly stack: Frame[] = [];
  private at = 0;
  private depth = 0;
  private itemBytes = 0;
  private valueBytes = 0;
  private elements = 0;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly syntax: Syntax,
    private readonly limits: WalkLimits,
    private readonly stream: Stream,
    private readonly onTopLevel?: (element: TopLevelElement) => void,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  run(): WalkOutcome {
    this.at = this.stream.from;
    this.stack.push({ kind: 'data set', start: this.stream.start, end: this.stream.end, resume: null, name: this.stream.name });
    while (this.stack.length > 0) {
      const frame = this.stack.at(-1)!;
      const step = frame.kind === 'sequence' ? this.sequenceWord(frame) : this.at >= frame.end ? this.closeDataSet(frame) : this.element(frame);
      if (step !== undefined) return { refused: step };
    }
    return 'read';
  }

  private countElement(): Step {
    if (++this.elements > this.limits.maxElements) {
      return `more than ${this.limits.maxElements.toLocaleString('en')} attributes, sequence items and fragments (the limit; a film has a few thousand at most)`;
    }
    return undefined;
  }

  private countValue(bytes: number): Step {
    if ((this.valueBytes += bytes) > this.limits.maxValueBytes) {
      return `text and number attributes hold more than ${MiB(this.limits.maxValueBytes)} (the limit; a film's largest are LUT tables of 128 KiB)`;
    }
    return undefined;
  }

  private countItem(bytes: number): Step {
    if ((this.itemBytes += bytes) > this.limits.maxItemBytes) {
      return `sequence items hold more than ${MiB(this.limits.maxItemBytes)} counted at each level of nesting (the limit; a film's sequences hold kilobytes)`;
    }
    return undefined;
  }

  private openSequence(frame: Omit<SequenceFrame, 'kind' | 'read'>): Step {
    // dcmjs returns an empty sequence for length 0 without reading anything
    if (frame.length === 0) return undefined;
    if (++this.depth > this.limits.maxSequenceDepth) {
      return `sequences nested more than ${this.limits.maxSequenceDepth} deep (the limit; radiographs nest at most about 6)`;
    }
    this.stack.push({ kind: 'sequence', read: 0, ...frame });
    return undefined;
  }

  private closeSequence(): void {
    const frame = this.stack.pop() as SequenceFrame;
    this.depth--;
    if (frame.resume !== null) this.at = frame.resume;
  }

  private closeDataSet(frame: DataSetFrame): Step {
    this.stack.pop();
    if (frame.resume === null) return undefined;
    this.at = frame.resume;
    return this.afterItem(this.stack.at(-1) as SequenceFrame);
  }

  /** After each item, dcmjs ends a sequence of defined length when its count equals the length exactly. */
  private afterItem(sequence: SequenceFrame): Step {
    if (sequence.length !== UNDEFINED && sequence.read === sequence.length) this.closeSequence();
    return undefined;
  }

  /** One element of a data set (DicomMessage._readTag): its header, then its value as its VR has dcmjs read it. */
  private element(frame: DataSetFrame): Step {
    const { view, syntax } = this;
    const little = syntax.littleEndian;
    const at = this.at;
    if (at + 8 > frame.end) return this.cutHeader(frame);
    const group = view.getUint16(at, little);
    const element = view.getUint16(at + 2, little);
    let vr: Vr;
    let length: number;
    let code: string | null = null;
    // a UN element of a tag in the dictionary: dcmjs copies the value, then reads the copy as the dictionary's VR
    let readAgainAs: Vr | null = null;
    if (syntax.implicit) {
      length = view.getUint32(at + 4, little);
      this.at = at + 8;
      const entry = dictionaryEntry(group, element);
      const privateCreator = group % 2 === 1 && element > 0 && element < 0x100;
      const unknown = length === UNDEFINED ? 'SQ' : group === 0x7fe0 && element === 0x0010 ? 'OW' : privateCreator ? 'LO' : 'UN';
      vr = dcmjsVr(entry ? entry.vr : unknown);
    } else {
      code = String.fromCharCode(this.bytes[at + 4]!, this.bytes[at + 5]!);
      const known = code === 'UN' ? dictionaryEntry(group, element)?.vr : undefined;
      if (known) readAgainAs = dcmjsVr(known);
      vr = dcmjsVr(code);
      if (vr.long) {
        if (at + 12 > frame.end) return this.cutHeader(frame);
        length = view.getUint32(at + 8, little);
        this.at = at + 12;
      } else {
        length = view.getUint16(at + 6, little);
        this.at = at + 8;
      }
    }
    const counted = this.countElement();
    if (counted) return counted;
    if (frame.resume === null) this.onTopLevel?.({ at, group, element, code, valueStart: this.at, length });
    const tag = tagName(group, element);
    const remaining = frame.end - this.at;
    const pastEnd = `${tag} ${vr.type} of ${length === UNDEFINED ? 'undefined length' : `${length} bytes`} runs past the end of ${frame.name}`;
    if (readAgainAs) return this.unknownValue(frame, tag, readAgainAs, length, remaining, pastEnd);
    switch (vr.kind) {
      case 'sequence':
        return this.openSequence({ tag, end: frame.end, name: frame.name, length, littleEndian: little, resume: null });
      case 'binary':
        return length === UNDEFINED ? this.fragments(frame, tag, vr) : this.binary(frame, length, remaining, pastEnd);
      case 'number': {
        // read as ceil(length / unit) numbers of `unit` bytes each (a 3-byte US is read as 4 bytes)
        const read = length === 0 ? 0 : Math.ceil(length / vr.unit) * vr.unit;
        const counted = this.countValue(Math.min(read, remaining));
        if (counted) return counted;
        if (read > remaining) return pastEnd;
        this.at += read;
        return undefined;
      }
      case 'text': {
        if (vr.peeksLastByte && length > remaining) return pastEnd;
        // dcmjs cuts a string at the end of its stream (an undefined length reads the rest of it)
        const read = Math.min(length, remaining);
        this.at += read;
        return this.countValue(read);
      }
    }
  }

  /**
   * At the top of the walked stream, fewer bytes than a header are left: dcmjs reads them zero-filled and stops
   * (its value starts past the end: empty, or a read that throws), reading no other byte. Elsewhere a refusal.
   */
  private cutHeader(frame: DataSetFrame): Step {
    if (frame.resume === null) {
      this.at = frame.end;
      return undefined;
    }
    const at = this.at;
    const what = at + 4 <= frame.end ? `the header of ${tagName(this.view.getUint16(at, this.syntax.littleEndian), this.view.getUint16(at + 2, this.syntax.littleEndian))}` : 'an attribute\'s tag';
    return `${frame.name} ends inside ${what}`;
  }

  /** A binary value of defined length: copied as it is; past the end of its stream, into a buffer of the declared length. */
  private binary(frame: DataSetFrame, length: number, remaining: number, pastEnd: string): Step {
    if (length <= remaining) {
      this.at += length;
      return undefined;
    }
    // In the walked stream itself this is the end: one zero-filled buffer (untouched past the end of the file) or
    // a read that throws, and readDicom reports a truncated Pixel Data. In an item it could be one buffer per item,
    // each of up to 4 GiB.
    if (frame.resume === null) {
      this.at = frame.end;
      return undefined;
    }
    return pastEnd;
  }

  /**
   * A UN element of a tag in the dictionary (explicit VR): dcmjs copies `length` bytes and reads the copy as the
   * dictionary's VR — a sequence's words little endian whatever the file's syntax — the holding stream going on
   * after the copy.
   */
  private unknownValue(frame: DataSetFrame, tag: string, vr: Vr, length: number, remaining: number, pastEnd: string): Step {
    if (length === UNDEFINED) {
      return `${tag} is UN of undefined length (a sequence in implicit VR), which dcmjs does not read as a sequence: not read`;
    }
    // past the end the copy would be zero-filled to the declared length and read as that VR: 4 GiB of zeros
    if (length > remaining) return pastEnd;
    switch (vr.kind) {
      case 'sequence': {
        if (length === 0) return undefined;
        const copied = this.countItem(length);
        if (copied) return copied;
        const end = this.at + length;
        return this.openSequence({ tag, end, name: `the value of ${tag}`, length, littleEndian: true, resume: end });
      }
      case 'number':
      case 'text':
        // (numbers are read from the copy in whole units, a last one cut short zero-filled: the stream goes on after it)
        this.at += length;
        return this.countValue(length);
      case 'binary':
        this.at += length;
        return undefined;
    }
  }

  /**
   * A binary value of undefined length (BinaryRepresentation.readBytes): the first item is the Basic Offset Table,
   * then fragments until the Sequence Delimitation Item or the end of the stream. For each entry of the table dcmjs
   * copies the whole stream (the file, or the item) and reads fragments from the offset on: one entry of 0 (a
   * single frame) is followed; more are refused.
   */
  private fragments(frame: DataSetFrame, tag: string, vr: Vr): Step {
    if (vr.type === 'UN') {
      return `${tag} is UN of undefined length (a sequence in implicit VR), which dcmjs does not read as a sequence: not read`;
    }
    const { view } = this;
    const little = this.syntax.littleEndian;
    const end = frame.end;
    const isTag = (at: number, element: number) => view.getUint16(at, little) === 0xfffe && view.getUint16(at + 2, little) === element;
    const pastEnd = `the fragments of ${tag} run past the end of ${frame.name}`;
    if (this.at + 8 > end) return pastEnd;
    if (!isTag(this.at, ITEM)) return `${tag} of undefined length does not begin with an item (the offset table of encapsulated fragments)`;
    const table = view.getUint32(this.at + 4, little);
    this.at += 8;
    const counted = this.countElement();
    if (counted) return counted;
    if (table > 0) {
      const frames = Math.ceil(table / 4);
      if (frames > 1) {
        return `${tag} is encapsulated with an offset table of ${frames} frames: only single-frame images are converted (dcmjs would copy ${frame.name} once per frame)`;
      }
      if (this.at + 4 > end) return pastEnd;
      const offset = view.getUint32(this.at, little);
      this.at += 4;
      if (offset !== 0) return `${tag}'s offset table puts its only frame ${offset} bytes after the first fragment, not at it`;
      const copy = frame.end - frame.start;
      if ((this.itemBytes += copy) > this.limits.maxItemBytes) {
        return `${tag}'s offset table has dcmjs copy ${frame.name} (${MiB(copy)}) past ${MiB(this.limits.maxItemBytes)} of items and copies in all (the limit; a film's sequences hold kilobytes)`;
      }
    }
    while (this.at < end) {
      if (this.at + 8 > end) return pastEnd;
      if (isTag(this.at, SEQUENCE_END)) {
        const length = view.getUint32(this.at + 4, little);
        if (length !== 0) return `the Sequence Delimitation Item of ${tag} has a length of ${length}, not 0`;
        this.at += 8;
        return undefined;
      }
      if (!isTag(this.at, ITEM)) {
        const found = tagName(view.getUint16(this.at, little), view.getUint16(this.at + 2, little));
        return `the fragments of ${tag} hold ${found} where an item or their Sequence Delimitation Item must be`;
      }
      const length = view.getUint32(this.at + 4, little);
      this.at += 8;
      const counted = this.countElement();
      if (counted) return counted;
      const past = this.binary(frame, length, end - this.at, `a fragment of ${tag} of ${length} bytes runs past the end of ${frame.name}`);
      if (past) return past;
    }
    return undefined;
  }

  /** One word of a sequence (an iteration of SequenceOfItems.readBytes's loop). */
  private sequenceWord(sequence: SequenceFrame): Step {
    const { view } = this;
    const little = sequence.littleEndian;
    const pastEnd = `${sequence.tag} runs past the end of ${sequence.name}`;
    if (this.at + 4 > sequence.end) return pastEnd;
    const group = view.getUint16(this.at, little);
    const element = view.getUint16(this.at + 2, little);
    this.at += 4;
    sequence.read += 4;
    const counted = this.countElement();
    if (counted) return counted;
    if (group === 0xfffe && element === SEQUENCE_END) {
      if (this.at + 4 > sequence.end) return pastEnd;
      this.at += 4;
      this.closeSequence();
      return undefined;
    }
    if (sequence.length !== UNDEFINED && sequence.read === sequence.length) {
      this.closeSequence();
      return undefined;
    }
    // any other word is skipped: dcmjs reads on, 4 bytes at a time, until an item or the end
    if (group !== 0xfffe || element !== ITEM) return undefined;
    if (this.at + 4 > sequence.end) return pastEnd;
    const length = view.getUint32(this.at, little);
    this.at += 4;
    sequence.read += 4;
    let itemStart: number;
    let itemLength: number;
    let resume: number;
    if (length === UNDEFINED) {
      const found = this.itemEnd(this.at, sequence.end, little);
      if (!found) return `an item of ${sequence.tag} has an undefined length and no Item Delimitation Item before the end of ${sequence.name}`;
      sequence.read += 8 + found.toRead;
      itemLength = found.toRead;
      itemStart = found.after - 8 - itemLength;
      resume = found.after;
    } else {
      // (stream.more throws past the end of the stream)
      if (this.at + length > sequence.end) return `an item of ${sequence.tag} of ${length} bytes runs past the end of ${sequence.name}`;
      sequence.read += length;
      itemLength = length;
      itemStart = this.at;
      resume = this.at + length;
    }
    if (itemLength === 0) {
      this.at = resume;
      return this.afterItem(sequence);
    }
    const copied = this.countItem(itemLength);
    if (copied) return copied;
    this.at = itemStart;
    this.stack.push({ kind: 'data set', start: itemStart, end: itemStart + itemLength, resume, name: `an item of ${sequence.tag}` });
    return undefined;
  }

  /**
   * Where dcmjs ends an item of undefined length that starts at `start`: it reads the stream two bytes at a time
   * (values included) for 0xFFFE, then the next two and four bytes: an Item of undefined length nests one deeper,
   * an Item Delimitation of length 0 closes one level or, at the item's own level, the item. `toRead` is dcmjs's
   * count of the item's bytes — 2 short for each Item Delimitation of a length other than 0, which shifts the copy
   * it parses — and `after` where the stream goes on. Null when dcmjs would read past the end of the stream.
   */
  private itemEnd(start: number, end: number, little: boolean): { toRead: number; after: number } | null {
    const { view, bytes } = this;
    // 0xFFFE as it lies in the stream
    const first = little ? 0xfe : 0xff;
    const second = little ? 0xff : 0xfe;
    let stack = 0;
    let toRead = 0;
    // a plain loop over the words: as fast where markers are dense as where there are none
    for (let at = start; at + 2 <= end; ) {
      if (bytes[at] !== first || bytes[at + 1] !== second) {
        toRead += 2;
        at += 2;
        continue;
      }
      if (at + 8 > end) return null;
      const element = view.getUint16(at + 2, little);
      const length = view.getUint32(at + 4, little);
      if (element === ITEM_END && length === 0) {
        if (--stack < 0) return { toRead, after: at + 8 };
        toRead += 4;
        at += 4;
      } else if (element === ITEM_END) {
        toRead += 2;
        at += 4;
      } else if (element === ITEM) {
        if (length === UNDEFINED) stack++;
        toRead += 4;
        at += 4;
      } else {
        toRead += 2;
        at += 2;
      }
    }
    return null;
  }
}

/**
 * Walks `stream` of `bytes` as dcmjs reads it in `syntax`, within `limits`, calling `onTopLevel` for each element
 * of the stream's own data set (not of its items).
 */
export function walkAsDcmjs(bytes: Uint8Array, stream: Stream, syntax: Syntax, limits: WalkLimits, onTopLevel?: (element: TopLevelElement) => void): WalkOutcome {
  return new DcmjsWalk(bytes, syntax, limits, stream, onTopLevel).run();
}
