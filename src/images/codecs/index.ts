import { DicomRejection } from '../dicom-image.js';
import { CodestreamError, endsWithEndMarker, j2kCodestream, j2kTilePartProblem, jpegFrameHeader, type CodestreamHeader } from './codestream.js';
import { decodeJpeg } from './jpeg.js';
import { decodeJpeg2000, decodeHtj2k } from './jpeg2000.js';
import { decodeJpegLs } from './jpeg-ls.js';
import { nativeLayout, type DecodedSamples, type FrameSpec } from './samples.js';
import { CodecFailure } from './wasm-decode.js';

export type { FrameSpec } from './samples.js';

type Family = 'JPEG' | 'JPEG-LS' | 'JPEG 2000' | 'HTJ2K';

/** The compressed transfer syntaxes decoded here, by UID: the codestream family, and whether the syntax allows loss. */
export const COMPRESSED_SYNTAXES: ReadonlyMap<string, { name: string; family: Family; lossy: boolean }> = new Map([
  ['1.2.840.10008.1.2.4.50', { name: 'JPEG Baseline (Process 1)', family: 'JPEG', lossy: true }],
  ['1.2.840.10008.1.2.4.51', { name: 'JPEG Extended (Process 2 & 4)', family: 'JPEG', lossy: true }],
  ['1.2.840.10008.1.2.4.57', { name: 'JPEG Lossless (Process 14)', family: 'JPEG', lossy: false }],
  ['1.2.840.10008.1.2.4.70', { name: 'JPEG Lossless SV1 (Process 14, selection value 1)', family: 'JPEG', lossy: false }],
  ['1.2.840.10008.1.2.4.80', { name: 'JPEG-LS Lossless', family: 'JPEG-LS', lossy: false }],
  ['1.2.840.10008.1.2.4.81', { name: 'JPEG-LS Near-Lossless', family: 'JPEG-LS', lossy: true }],
  ['1.2.840.10008.1.2.4.90', { name: 'JPEG 2000 Lossless', family: 'JPEG 2000', lossy: false }],
  ['1.2.840.10008.1.2.4.91', { name: 'JPEG 2000', family: 'JPEG 2000', lossy: true }],
  ['1.2.840.10008.1.2.4.201', { name: 'HTJ2K Lossless', family: 'HTJ2K', lossy: false }],
  ['1.2.840.10008.1.2.4.202', { name: 'HTJ2K Lossless RPCL', family: 'HTJ2K', lossy: false }],
  ['1.2.840.10008.1.2.4.203', { name: 'HTJ2K', family: 'HTJ2K', lossy: true }],
]);

/**
 * Decodes the one frame of a compressed single-frame image (its fragments already joined) into the native layout
 * the uncompressed path produces: Bits Allocated / 8 little-endian bytes per sample, rows × columns samples. The
 * codestream's own size, precision and components are checked against the data set before decoding and the
 * decoder's result after; every failure — an unknown syntax, a damaged or cut codestream, a codec error — is a
 * DicomRejection naming the syntax and the reason (the codec's own message when it has one).
 */
export function decodeCompressed(transferSyntaxUid: string, frame: Uint8Array, spec: FrameSpec, file: string): Uint8Array {
  const syntax = COMPRESSED_SYNTAXES.get(transferSyntaxUid);
  if (!syntax) {
    throw new DicomRejection(file, `no codec for transfer syntax ${transferSyntaxUid} (this version decodes uncompressed, RLE Lossless, JPEG, JPEG-LS, JPEG 2000 and HTJ2K)`);
  }
  const refuse = (reason: string) => new DicomRejection(file, `${syntax.name} (${transferSyntaxUid}): ${reason}`);
  try {
    if (frame.length === 0) throw refuse('the encapsulated Pixel Data holds no fragment');
    const { codestream, header } = syntax.family === 'JPEG 2000' || syntax.family === 'HTJ2K' ? j2kCodestream(frame) : { codestream: frame, header: jpegFrameHeader(frame) };
    if (syntax.family === 'JPEG-LS' ? header.marker !== 0xf7 : syntax.family === 'JPEG' && header.marker === 0xf7) {
      throw refuse(`the frame is ${header.marker === 0xf7 ? 'JPEG-LS' : 'JPEG'}, not ${syntax.family}`);
    }
    const mismatch = headerMismatch(header, spec);
    if (mismatch) throw refuse(mismatch);
    if (!endsWithEndMarker(codestream)) throw refuse(`the ${syntax.family} codestream does not end with its end marker (0xFFD9): truncated`);
    const tileParts = syntax.family === 'JPEG 2000' || syntax.family === 'HTJ2K' ? j2kTilePartProblem(codestream) : null;
    if (tileParts) throw refuse(`damaged codestream: ${tileParts}`);
    const decoded = decode(syntax.family, codestream, header);
    const needed = spec.rows * spec.columns * decoded.bytesPerSample;
    if (decoded.bytes.length < needed) throw refuse(`the decoder returned ${decoded.bytes.length} bytes where ${needed} are needed`);
    return nativeLayout(decoded, spec);
  } catch (error) {
    if (error instanceof CodestreamError) throw refuse(`damaged codestream: ${error.message}`);
    if (error instanceof CodecFailure) throw refuse(`could not be decoded: ${error.message}`);
    throw error;
  }
}

function decode(family: Family, codestream: Uint8Array, header: CodestreamHeader): DecodedSamples {
  const decoded: DecodedSamples & { width?: number; height?: number } =
    family === 'JPEG' ? decodeJpeg(codestream, header)
    : family === 'JPEG-LS' ? decodeJpegLs(codestream)
    : family === 'JPEG 2000' ? decodeJpeg2000(codestream, header.signed)
    : decodeHtj2k(codestream, header.signed);
  // the WebAssembly codecs report the size they decoded; it must be the size their header gave
  if (decoded.width !== undefined && (decoded.width !== header.columns || decoded.height !== header.rows)) {
    throw new CodecFailure(`decoded ${decoded.width} × ${decoded.height} where the header says ${header.columns} × ${header.rows}`);
  }
  return decoded;
}

/**
 * Why the codestream's header does not fit the data set, or null. The precision must fit Bits Allocated; it may
 * differ from Bits Stored (dcmcjpeg itself writes 16-bit lossless frames of 12-bit images): the samples are then
 * masked to Bits Stored like the unused high bits of uncompressed data.
 */
function headerMismatch(header: CodestreamHeader, spec: FrameSpec): string | null {
  if (header.rows !== spec.rows || header.columns !== spec.columns) {
    return `the codestream is ${header.columns} × ${header.rows} pixels but Columns × Rows say ${spec.columns} × ${spec.rows}`;
  }
  if (header.components !== 1) return `the codestream has ${header.components} components but the image is greyscale (1 sample per pixel)`;
  if (header.precision < 2 || header.precision > 16) return `the codestream's sample precision is ${header.precision} bits (2 to 16 are possible)`;
  if (header.precision > spec.bitsAllocated) return `the codestream holds ${header.precision}-bit samples but Bits Allocated is ${spec.bitsAllocated}`;
  return null;
}
