/** What the data set says one frame holds, to check a decoded frame against and to lay its samples out by. */
export interface FrameSpec {
  rows: number;
  columns: number;
  bitsAllocated: number;
  bitsStored: number;
  pixelRepresentation: 0 | 1;
}

/** A decoder's output: little-endian bytes, one or two per sample, one sample per pixel; signed samples are two's complement. */
export interface DecodedSamples {
  bytes: Uint8Array;
  bytesPerSample: number;
  signed: boolean;
}

const LITTLE_ENDIAN_MACHINE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** The little-endian bytes of a JavaScript decoder's sample array (its own: it is not copied on a little-endian machine). */
export function fromTypedArray(samples: Uint8Array | Uint16Array | Int16Array, signed: boolean): DecodedSamples {
  if (samples instanceof Uint8Array) return { bytes: samples, bytesPerSample: 1, signed };
  let bytes = new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength);
  if (!LITTLE_ENDIAN_MACHINE) {
    bytes = new Uint8Array(samples.byteLength);
    const view = new DataView(bytes.buffer);
    samples.forEach((v, i) => view.setUint16(i * 2, v & 0xffff, true));
  }
  return { bytes, bytesPerSample: 2, signed };
}

/**
 * The decoded samples in the native layout readDicom produces for uncompressed data: Bits Allocated / 8 bytes per
 * sample, little endian, rows × columns of them (storedValues then masks to Bits Stored and sign-extends as usual).
 * 8-bit output into 16-bit words is widened (sign-extended when the codestream is signed); 16-bit output for 8-bit
 * words keeps the low byte — the precision was checked to fit before decoding.
 */
export function nativeLayout(decoded: DecodedSamples, spec: FrameSpec): Uint8Array {
  const count = spec.rows * spec.columns;
  const { bytes, bytesPerSample } = decoded;
  const wanted = spec.bitsAllocated / 8;
  if (bytesPerSample === wanted) return bytes.length === count * wanted ? bytes : bytes.slice(0, count * wanted);
  const out = new Uint8Array(count * wanted);
  if (bytesPerSample === 1) {
    for (let i = 0; i < count; i++) {
      const v = bytes[i]!;
      out[2 * i] = v;
      out[2 * i + 1] = decoded.signed && v & 0x80 ? 0xff : 0;
    }
  } else {
    for (let i = 0; i < count; i++) out[i] = bytes[2 * i]!;
  }
  return out;
}
