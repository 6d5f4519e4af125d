import type { DicomImage, VoiLutFunction, VoiWindow } from './dicom-image.js';
import { lookUp, type LutTable } from './lut-table.js';

/**
 * How the VOI stage is chosen: the file's first window (else its first VOI LUT, else min/max), the full modality
 * range, a given window, or the file's n-th VOI LUT (1-based).
 */
export type WindowChoice = { kind: 'auto' } | { kind: 'none' } | { kind: 'given'; center: number; width: number } | { kind: 'lut'; index: number };

/** The VOI stage actually applied to one image, as recorded in the manifest (a LUT by its place and shape, not its data). */
export type AppliedVoi =
  | { kind: 'window'; source: 'file' | 'min-max' | 'given'; center: number; width: number; function: VoiLutFunction }
  | { kind: 'range'; low: number; high: number }
  | { kind: 'lut'; index: number; firstMapped: number; entries: number; bits: number; explanation: string | null };

/** The modality stage: Rescale Slope/Intercept, or a Modality LUT Sequence table (the file has one or the other). */
export type ModalityStage = { kind: 'rescale'; slope: number; intercept: number } | { kind: 'lut'; table: LutTable };

/** The modality stage of an image. */
export function modalityStage(image: Pick<DicomImage, 'modalityLut' | 'rescaleSlope' | 'rescaleIntercept'>): ModalityStage {
  return image.modalityLut ? { kind: 'lut', table: image.modalityLut } : { kind: 'rescale', slope: image.rescaleSlope, intercept: image.rescaleIntercept };
}

/** One stored value through the modality stage. */
export function modalityValue(stage: ModalityStage, stored: number): number {
  return stage.kind === 'lut' ? lookUp(stage.table, stored) : stored * stage.slope + stage.intercept;
}

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

/**
 * The range of modality values the stored bits can hold: the lowest and highest stored value through the rescale,
 * or, through a Modality LUT, the range its entries' bits can hold (0 … 2^bits − 1, as dcmtk takes it).
 */
export function modalityRange(image: Pick<DicomImage, 'bitsStored' | 'pixelRepresentation' | 'rescaleSlope' | 'rescaleIntercept'> & { modalityLut?: LutTable | null }): { low: number; high: number } {
  if (image.modalityLut) return { low: 0, high: 2 ** image.modalityLut.bits - 1 };
  const lo = image.pixelRepresentation === 1 ? -(2 ** (image.bitsStored - 1)) : 0;
  const hi = image.pixelRepresentation === 1 ? 2 ** (image.bitsStored - 1) - 1 : 2 ** image.bitsStored - 1;
  const a = lo * image.rescaleSlope + image.rescaleIntercept;
  const b = hi * image.rescaleSlope + image.rescaleIntercept;
  return { low: Math.min(a, b), high: Math.max(a, b) };
}

/** A VOI LUT of the file as the manifest records it. */
function appliedLut(tables: readonly LutTable[], index: number): AppliedVoi {
  const t = tables[index - 1]!;
  return { kind: 'lut', index, firstMapped: t.firstMapped, entries: t.data.length, bits: t.bits, explanation: t.explanation };
}

/**
 * Chooses the VOI stage for one image: `auto` takes the file's first window, else its first VOI LUT, else a window
 * over the actual min/max of the modality values. A `lut` choice must name a table the file has (the caller checks).
 */
export function chooseVoi(choice: WindowChoice, windows: VoiWindow[], fn: VoiLutFunction, modality: ArrayLike<number>, range: { low: number; high: number }, voiLuts: readonly LutTable[] = []): AppliedVoi {
  if (choice.kind === 'given') return { kind: 'window', source: 'given', center: choice.center, width: choice.width, function: fn };
  if (choice.kind === 'none') return { kind: 'range', ...range };
  if (choice.kind === 'lut') return appliedLut(voiLuts, choice.index);
  const first = windows[0];
  if (first) return { kind: 'window', source: 'file', center: first.center, width: first.width, function: fn };
  if (voiLuts.length > 0) return appliedLut(voiLuts, 1);
  const { min, max } = storedExtent(modality);
  // A window [min, max] under LINEAR: centre (min+max)/2 + 0.5 and width max−min+1 put min at 0 and max at yMax.
  return { kind: 'window', source: 'min-max', center: (min + max) / 2 + 0.5, width: Math.max(max - min + 1, 1), function: 'LINEAR' };
}

