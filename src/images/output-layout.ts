import { createHmac } from 'node:crypto';
import type { DicomImage } from './dicom-image.js';

/** Where converted images go under --out: ReXGradient's nested layout, or every image side by side. */
export const LAYOUTS = ['rexgradient', 'flat'] as const;
/** One of LAYOUTS. */
export type Layout = (typeof LAYOUTS)[number];

/** Keyed hash of an identifier (HMAC-SHA256, 128 bits in hex): stable across runs with the same key, not reversible without it. */
export function keyedId(key: Buffer, value: string): string {
  return createHmac('sha256', key).update(value).digest('hex').slice(0, 32);
}

// A DICOM value becomes one path component: anything but [A-Za-z0-9._-] would let a PatientID such as "../x" or
// "a/b" escape or nest, so it is replaced; "." and ".." are not names.
function component(value: string): string {
  const safe = value.replace(/[^A-Za-z0-9._-]/g, '_');
  return safe === '' || safe === '.' || safe === '..' ? '_' : safe;
}

/** The patient and accession written in paths and the manifest: the file's own, or keyed hashes under --deid. */
export function pathIds(image: Pick<DicomImage, 'patientId' | 'accession'>, deidKey: Buffer | null): { patientId: string; accession: string } {
  const id = (value: string | null, missing: string) => (value === null ? missing : deidKey ? keyedId(deidKey, value) : value);
  return { patientId: id(image.patientId, 'NO_PATIENT_ID'), accession: id(image.accession, 'NO_ACCESSION') };
}

/** The output path of one image, relative to --out, with forward slashes. */
export function outputPath(image: Pick<DicomImage, 'studyInstanceUid' | 'seriesInstanceUid' | 'sopInstanceUid'>, ids: { patientId: string; accession: string }, layout: Layout): string {
  const sop = `${component(image.sopInstanceUid)}.png`;
  if (layout === 'flat') return sop;
  return ['deid_png', component(ids.patientId), component(ids.accession), 'studies', component(image.studyInstanceUid), 'series', component(image.seriesInstanceUid), 'instances', sop].join('/');
}
