import type { DcmjsElement } from 'dcmjs';

/**
 * One lookup table of a Modality LUT Sequence (0028,3000) or VOI LUT Sequence (0028,3010) item (PS3.3 C.11.1,
 * C.11.2): input values from `firstMapped` on map to `data` in order; below the first maps to the first entry,
 * above the last to the last. VOI LUT output spans 0 … 2^bits − 1.
 */
export interface LutTable {
  firstMapped: number;
  /** Bits per entry, from the LUT Descriptor's third value (8 … 16). */
  bits: number;
  data: Uint16Array;
  explanation: string | null;
}

type Item = Record<string, DcmjsElement>;

function bytesOf(value: unknown): Uint8Array | null {
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  return null;
}

/**
 * Reads one LUT item. `signedInput` says whether the input values may be negative (signed stored pixels for a
 * Modality LUT; signed modality values for a VOI LUT): the descriptor's first-mapped value is then read as signed
 * even when the file gave it as US (implicit VR cannot say). Returns the table, or why it is unusable.
 */
export function readLutItem(item: Item, signedInput: boolean, bigEndian: boolean): LutTable | string {
  const descriptor = item['00283002'];
  const dataElement = item['00283006'];
  if (!descriptor || !dataElement) return `missing ${!descriptor ? 'LUT Descriptor (0028,3002)' : 'LUT Data (0028,3006)'}`;
  const d = (descriptor.Value ?? []).map(Number);
  if (d.length !== 3 || d.some((v) => !Number.isInteger(v))) return `LUT Descriptor (0028,3002) is [${d.join(', ')}], not three integers`;
  // The number of entries and the bits are unsigned whatever the descriptor's VR (an SS descriptor reads 40000 as −25536).
  const count = d[0]! < 0 ? d[0]! + 65536 : d[0]!;
  const entries = count === 0 ? 65536 : count;
  let firstMapped = d[1]!;
  if (descriptor.vr !== 'SS' && signedInput && firstMapped > 32767) firstMapped -= 65536;
  const bits = d[2]!;
  if (entries < 1 || bits < 8 || bits > 16) return `LUT Descriptor (0028,3002) [${d.join(', ')}]: ${entries < 1 ? 'no entries' : `${bits} bits per entry (8 to 16 are allowed)`}`;

  const values = dataElement.Value ?? [];
  let data: Uint16Array;
  const bytes = values.length === 1 ? bytesOf(values[0]) : null;
  if (bytes) {
    if (bytes.byteLength >= entries * 2) {
      data = new Uint16Array(entries);
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      for (let i = 0; i < entries; i++) data[i] = view.getUint16(i * 2, !bigEndian);
    } else if (bits === 8 && bytes.byteLength >= entries) {
      // 8-bit entries packed two to a 16-bit word (PS3.3 C.11.1.1.1): in little endian the bytes are in order.
      data = new Uint16Array(entries);
      for (let i = 0; i < entries; i++) data[i] = bytes[bigEndian ? i ^ 1 : i]!;
    } else return `LUT Data (0028,3006) holds ${bytes.byteLength} bytes where the descriptor says ${entries} entries of ${bits} bits`;
  } else {
    const numbers = values.map(Number);
    // 8-bit entries may also come packed two to a US word, the first in the low byte (as dcmtk reads them).
    const packed = bits === 8 && numbers.length !== entries && numbers.length === Math.ceil(entries / 2);
    if ((numbers.length !== entries && !packed) || numbers.some((v) => !Number.isInteger(v) || v < 0 || v > 65535)) {
      return `LUT Data (0028,3006) has ${numbers.length} entries where the descriptor says ${entries}${numbers.some((v) => !Number.isInteger(v) || v < 0 || v > 65535) ? ' (or values outside 0…65535)' : ''}`;
    }
    data = packed ? Uint16Array.from({ length: entries }, (_, i) => (numbers[i >> 1]! >> (8 * (i & 1))) & 0xff) : Uint16Array.from(numbers);
  }
  // An entry the descriptor's bits cannot hold: the table contradicts itself (dcmtk masks, a clamp would whiten);
  // refused like any unusable table rather than rendered one way or the other.
  const top = 2 ** bits - 1;
  let largest = 0;
  for (const v of data) if (v > largest) largest = v;
  if (largest > top) return `LUT Data (0028,3006) holds the entry ${largest}, more than ${bits} bits per entry (the descriptor's third value) can hold (${top})`;
  const explanation = item['00283003']?.Value?.[0];
  return { firstMapped, bits, data, explanation: explanation === undefined || explanation === null || String(explanation).trim() === '' ? null : String(explanation).trim() };
}

/** Reads every item of a LUT sequence; the first unusable item's problem is returned as text naming the sequence and item. */
export function readLutSequence(element: DcmjsElement | undefined, name: string, signedInput: boolean, bigEndian: boolean): LutTable[] | string {
  const items = (element?.Value ?? []) as Item[];
  const tables: LutTable[] = [];
  for (const [i, item] of items.entries()) {
    const table = readLutItem(item, signedInput, bigEndian);
    if (typeof table === 'string') return `${name} item ${i + 1}: ${table}`;
    tables.push(table);
  }
  return tables;
}

/**
 * The table's entry for an input value. Non-integer inputs (a VOI LUT after a fractional rescale) are truncated
 * toward −∞, as dcmtk does; the standard indexes by integers and does not say.
 */
export function lookUp(table: LutTable, x: number): number {
  const i = Math.floor(x) - table.firstMapped;
  return table.data[i <= 0 ? 0 : i >= table.data.length ? table.data.length - 1 : i]!;
}
