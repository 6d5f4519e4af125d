import type { DecodedSamples } from './samples.js';
import { WasmCodec } from './wasm.js';
import { decodeWithWasm } from './wasm-decode.js';

const openjpeg = new WasmCodec('OpenJPEG (@cornerstonejs/codec-openjpeg)', '@cornerstonejs/codec-openjpeg/decodewasmjs', '@cornerstonejs/codec-openjpeg/decodewasm', 'J2KDecoder');
const openjph = new WasmCodec('OpenJPH (@cornerstonejs/codec-openjph)', '@cornerstonejs/codec-openjph/wasmjs', '@cornerstonejs/codec-openjph/wasm', 'HTJ2KDecoder');

/** Decodes one JPEG 2000 codestream (ISO 15444-1, reversible or irreversible) with OpenJPEG. */
export function decodeJpeg2000(codestream: Uint8Array, signed: boolean): DecodedSamples {
  return decodeWithWasm(openjpeg, codestream, signed);
}

/** Decodes one High-Throughput JPEG 2000 codestream (ISO 15444-15) with OpenJPH. */
export function decodeHtj2k(codestream: Uint8Array, signed: boolean): DecodedSamples {
  return decodeWithWasm(openjph, codestream, signed);
}
