import type { DecodedSamples } from './samples.js';
import type { WasmCodec } from './wasm.js';

/** Why a codec could not decode a frame, in the codec's own words. */
export class CodecFailure extends Error {}

/**
 * Runs one frame through a WebAssembly decoder: the codestream is copied into the module's memory, decoded, and
 * the samples copied out (the module's memory is reused by the next frame). Any exception — a C++ one, a trap, an
 * abort — becomes a CodecFailure with the codec's message, and the instance is discarded.
 */
export function decodeWithWasm(codec: WasmCodec, codestream: Uint8Array, signed: boolean): DecodedSamples & { width: number; height: number; precision: number } {
  let decoder;
  try {
    decoder = codec.decoder();
    decoder.getEncodedBuffer(codestream.length).set(codestream);
    decoder.decode();
    const info = decoder.getFrameInfo();
    const decoded = decoder.getDecodedBuffer();
    const pixels = info.width * info.height;
    const bytesPerSample = pixels > 0 ? decoded.length / pixels : 0;
    if (pixels === 0 || decoded.length === 0) throw new CodecFailure(`${codec.library} decoded no image: ${codec.describe()}`);
    if (info.componentCount !== 1 || (bytesPerSample !== 1 && bytesPerSample !== 2)) {
      throw new CodecFailure(`${codec.library} decoded ${info.componentCount} component(s) of ${info.width} × ${info.height} into ${decoded.length} bytes, not one 8- or 16-bit sample per pixel`);
    }
    return { bytes: decoded.slice(), bytesPerSample, signed: info.isSigned ?? signed, width: info.width, height: info.height, precision: info.bitsPerSample };
  } catch (error) {
    if (error instanceof CodecFailure) throw error;
    const message = codec.describe(error);
    codec.discard();
    throw new CodecFailure(`${codec.library}: ${message}`);
  } finally {
    try {
      decoder?.delete();
    } catch {
      // a discarded instance's object is gone with it
    }
  }
}
