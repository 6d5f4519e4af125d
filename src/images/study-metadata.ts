import type { ManifestEntry } from './manifest.js';

/** One study of ReXGradient-style metadata: its ids and its images with their view positions, in step. */
export interface StudyMetadata {
  PatientID: string;
  AccessionNumber: string;
  StudyInstanceUid: string;
  ImagePath: string[];
  ImageViewPosition: (string | null)[];
}

/**
 * ReXGradient-style study metadata from manifest entries: an object keyed `p<PatientID>_a<Accession>_s<StudyUID>`
 * (the key `dataset/` reads, restated here because images/ imports only core) with ImagePath relative to --out.
 * Under --deid the ids are the hashed ones, as in the paths. Studies and images are sorted for stable output.
 */
export function studyMetadata(entries: ManifestEntry[]): Record<string, StudyMetadata> {
  const studies = new Map<string, StudyMetadata>();
  // An image converted again (its PNG had been deleted) has two lines: the later one describes the file on disk.
  const latest = new Map(entries.map((e) => [e.output, e]));
  const sorted = [...latest.values()].sort((a, b) => (a.output < b.output ? -1 : a.output > b.output ? 1 : 0));
  for (const e of sorted) {
    const key = `p${e.patientId}_a${e.accession}_s${e.studyInstanceUid}`;
    let study = studies.get(key);
    if (!study) {
      study = { PatientID: e.patientId, AccessionNumber: e.accession, StudyInstanceUid: e.studyInstanceUid, ImagePath: [], ImageViewPosition: [] };
      studies.set(key, study);
    }
    study.ImagePath.push(e.output);
    study.ImageViewPosition.push(e.viewPosition);
  }
  return Object.fromEntries([...studies.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
