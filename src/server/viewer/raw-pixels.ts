import { endianness } from 'node:os';
import type { FastifyReply } from 'fastify';
import sharp from 'sharp';

/** One greyscale image as the viewer reads it: row-major samples, little-endian when 16-bit. */
export interface RawPixels {
  body: Buffer;
  width: number;
  height: number;
  bits: 8 | 16;
}

/**
 * Decodes a PNG (or anything sharp reads) to one grey channel of raw samples for the browser viewer.
 * A browser's <img> would squash a 16-bit radiograph to 8 bits before any script saw it, so the server sends
 * the samples themselves: 16-bit input stays 16-bit (sharp's ushort output of the grey16 colourspace, which is
 * exact for grey input), everything else is 8-bit. Colour is converted to grey and alpha flattened onto black
 * (transparent areas look like the film's background rather than taking whatever colour sat behind them).
 */
export async function rawPixels(png: Buffer): Promise<RawPixels> {
  const meta = await sharp(png).metadata();
  const sixteen = meta.depth === 'ushort';
  let pipeline = sharp(png);
  if (meta.hasAlpha) pipeline = pipeline.flatten({ background: '#000000' });
  pipeline = pipeline.toColourspace(sixteen ? 'grey16' : 'b-w');
  const { data, info } = await pipeline.raw(sixteen ? { depth: 'ushort' } : {}).toBuffer({ resolveWithObject: true });
  if (info.channels !== 1) throw new Error(`expected one grey channel after conversion, got ${info.channels}`);
  // sharp writes samples in the machine's byte order; the wire format is little-endian.
  if (sixteen && endianness() === 'BE') data.swap16();
  return { body: data, width: info.width, height: info.height, bits: sixteen ? 16 : 8 };
}

/** Sends raw pixels with the headers the viewer reads its geometry and bit depth from. */
export function sendRawPixels(reply: FastifyReply, pixels: RawPixels): FastifyReply {
  return reply
    .header('content-type', 'application/octet-stream')
    .header('cache-control', 'private, max-age=3600')
    .header('x-image-width', String(pixels.width))
    .header('x-image-height', String(pixels.height))
    .header('x-image-bits', String(pixels.bits))
    .send(pixels.body);
}
