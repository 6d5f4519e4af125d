import type { LutTable } from './lut-table.js';

/** One decoded single-frame greyscale DICOM image: the attributes the rendering chain needs, and its stored pixels. */
export interface DicomImage {
  sopInstanceUid: string;
  studyInstanceUid: string;
  seriesInstanceUid: string;
  sopClassUid: string;
  transferSyntaxUid: string;
  patientId: string | null;
  accession: string | null;
  viewPosition: string | null;
  rows: number;
  columns: number;
  bitsAllocated: number;
  bitsStored: number;
  /** 0 = unsigned, 1 = two's complement. */
  pixelRepresentation: 0 | 1;
  photometric: 'MONOCHROME1' | 'MONOCHROME2';
  rescaleSlope: number;
  rescaleIntercept: number;
  /** Every window the file carries (Window Center/Width are multi-valued: pair i goes together). */
  windows: VoiWindow[];
  voiLutFunction: VoiLutFunction;
  presentationLutShape: 'IDENTITY' | 'INVERSE' | null;
  /** The Modality LUT Sequence's table, which replaces the rescale (PS3.3 C.11.1), or null. */
  modalityLut: LutTable | null;
  /** The VOI LUT Sequence's tables, in file order (the alternatives to the windows). */
  voiLuts: LutTable[];
  frames: number;
  /** Stored values, already masked to Bits Stored and sign-extended when Pixel Representation is 1. */
  pixels: Uint8Array | Uint16Array | Int32Array;
  /** The lowest and highest stored value present. */
  storedRange: { min: number; max: number };
}

/** A window centre and width, in modality units. */
export interface VoiWindow {
  center: number;
  width: number;
  explanation?: string;
}

/** The VOI LUT Function (0028,1056); LINEAR when absent. */
export type VoiLutFunction = 'LINEAR' | 'LINEAR_EXACT' | 'SIGMOID';

/** Why one DICOM file could not be turned into a DicomImage; the message names the file and the reason. */
export class DicomRejection extends Error {
  readonly file: string;
  readonly reason: string;
  constructor(file: string, reason: string) {
    super(`${file}: ${reason}`);
    this.name = 'DicomRejection';
    this.file = file;
    this.reason = reason;
  }
}
