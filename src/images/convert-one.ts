import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { TOOL_VERSION } from '../core/version.js';
import { DicomRejection } from './dicom-image.js';
import { fileSizeProblem } from './dicom-limits.js';
import type { ManifestEntry } from './manifest.js';
import { outputPath, outputPathProblem, pathIds, type Layout } from './output-layout.js';
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

/**
 * One read buffer per thread, reused file after file: a fresh 10 MB buffer per film made V8 run a full garbage
 * collection for nearly every file (external memory pressure), ~8 ms each. A thread converts one file at a time
 * (the pool's contract), and nothing read from the buffer outlives convertOne: the PNG is a copy. The buffer keeps
 * the size of the largest file the thread has read (×1.25) until the run ends.
 */
let scratch = Buffer.allocUnsafeSlow(0);
let scratchInUse = false;

/**
 * The file's bytes, in the thread's reused buffer or (useScratch false) a buffer of their own. Opened without
 * blocking and refused unless it is a regular file within DICOM_LIMITS.maxBytes (checked before reading): the inputs were listed as regular
 * files, but a path can change before it is read, and a FIFO would block the thread for good.
 */
async function readWhole(file: string, useScratch: boolean): Promise<Uint8Array> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new DicomRejection(file, 'not a regular file (it changed after the inputs were listed): not read');
    const { size } = info;
    const tooLarge = fileSizeProblem(size);
    if (tooLarge) throw new DicomRejection(file, tooLarge);
    const target = !useScratch ? Buffer.allocUnsafeSlow(size) : scratch.length >= size ? scratch : (scratch = Buffer.allocUnsafeSlow(Math.ceil(size * 1.25)));
    let at = 0;
    while (at < size) {
      const { bytesRead } = await handle.read(target, at, size - at, at);
      if (bytesRead === 0) break;
      at += bytesRead;
    }
    return target.subarray(0, at);
  } finally {
    await handle.close();
  }
}

/** Reads, decodes and renders one file. Writes nothing: the caller decides whether the output may be written. */
export async function convertOne(job: ConvertJob): Promise<ConvertResult> {
  // A second convertOne in the same thread while one runs (not how the pool calls it) reads into a buffer of its own.
  const owns = !scratchInUse;
  scratchInUse = true;
  try {
    const image = readDicom(await readWhole(job.file, owns), job.file);
    const ids = pathIds(image, job.deidKey === null ? null : Buffer.from(job.deidKey, 'hex'));
    const pathProblem = outputPathProblem(image, ids, job.layout);
    if (pathProblem) throw new DicomRejection(job.file, pathProblem);
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
    // Any file-system error reading it (gone, no permission, a name too long, an I/O error) is this file's reason.
    if (typeof (error as NodeJS.ErrnoException).syscall === 'string') return { ok: false, reason: `unreadable: ${(error as Error).message}` };
    throw error;
  } finally {
    if (owns) scratchInUse = false;
  }
}
