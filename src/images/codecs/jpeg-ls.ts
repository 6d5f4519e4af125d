import type { DecodedSamples } from './samples.js';
import { WasmCodec } from './wasm.js';
import { decodeWithWasm } from './wasm-decode.js';

const charls = new WasmCodec('CharLS (@cornerstonejs/codec-charls)', '@cornerstonejs/codec-charls/decodewasmjs', '@cornerstonejs/codec-charls/decodewasm', 'JpegLSDecoder');

/** Decodes one JPEG-LS frame (ITU T.87, lossless and near-lossless) with CharLS. */
export function decodeJpegLs(frame: Uint8Array): DecodedSamples {
  return decodeWithWasm(charls, frame, false);
}
