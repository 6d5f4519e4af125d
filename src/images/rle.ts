import { DicomRejection } from './dicom-image.js';

/**
 * Decodes one RLE Lossless frame (DICOM PS3.5 Annex G) into native little-endian pixel bytes. A frame is a
 * 64-byte header (segment count, then 15 segment offsets) and one PackBits segment per byte plane, most
 * significant plane first — so 16-bit greyscale has two segments that are interleaved back into words here.
 */
export function decodeRle(frame: Uint8Array, rows: number, columns: number, bitsAllocated: number, file: string): Uint8Array {
  const bytesPerSample = bitsAllocated / 8;
  const pixels = rows * columns;
  if (frame.length < 64) throw new DicomRejection(file, 'RLE frame is shorter than its 64-byte header (truncated)');
  const header = new DataView(frame.buffer, frame.byteOffset, 64);
  const segments = header.getUint32(0, true);
  if (segments !== bytesPerSample) throw new DicomRejection(file, `RLE frame has ${segments} segment(s) where ${bytesPerSample} are expected for ${bitsAllocated}-bit greyscale`);
  const out = new Uint8Array(pixels * bytesPerSample);
  for (let s = 0; s < segments; s++) {
    const start = header.getUint32(4 + 4 * s, true);
    const end = s + 1 < segments ? header.getUint32(8 + 4 * s, true) : frame.length;
    if (start < 64 || end > frame.length || end < start) throw new DicomRejection(file, `RLE segment ${s + 1} lies outside the frame (truncated or damaged)`);
    // Segment 0 holds the most significant byte; native little-endian order puts it last.
    const plane = bytesPerSample - 1 - s;
    let i = start;
    let p = 0;
    while (i < end && p < pixels) {
      const n = (frame[i++]! << 24) >> 24; // the PackBits header byte is signed
      if (n >= 0) {
        for (let k = 0; k <= n && i < end && p < pixels; k++) out[(p++) * bytesPerSample + plane] = frame[i++]!;
      } else if (n !== -128) {
        const value = frame[i++]!;
        for (let k = 0; k < 1 - n && p < pixels; k++) out[(p++) * bytesPerSample + plane] = value;
      }
    }
    if (p < pixels) throw new DicomRejection(file, `RLE segment ${s + 1} decodes to ${p} of ${pixels} pixels (truncated or damaged)`);
  }
  return out;
}