/**
 * The VOI stage as a function of the modality value, onto [0, yMax] (not yet rounded). A VOI LUT's output,
 * 0 … 2^bits − 1, is scaled onto the output range.
 */
function voiFunction(voi: AppliedVoi, yMax: number, voiLut: LutTable | undefined): (x: number) => number {
  if (voi.kind === 'range') return (x) => rangeMap(x, voi.low, voi.high, yMax);
  if (voi.kind === 'lut') {
    if (!voiLut) throw new Error(`VOI LUT ${voi.index} applied without its table`);
    const top = 2 ** voiLut.bits - 1;
    return (x) => (lookUp(voiLut, x) / top) * yMax;
  }
  if (voi.function === 'SIGMOID') return (x) => voiSigmoid(x, voi.center, voi.width, yMax);
  if (voi.function === 'LINEAR_EXACT') return (x) => voiLinearExact(x, voi.center, voi.width, yMax);
  return (x) => voiLinear(x, voi.center, voi.width, yMax);
}

/**
 * Applies the VOI stage and the presentation polarity, producing display values of `bits` bits. MONOCHROME1
 * and Presentation LUT Shape INVERSE both mean "low values are white": the output is inverted once, not twice,
 * because DX files of MONOCHROME1 are required to say INVERSE as well.
 */
export function renderGrey(modality: ArrayLike<number>, voi: AppliedVoi, invert: boolean, bits: 8 | 16, voiLut?: LutTable): Uint8Array | Uint16Array {
  const yMax = bits === 8 ? 255 : 65535;
  const out = bits === 8 ? new Uint8Array(modality.length) : new Uint16Array(modality.length);
  const f = voiFunction(voi, yMax, voiLut);
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
export function renderStoredThroughLut(stored: ArrayLike<number>, extent: { min: number; max: number }, modality: ModalityStage, voi: AppliedVoi, invert: boolean, bits: 8 | 16, voiLut?: LutTable, into?: Uint8Array | Uint16Array): Uint8Array | Uint16Array {
  const size = extent.max - extent.min + 1;
  const values = new Float64Array(size);
  for (let k = 0; k < size; k++) values[k] = modalityValue(modality, extent.min + k);
  const lut = renderGrey(values, voi, invert, bits, voiLut);
  const out = into ?? (bits === 8 ? new Uint8Array(stored.length) : new Uint16Array(stored.length));
  const offset = extent.min;
  for (let i = 0; i < stored.length; i++) out[i] = lut[stored[i]! - offset]!;
  return out;
}

/** Whether the image is shown inverted (see renderGrey). */
export function isInverted(image: Pick<DicomImage, 'photometric' | 'presentationLutShape'>): boolean {
  return image.photometric === 'MONOCHROME1' || image.presentationLutShape === 'INVERSE';
}

/** Parses `--window`: `auto`, `none`, `lut` / `lut:<n>` or `<center>/<width>` (width > 0); null when it is none of these. */
export function parseWindow(text: string): WindowChoice | null {
  if (text === 'auto' || text === 'none') return { kind: text };
  const lut = /^lut(?::([1-9]\d{0,3}))?$/.exec(text.trim());
  if (lut) return { kind: 'lut', index: lut[1] ? Number(lut[1]) : 1 };
  const m = /^(-?\d+(?:\.\d+)?)\/(\d+(?:\.\d+)?)$/.exec(text.trim());
  if (!m) return null;
  const width = Number(m[2]);
  return width > 0 ? { kind: 'given', center: Number(m[1]), width } : null;
}
