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

/**
 * The longest DICOM value that may name a file or folder: 64 characters, the most a UID (UI) or a Patient ID (LO)
 * may hold (PS3.5 6.2). A file system takes 255 bytes per name; a longer value (a damaged or hostile file) would
 * fail the write, so the file is refused instead, by name.
 */
export const MAX_PATH_VALUE = 64;

/**
 * Why the image's identifiers cannot name its output under `layout` (a value longer than MAX_PATH_VALUE), or null.
 * Under --deid the patient id and accession are hashes (32 characters), so only the file's own values can be long.
 */
export function outputPathProblem(image: Pick<DicomImage, 'studyInstanceUid' | 'seriesInstanceUid' | 'sopInstanceUid'>, ids: { patientId: string; accession: string }, layout: Layout): string | null {
  const named: [string, string][] = [['SOP Instance UID', image.sopInstanceUid]];
  if (layout === 'rexgradient') named.push(['Patient ID', ids.patientId], ['Accession Number', ids.accession], ['Study Instance UID', image.studyInstanceUid], ['Series Instance UID', image.seriesInstanceUid]);
  for (const [name, value] of named) {
    if (value.length <= MAX_PATH_VALUE) continue;
    const hint = name.endsWith('UID') ? 'a UID has at most 64' : 'a DICOM LO value has at most 64; --deid writes a hash of it instead';
    return `${name} of ${value.length} characters is too long to name an output file or folder (${hint}): not converted`;
  }
  return null;
}

/** The output path of one image, relative to --out, with forward slashes. */
export function outputPath(image: Pick<DicomImage, 'studyInstanceUid' | 'seriesInstanceUid' | 'sopInstanceUid'>, ids: { patientId: string; accession: string }, layout: Layout): string {
  const sop = `${component(image.sopInstanceUid)}.png`;
  if (layout === 'flat') return sop;
  return ['deid_png', component(ids.patientId), component(ids.accession), 'studies', component(image.studyInstanceUid), 'series', component(image.seriesInstanceUid), 'instances', sop].join('/');
}
