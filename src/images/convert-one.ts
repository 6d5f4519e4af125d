import { readFile } from 'node:fs/promises';
import { TOOL_VERSION } from '../core/version.js';
import { DicomRejection } from './dicom-image.js';
import type { ManifestEntry } from './manifest.js';
import { outputPath, pathIds, type Layout } from './output-layout.js';
import { readDicom } from './read-dicom.js';
import { renderPng, type RenderOptions } from './render-png.js';

/** What a conversion thread is asked to do with one file (plain data: it crosses the thread boundary). */
export interface ConvertJob {
  file: string;
  render: RenderOptions;
  layout: Layout;
  /** The --deid key in hex, or null. */
  deidKey: string | null;
  options: ManifestEntry['options'];
}

/** One file's outcome: the PNG bytes and its manifest entry (nothing is written yet), or why it failed. */
export type ConvertResult = { ok: true; png: Uint8Array; entry: ManifestEntry } | { ok: false; reason: string };

/** Reads, decodes and renders one file. Writes nothing: the caller decides whether the output may be written. */
export async function convertOne(job: ConvertJob): Promise<ConvertResult> {
  try {
    const image = readDicom(await readFile(job.file), job.file);
    const ids = pathIds(image, job.deidKey === null ? null : Buffer.from(job.deidKey, 'hex'));
    const rendered = await renderPng(image, job.render, job.file);
    const entry: ManifestEntry = {
      source: job.file,
      output: outputPath(image, ids, job.layout),
      sha256: rendered.sha256,
      sopInstanceUid: image.sopInstanceUid,
      studyInstanceUid: image.studyInstanceUid,
      seriesInstanceUid: image.seriesInstanceUid,
      patientId: ids.patientId,
      accession: ids.accession,
      deidentified: job.deidKey !== null,
      viewPosition: image.viewPosition,
      transferSyntaxUid: image.transferSyntaxUid,
      before: { rows: image.rows, columns: image.columns },
      after: rendered.after,
      transform: rendered.transform,
      options: job.options,
      toolVersion: TOOL_VERSION,
    };
    // A copy in an ArrayBuffer of its own: sharp's output buffer is external memory, which cannot be transferred.
    return { ok: true, png: new Uint8Array(rendered.png), entry };
  } catch (error) {
    if (error instanceof DicomRejection) return { ok: false, reason: error.reason };
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR') return { ok: false, reason: `unreadable: ${(error as Error).message}` };
    throw error;
  }
}
