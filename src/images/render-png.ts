import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { DicomRejection, type DicomImage } from './dicom-image.js';
import { chooseVoi, isInverted, modalityLut, modalityRange, modalityStage, modalityValue, renderGrey, renderStoredThroughLut, type AppliedVoi, type ModalityStage, type WindowChoice } from './transforms.js';

/**
 * The resampling kernel. Lanczos-3 is what PIL's `Image.LANCZOS` uses, the usual filter of the public CXR PNG
 * releases, so images made here look like the ones models were trained on; libvips widens the kernel by the
 * shrink factor, which is the anti-aliasing. Its slight ringing at hard edges (wires, markers) is clipped.
 */
export const RESIZE_KERNEL = 'lanczos3';

/** What rendering options a conversion takes. */
export interface RenderOptions {
  scale: number;
  bits: 8 | 16;
  window: WindowChoice;
}

/** One image rendered to PNG, with the transform that was applied (for the manifest). */
export interface RenderedPng {
  png: Buffer;
  sha256: string;
  after: { rows: number; columns: number };
  transform: {
    /** The rescale, or (slope 1, intercept 0 and) the Modality LUT that replaced it. */
    modality: { slope: number; intercept: number; lut?: { firstMapped: number; entries: number; bits: number; explanation: string | null } };
    voi: AppliedVoi;
    inverted: boolean;
    bits: 8 | 16;
    scale: number;
    kernel: string | null;
  };
}

/** The lowest and highest modality value of the stored values that occur (a Modality LUT need not be monotonic). */
function modalityOfPresent(pixels: ArrayLike<number>, extent: { min: number; max: number }, modality: ModalityStage): number[] {
  const present = new Uint8Array(extent.max - extent.min + 1);
  for (let i = 0; i < pixels.length; i++) present[pixels[i]! - extent.min] = 1;
  let low = Infinity;
  let high = -Infinity;
  for (let k = 0; k < present.length; k++) {
    if (!present[k]) continue;
    const v = modalityValue(modality, extent.min + k);
    if (v < low) low = v;
    if (v > high) high = v;
  }
  return [low, high];
}

/** DicomImage → greyscale PNG: modality LUT, VOI, polarity, then (if scale ≠ 1) an anti-aliased resize. */
export async function renderPng(image: DicomImage, options: RenderOptions, file: string): Promise<RenderedPng> {
  // A second render in the same thread while one runs (not how the converter calls it) gets arrays of its own.
  const owns = !greyInUse;
  greyInUse = true;
  try {
    return await render(image, options, file, owns);
  } finally {
    if (owns) greyInUse = false;
  }
}

/**
 * One full-resolution output array per thread, reused image after image (sharp is done with it once its promise
 * settles): a fresh 5–10 MB array per film made V8 collect garbage for nearly every file.
 */
let greyScratch = new ArrayBuffer(0);
let greyInUse = false;

function greyBuffer(length: number, bits: 8 | 16): Uint8Array | Uint16Array {
  const bytes = length * (bits / 8);
  if (greyScratch.byteLength < bytes) greyScratch = new ArrayBuffer(Math.ceil(bytes * 1.25));
  return bits === 8 ? new Uint8Array(greyScratch, 0, length) : new Uint16Array(greyScratch, 0, length);
}

async function render(image: DicomImage, options: RenderOptions, file: string, owns: boolean): Promise<RenderedPng> {
  if (options.window.kind === 'lut' && options.window.index > image.voiLuts.length) {
    throw new DicomRejection(file, `--window lut:${options.window.index}: the file has ${image.voiLuts.length === 0 ? 'no VOI LUT Sequence' : `${image.voiLuts.length} VOI LUT(s)`}`);
  }
  const inverted = isInverted(image);
  const modality = modalityStage(image);
  const extent = image.storedRange;
  let grey: Uint8Array | Uint16Array;
  let voi: AppliedVoi;
  const voiLutOf = (v: AppliedVoi) => (v.kind === 'lut' ? image.voiLuts[v.index - 1] : undefined);
  if (Number.isFinite(extent.min) && extent.max - extent.min < 1 << 17) {
    // Integer stored values in a small range: the whole chain is one table over them. Through a rescale the
    // modality extremes are those of the two stored extremes; through a Modality LUT they are found over the
    // stored values that occur.
    const ends = modality.kind === 'rescale' ? [modalityValue(modality, extent.min), modalityValue(modality, extent.max)] : modalityOfPresent(image.pixels, extent, modality);
    voi = chooseVoi(options.window, image.windows, image.voiLutFunction, ends, modalityRange(image), image.voiLuts);
    grey = renderStoredThroughLut(image.pixels, extent, modality, voi, inverted, options.bits, voiLutOf(voi), owns ? greyBuffer(image.pixels.length, options.bits) : undefined);
  } else {
    const values = modality.kind === 'rescale' ? modalityLut(image.pixels, modality.slope, modality.intercept) : Float64Array.from(image.pixels, (v) => modalityValue(modality, v));
    voi = chooseVoi(options.window, image.windows, image.voiLutFunction, values, modalityRange(image), image.voiLuts);
    grey = renderGrey(values, voi, inverted, options.bits, voiLutOf(voi));
  }
  const columns = Math.max(1, Math.round(image.columns * options.scale));
  const rows = Math.max(1, Math.round(image.rows * options.scale));
  let pipeline = sharp(grey, { raw: { width: image.columns, height: image.rows, channels: 1 } });
  const resized = options.scale !== 1;
  if (resized) pipeline = pipeline.resize(columns, rows, { kernel: RESIZE_KERNEL, fit: 'fill' });
  // grey16 keeps 16-bit samples 16-bit (sharp would otherwise write 8-bit); b-w keeps one channel.
  const png = await pipeline.toColourspace(options.bits === 16 ? 'grey16' : 'b-w').png({ compressionLevel: 6 }).toBuffer();
  return {
    png,
    sha256: createHash('sha256').update(png).digest('hex'),
    after: { rows, columns },
    transform: {
      modality: modality.kind === 'rescale'
        ? { slope: modality.slope, intercept: modality.intercept }
        : { slope: 1, intercept: 0, lut: { firstMapped: modality.table.firstMapped, entries: modality.table.data.length, bits: modality.table.bits, explanation: modality.table.explanation } },
      voi,
      inverted,
      bits: options.bits,
      scale: options.scale,
      kernel: resized ? RESIZE_KERNEL : null,
    },
  };
}
