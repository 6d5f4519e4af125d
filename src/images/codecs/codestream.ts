/**
 * What a compressed frame says about itself, read from its headers before any decoder runs: the size, sample
 * precision and component count are checked against the data set first, so a damaged or mislabelled frame is refused
 * by name instead of making a codec allocate or decode the wrong thing.
 */
export interface CodestreamHeader {
  /** JPEG start-of-frame marker (0xC0–0xCF), 0xF7 for JPEG-LS, 0x51 (SIZ) for JPEG 2000. */
  marker: number;
  rows: number;
  columns: number;
  precision: number;
  components: number;
  /** JPEG 2000 carries a sign; JPEG and JPEG-LS do not (false). */
  signed: boolean;
}

/** Why a header could not be read. */
export class CodestreamError extends Error {}

const u16 = (b: Uint8Array, at: number) => (b[at]! << 8) | b[at + 1]!;
const u32 = (b: Uint8Array, at: number) => ((b[at]! << 24) >>> 0) + (b[at + 1]! << 16) + (b[at + 2]! << 8) + b[at + 3]!;

/**
 * The frame header of a JPEG (ITU T.81) or JPEG-LS (T.87) codestream: markers are walked from SOI to the first
 * SOFn / SOF55, skipping the other segments by their lengths.
 */
export function jpegFrameHeader(frame: Uint8Array): CodestreamHeader {
  if (frame.length < 4 || frame[0] !== 0xff || frame[1] !== 0xd8) throw new CodestreamError('the frame does not start with a JPEG SOI marker');
  let at = 2;
  while (at + 4 <= frame.length) {
    if (frame[at] !== 0xff) throw new CodestreamError(`no JPEG marker at byte ${at} (damaged header)`);
    const marker = frame[at + 1]!;
    if (marker === 0xff) {
      at++; // fill byte
      continue;
    }
    const length = u16(frame, at + 2);
    const isFrame = (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) || marker === 0xf7;
    if (isFrame) {
      if (length < 8 || at + 2 + length > frame.length) throw new CodestreamError('the JPEG frame header is cut short');
      return { marker, precision: frame[at + 4]!, rows: u16(frame, at + 5), columns: u16(frame, at + 7), components: frame[at + 9]!, signed: false };
    }
    if (marker === 0xda || marker === 0xd9) break; // a scan or the end before any frame header
    if (length < 2) throw new CodestreamError(`JPEG segment 0xFF${hex(marker)} has length ${length} (damaged header)`);
    at += 2 + length;
  }
  throw new CodestreamError('no JPEG frame header (SOF) before the first scan (damaged or not JPEG)');
}

/**
 * The image and component size (SIZ) of a JPEG 2000 or HTJ2K codestream. A frame wrapped in the JP2 file format
 * (not what DICOM stores, but written by some software) is unwrapped to the codestream in its jp2c box first.
 */
export function j2kCodestream(frame: Uint8Array): { codestream: Uint8Array; header: CodestreamHeader } {
  const codestream = frame.length >= 12 && u32(frame, 4) === 0x6a502020 ? jp2Codestream(frame) : frame;
  if (codestream.length < 4 || u16(codestream, 0) !== 0xff4f) throw new CodestreamError('the frame does not start with a JPEG 2000 SOC marker');
  if (u16(codestream, 2) !== 0xff51) throw new CodestreamError('the JPEG 2000 SOC marker is not followed by SIZ (damaged header)');
  const lsiz = u16(codestream, 4);
  if (lsiz < 41 || 4 + lsiz > codestream.length) throw new CodestreamError('the JPEG 2000 SIZ segment is cut short');
  const width = u32(codestream, 8) - u32(codestream, 16);
  const height = u32(codestream, 12) - u32(codestream, 20);
  const components = u16(codestream, 40);
  if (lsiz < 38 + 3 * components) throw new CodestreamError(`the JPEG 2000 SIZ segment is too short for its ${components} components`);
  const ssiz = codestream[42]!;
  return { codestream, header: { marker: 0x51, rows: height, columns: width, precision: (ssiz & 0x7f) + 1, components, signed: (ssiz & 0x80) !== 0 } };
}

/**
 * Why the tile-parts of a JPEG 2000 / HTJ2K codestream do not fit it, or null: each SOT marker segment gives its
 * tile-part's length (Psot), and the next tile-part or the EOC marker must start where it ends. A cut codestream
 * given back an end marker is caught here — OpenJPH would decode the missing code-blocks as zeros without a word.
 */
export function j2kTilePartProblem(codestream: Uint8Array): string | null {
  let at = 4 + u16(codestream, 4); // past SOC and SIZ
  while (at + 4 <= codestream.length && u16(codestream, at) !== 0xff90) {
    if (codestream[at] !== 0xff) return `no marker at byte ${at} of the main header (damaged header)`;
    at += 2 + u16(codestream, at + 2);
  }
  for (let part = 1; at + 12 <= codestream.length && u16(codestream, at) === 0xff90; part++) {
    const length = u32(codestream, at + 6);
    if (length === 0) return null; // the last tile-part, running to EOC
    if (length < 14 || at + length + 2 > codestream.length) return `tile-part ${part} is ${length} bytes long but the codestream ends ${codestream.length - at} bytes after its start (truncated)`;
    at += length;
  }
  return at + 2 <= codestream.length && u16(codestream, at) === 0xffd9 ? null : `no tile-part or EOC marker at byte ${at} (damaged)`;
}

function jp2Codestream(file: Uint8Array): Uint8Array {
  let at = 0;
  while (at + 8 <= file.length) {
    let length = u32(file, at);
    const type = u32(file, at + 4);
    let header = 8;
    if (length === 1) {
      if (at + 16 > file.length) break;
      length = u32(file, at + 8) * 2 ** 32 + u32(file, at + 12);
      header = 16;
    } else if (length === 0) length = file.length - at;
    if (type === 0x6a703263) return file.subarray(at + header, Math.min(file.length, at + length)); // 'jp2c'
    if (length < header) break;
    at += length;
  }
  throw new CodestreamError('a JP2 file without a codestream (jp2c) box');
}

/**
 * Whether the frame ends with an EOI (JPEG, JPEG-LS) or EOC (JPEG 2000) marker — both are 0xFFD9 — within its last
 * 16 bytes (DICOM pads fragments to an even length; some writers add a little more). Entropy-coded data of all
 * three can never hold 0xFFD9, so a frame cut anywhere lacks it: the check that catches truncation even where a
 * decoder would quietly fill the missing rows.
 */
export function endsWithEndMarker(frame: Uint8Array): boolean {
  for (let at = frame.length - 2; at >= 0 && at >= frame.length - 16; at--) {
    if (frame[at] === 0xff && frame[at + 1] === 0xd9) return true;
  }
  return false;
}

export const hex = (n: number) => n.toString(16).toUpperCase().padStart(2, '0');
