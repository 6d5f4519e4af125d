import { createRequire } from 'node:module';
import { hex, type CodestreamHeader } from './codestream.js';
import { fromTypedArray, type DecodedSamples } from './samples.js';
import { WasmCodec } from './wasm.js';
import { CodecFailure, decodeWithWasm } from './wasm-decode.js';

const require = createRequire(import.meta.url);

const libjpegTurbo = new WasmCodec(
  'libjpeg-turbo (@cornerstonejs/codec-libjpeg-turbo-8bit)',
  '@cornerstonejs/codec-libjpeg-turbo-8bit/decodewasmjs',
  '@cornerstonejs/codec-libjpeg-turbo-8bit/decodewasm',
  'JPEGDecoder',
);

interface LosslessDecoder {
  decode(buffer: ArrayBuffer, offset: number, length: number, numBytes: number): Uint8Array | Uint16Array;
  stream: { index: number } | null;
  yLoc: number;
  yDim: number;
}

let LosslessClass: (new () => LosslessDecoder) | null = null;

/**
 * Decodes one JPEG (ITU T.81) frame, chosen by its start-of-frame marker rather than the transfer syntax alone
 * (1.2.840.10008.1.2.4.51 may hold 8-bit frames, and mislabelled files exist):
 * - SOF0/SOF1/SOF2 at 8 bits: libjpeg-turbo (WebAssembly, the decoder of @cornerstonejs/dicom-image-loader);
 * - SOF3 (lossless, processes 14 and 14 SV1) at 2–16 bits: @cornerstonejs/jpeg-lossless-decoder-js.
 * 12-bit DCT frames (JPEG Extended) are refused: the only JavaScript decoder at hand, the one inside
 * @cornerstonejs/dicom-image-loader 5.14, puts every sample about 15 levels above dcmtk's (its level shift is
 * 2056 / (255 / 4095) instead of 2048 × 16 + 8), and a converter that shifts the grey scale is worse than none.
 * Arithmetic coding and hierarchical processes are refused too.
 */
export function decodeJpeg(frame: Uint8Array, header: CodestreamHeader): DecodedSamples {
  const { marker, precision } = header;
  if (marker === 0xc3) return decodeLossless(frame, precision);
  if ((marker === 0xc0 || marker === 0xc1 || marker === 0xc2) && precision === 8) return decodeWithWasm(libjpegTurbo, frame, false);
  if ((marker === 0xc1 || marker === 0xc2) && precision === 12) {
    throw new CodecFailure('12-bit lossy JPEG (JPEG Extended, SOF1/SOF2 at 12 bits) has no decoder here yet (docs/images.md says why)');
  }
  throw new CodecFailure(`JPEG process SOF${marker - 0xc0} (marker 0xFF${hex(marker)}) at ${precision} bits is not supported (baseline and extended at 8 or 12 bits, and lossless, are)`);
}

function decodeLossless(frame: Uint8Array, precision: number): DecodedSamples {
  LosslessClass ??= (require('@cornerstonejs/jpeg-lossless-decoder-js') as { Decoder: new () => LosslessDecoder }).Decoder;
  const decoder = new LosslessClass();
  let samples;
  try {
    samples = decoder.decode(frame.buffer as ArrayBuffer, frame.byteOffset, frame.length, precision > 8 ? 2 : 1);
  } catch (error) {
    throw new CodecFailure(`jpeg-lossless-decoder-js: ${error instanceof Error ? error.message : String(error)}`);
  }
  // It reads past the end of a cut frame as if it were zeros, and stops at a marker met early leaving the rest of
  // the image zero; its position and its last row say so.
  if ((decoder.stream && decoder.stream.index > frame.length) || decoder.yLoc < decoder.yDim) {
    throw new CodecFailure(`jpeg-lossless-decoder-js: the entropy-coded data ends at row ${Math.min(decoder.yLoc, decoder.yDim)} of ${decoder.yDim} (truncated or damaged)`);
  }
  return fromTypedArray(samples, false);
}
