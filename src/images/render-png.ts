import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { DicomRejection, type DicomImage } from './dicom-image.js';
import { chooseVoi, isInverted, modalityLut, modalityRange, renderGrey, renderStoredThroughLut, type AppliedVoi, type WindowChoice } from './transforms.js';

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
    modality: { slope: number; intercept: number };
    voi: AppliedVoi;
    inverted: boolean;
    bits: 8 | 16;
    scale: number;
    kernel: string | null;
  };
}

/** DicomImage → greyscale PNG: modality LUT, VOI, polarity, then (if scale ≠ 1) an anti-aliased resize. */
export async function renderPng(image: DicomImage, options: RenderOptions, file: string): Promise<RenderedPng> {
  if (image.hasModalityLutSequence) throw new DicomRejection(file, 'has a Modality LUT Sequence, which this version does not apply yet');
  if (image.hasVoiLutSequence && options.window.kind === 'auto' && image.windows.length === 0) {
    throw new DicomRejection(file, 'its only VOI is a VOI LUT Sequence, which this version does not apply yet: pass --window none or <center>/<width>');
  }
  const inverted = isInverted(image);
  const extent = image.storedRange;
  let grey: Uint8Array | Uint16Array;
  let voi: AppliedVoi;
  if (Number.isFinite(extent.min) && extent.max - extent.min < 1 << 17) {
    // Integer stored values in a small range: the modality extent is that of the two stored extremes (the LUT is linear).
    const ends = modalityLut([extent.min, extent.max], image.rescaleSlope, image.rescaleIntercept);
    voi = chooseVoi(options.window, image.windows, image.voiLutFunction, ends, modalityRange(image));
    grey = renderStoredThroughLut(image.pixels, extent, image.rescaleSlope, image.rescaleIntercept, voi, inverted, options.bits);
  } else {
    const modality = modalityLut(image.pixels, image.rescaleSlope, image.rescaleIntercept);
    voi = chooseVoi(options.window, image.windows, image.voiLutFunction, modality, modalityRange(image));
    grey = renderGrey(modality, voi, inverted, options.bits);
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
      modality: { slope: image.rescaleSlope, intercept: image.rescaleIntercept },
      voi,
      inverted,
      bits: options.bits,
      scale: options.scale,
      kernel: resized ? RESIZE_KERNEL : null,
    },
  };
}
