import type { DicomImage, VoiLutFunction, VoiWindow } from './dicom-image.js';

/** How the VOI stage is chosen: the file's first window (else min/max), the full modality range, or a given window. */
export type WindowChoice = { kind: 'auto' } | { kind: 'none' } | { kind: 'given'; center: number; width: number };

/** The VOI stage actually applied to one image, as recorded in the manifest. */
export type AppliedVoi =
  | { kind: 'window'; source: 'file' | 'min-max' | 'given'; center: number; width: number; function: VoiLutFunction }
  | { kind: 'range'; low: number; high: number };

/** Modality LUT by Rescale Slope/Intercept (PS3.3 C.11.1): stored value → modality value (e.g. HU, or OD). */
export function modalityLut(stored: ArrayLike<number>, slope: number, intercept: number): Float64Array {
  const out = new Float64Array(stored.length);
  for (let i = 0; i < stored.length; i++) out[i] = stored[i]! * slope + intercept;
  return out;
}

/**
 * VOI function LINEAR (PS3.3 C.11.2.1.2.1), to the output range [0, yMax]. The −0.5 and w−1 terms are the
 * standard's: they make a window of width w map exactly w input steps onto the output range for integer inputs.
 */
export function voiLinear(x: number, center: number, width: number, yMax: number): number {
  const c = center - 0.5;
  const w = Math.max(width, 1) - 1;
  if (x <= c - w / 2) return 0;
  if (x > c + w / 2) return yMax;
  return w === 0 ? yMax : ((x - c) / w + 0.5) * yMax;
}

/** VOI function LINEAR_EXACT (PS3.3 C.11.2.1.3.2): the same ramp without the −0.5 / w−1 adjustments. */
export function voiLinearExact(x: number, center: number, width: number, yMax: number): number {
  if (x <= center - width / 2) return 0;
  if (x > center + width / 2) return yMax;
  return ((x - center) / width + 0.5) * yMax;
}

/** VOI function SIGMOID (PS3.3 C.11.2.1.3.1). */
export function voiSigmoid(x: number, center: number, width: number, yMax: number): number {
  return yMax / (1 + Math.exp((-4 * (x - center)) / width));
}

/** Linear map of [low, high] onto [0, yMax] (the `none` choice: no window, the full modality range). */
export function rangeMap(x: number, low: number, high: number, yMax: number): number {
  if (high <= low) return 0;
  return Math.min(Math.max((x - low) / (high - low), 0), 1) * yMax;
}

/** The range of modality values the stored bits can hold (lowest and highest stored value through the LUT). */
export function modalityRange(image: Pick<DicomImage, 'bitsStored' | 'pixelRepresentation' | 'rescaleSlope' | 'rescaleIntercept'>): { low: number; high: number } {
  const lo = image.pixelRepresentation === 1 ? -(2 ** (image.bitsStored - 1)) : 0;
  const hi = image.pixelRepresentation === 1 ? 2 ** (image.bitsStored - 1) - 1 : 2 ** image.bitsStored - 1;
  const a = lo * image.rescaleSlope + image.rescaleIntercept;
  const b = hi * image.rescaleSlope + image.rescaleIntercept;
  return { low: Math.min(a, b), high: Math.max(a, b) };
}

/** Chooses the VOI stage for one image: `auto` takes the file's first window, else a window over the actual min/max. */
export function chooseVoi(choice: WindowChoice, windows: VoiWindow[], fn: VoiLutFunction, modality: ArrayLike<number>, range: { low: number; high: number }): AppliedVoi {
  if (choice.kind === 'given') return { kind: 'window', source: 'given', center: choice.center, width: choice.width, function: fn };
  if (choice.kind === 'none') return { kind: 'range', ...range };
  const first = windows[0];
  if (first) return { kind: 'window', source: 'file', center: first.center, width: first.width, function: fn };
  const { min, max } = storedExtent(modality);
  // A window [min, max] under LINEAR: centre (min+max)/2 + 0.5 and width max−min+1 put min at 0 and max at yMax.
  return { kind: 'window', source: 'min-max', center: (min + max) / 2 + 0.5, width: Math.max(max - min + 1, 1), function: 'LINEAR' };
}

/**
 * Applies the VOI stage and the presentation polarity, producing display values of `bits` bits. MONOCHROME1
 * and Presentation LUT Shape INVERSE both mean "low values are white": the output is inverted once, not twice,
 * because DX files of MONOCHROME1 are required to say INVERSE as well.
 */
export function renderGrey(modality: ArrayLike<number>, voi: AppliedVoi, invert: boolean, bits: 8 | 16): Uint8Array | Uint16Array {
  const yMax = bits === 8 ? 255 : 65535;
  const out = bits === 8 ? new Uint8Array(modality.length) : new Uint16Array(modality.length);
  const f =
    voi.kind === 'range'
      ? (x: number) => rangeMap(x, voi.low, voi.high, yMax)
      : voi.function === 'SIGMOID'
        ? (x: number) => voiSigmoid(x, voi.center, voi.width, yMax)
        : voi.function === 'LINEAR_EXACT'
          ? (x: number) => voiLinearExact(x, voi.center, voi.width, yMax)
          : (x: number) => voiLinear(x, voi.center, voi.width, yMax);
  for (let i = 0; i < modality.length; i++) {
    const y = Math.round(Math.min(Math.max(f(modality[i]!), 0), yMax));
    out[i] = invert ? yMax - y : y;
  }
  return out;
}

/** The smallest and largest of an image's values (stored or modality), in one pass. */
export function storedExtent(stored: ArrayLike<number>): { min: number; max: number } {
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < stored.length; i++) {
    const v = stored[i]!;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return { min, max };
}

/**
 * The whole chain — modality LUT, VOI, polarity — as one lookup table over the stored values that occur (at most
 * 65,536 for ≤ 16 stored bits), applied in one pass. Each entry is computed exactly as renderGrey computes a
 * pixel, so the output is the same; a 5-megapixel film is a table of a few thousand entries and one array read per
 * pixel instead of a Float64 copy and a function call per pixel.
 */
export function renderStoredThroughLut(stored: ArrayLike<number>, extent: { min: number; max: number }, slope: number, intercept: number, voi: AppliedVoi, invert: boolean, bits: 8 | 16): Uint8Array | Uint16Array {
  const size = extent.max - extent.min + 1;
  const values = new Float64Array(size);
  for (let k = 0; k < size; k++) values[k] = (extent.min + k) * slope + intercept;
  const lut = renderGrey(values, voi, invert, bits);
  const out = bits === 8 ? new Uint8Array(stored.length) : new Uint16Array(stored.length);
  const offset = extent.min;
  for (let i = 0; i < stored.length; i++) out[i] = lut[stored[i]! - offset]!;
  return out;
}

/** Whether the image is shown inverted (see renderGrey). */
export function isInverted(image: Pick<DicomImage, 'photometric' | 'presentationLutShape'>): boolean {
  return image.photometric === 'MONOCHROME1' || image.presentationLutShape === 'INVERSE';
}

/** Parses `--window`: `auto`, `none` or `<center>/<width>` (width > 0); null when it is none of these. */
export function parseWindow(text: string): WindowChoice | null {
  if (text === 'auto' || text === 'none') return { kind: text };
  const m = /^(-?\d+(?:\.\d+)?)\/(\d+(?:\.\d+)?)$/.exec(text.trim());
  if (!m) return null;
  const width = Number(m[2]);
  return width > 0 ? { kind: 'given', center: Number(m[1]), width } : null;
}
