import { mkdir, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { writeFileAtomically } from './atomic-write.js';
import { loadOrCreateDeidKey } from './deid-key.js';
import type { ConvertJob, ConvertResult } from './convert-one.js';
import { listInputs } from './list-inputs.js';
import { appendManifest, MANIFEST_FILE, openManifest, type ManifestEntry } from './manifest.js';
import type { Layout } from './output-layout.js';
import type { RenderOptions } from './render-png.js';
import { studyMetadata } from './study-metadata.js';
import { startConvertPool } from './thread-pool.js';
import type { WindowChoice } from './transforms.js';

function windowText(window: WindowChoice): string {
  if (window.kind === 'given') return `${window.center}/${window.width}`;
  return window.kind === 'lut' ? `lut:${window.index}` : window.kind;
}

/** Options of one `images convert` run (defaults are merged by the caller, the CLI). */
export interface ConvertOptions extends RenderOptions {
  out: string;
  layout: Layout;
  deid: boolean;
  /** How many conversion threads (at most one per file to convert). */
  threads: number;
  /** Where to write ReXGradient-style study metadata for everything in the manifest, if anywhere. */
  metadata?: string;
}

/** One file that could not be converted, and why. */
export interface ConvertFailure {
  file: string;
  reason: string;
}

/** What a run did (counts only: the manifest holds the entries, and a large run should not hold them twice). */
export interface ConvertSummary {
  converted: number;
  skipped: number;
  failed: ConvertFailure[];
  manifest: string;
  deidKeyFile: string | null;
}

/** Where the --deid key of an output folder lives: beside it, named after it. */
export function deidKeyFileFor(out: string): string {
  return `${resolve(out)}.deid-key`;
}

/**
 * Converts DICOM files (or folders of them) to PNG under `out`, appending one manifest line per image. A file
 * that fails is reported through `onFailure` and the run goes on. Resumable: a source whose manifest line and
 * output both exist is skipped without being read again. Files are decoded in worker threads; this thread
 * lists, schedules and writes (atomically, then the manifest line), so it never decodes.
 */
export async function convertImages(paths: string[], options: ConvertOptions, onFailure: (failure: ConvertFailure) => void = () => {}): Promise<ConvertSummary> {
  const out = resolve(options.out);
  const manifest = join(out, MANIFEST_FILE);
  const deidKeyFile = options.deid ? deidKeyFileFor(out) : null;
  await mkdir(out, { recursive: true });
  const key = deidKeyFile ? await loadOrCreateDeidKey(deidKeyFile) : null;
  const previous = await openManifest(manifest);
  const done = new Map(previous.map((e) => [e.source, e]));
  const claimed = new Map(previous.map((e) => [e.output, e.source]));
  const summary: ConvertSummary = { converted: 0, skipped: 0, failed: [], manifest, deidKeyFile };
  const fail = (file: string, reason: string) => {
    const failure = { file, reason };
    summary.failed.push(failure);
    onFailure(failure);
  };

  const runOptions: ManifestEntry['options'] = { scale: options.scale, bits: options.bits, window: windowText(options.window), layout: options.layout, deid: options.deid };
  const sameOptions = (e: ManifestEntry) => JSON.stringify(e.options) === JSON.stringify(runOptions);
  const { files, unusable } = await listInputs(paths);
  for (const { path, reason } of unusable) fail(path, reason);
  const pending: string[] = [];
  for (const file of files) {
    const before = done.get(file);
    if (before && (await stat(join(out, before.output)).catch(() => null))) {
      if (sameOptions(before)) summary.skipped++;
      // Mixing options in one folder would give a manifest that describes neither run: refuse, keep the old image.
      else fail(file, `already converted in ${out} with other options (${JSON.stringify(before.options)}): use another --out`);
    } else pending.push(file);
  }
  if (pending.length > 0) await convertPending(pending, options, key, runOptions, { out, manifest, claimed, summary, fail });
  if (options.metadata) {
    // From the whole manifest, not this run's entries: a resumed run describes everything converted so far.
    const text = `${JSON.stringify(studyMetadata(await openManifest(manifest)), null, 2)}\n`;
    await writeFileAtomically(resolve(options.metadata), new TextEncoder().encode(text));
  }
  return summary;
}

interface RunState {
  out: string;
  manifest: string;
  claimed: Map<string, string>;
  summary: ConvertSummary;
  fail: (file: string, reason: string) => void;
}

async function convertPending(pending: string[], options: ConvertOptions, key: Buffer | null, runOptions: ManifestEntry['options'], state: RunState): Promise<void> {
  const { out, manifest, claimed, summary, fail } = state;

  const pool = startConvertPool(Math.max(1, Math.min(options.threads, pending.length)));
  const deidKey = key ? key.toString('hex') : null;
  const job = (file: string): ConvertJob => ({ file, render: { scale: options.scale, bits: options.bits, window: options.window }, layout: options.layout, deidKey, options: runOptions });
  // A sliding window of jobs in flight, taken back in input order: the threads stay busy, the manifest follows
  // the input order whatever the threads' timing, and finished PNGs waiting to be written stay few.
  const inFlight: Promise<ConvertResult>[] = [];
  const maxInFlight = options.threads * 4;
  let next = 0;
  try {
    while (next < pending.length || inFlight.length > 0) {
      while (next < pending.length && inFlight.length < maxInFlight) inFlight.push(pool.run(job(pending[next++]!)));
      const file = pending[next - inFlight.length]!;
      const result = await inFlight.shift()!;
      if (!result.ok) {
        fail(file, result.reason);
        continue;
      }
      const owner = claimed.get(result.entry.output);
      if (owner !== undefined && owner !== file) {
        fail(file, `same output ${result.entry.output} as ${owner} (the same SOP Instance UID): not overwritten`);
        continue;
      }
      const notWritten = await writeOutputs(out, manifest, result);
      if (notWritten) {
        fail(file, notWritten);
        continue;
      }
      claimed.set(result.entry.output, file);
      summary.converted++;
    }
  } finally {
    await pool.close();
  }
}

/** A Node file-system error (it names the system call), as opposed to a fault in this code. */
function fileSystemError(error: unknown): error is NodeJS.ErrnoException & { code: string } {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string' && typeof (error as NodeJS.ErrnoException).syscall === 'string';
}

/** "ENOSPC: no space left on device" from Node's "ENOSPC: no space left on device, write '/path/.x.tmp-…'". */
function shortFsMessage(error: NodeJS.ErrnoException): string {
  return error.message.split(', ')[0] ?? error.message;
}

/**
 * Writes one converted image and then its manifest line. A file-system error (a name too long, a full disk, a
 * file where a folder must go) fails that file only: the reason is returned and the run goes on with the others.
 * A PNG whose line cannot be added is removed again, so the manifest still lists exactly what is converted.
 */
async function writeOutputs(out: string, manifest: string, result: Extract<ConvertResult, { ok: true }>): Promise<string | null> {
  const png = join(out, result.entry.output);
  try {
    await writeFileAtomically(png, result.png);
  } catch (error) {
    if (!fileSystemError(error)) throw error;
    return `its PNG ${result.entry.output} could not be written (${shortFsMessage(error)}): not converted`;
  }
  try {
    await appendManifest(manifest, result.entry);
  } catch (error) {
    if (!fileSystemError(error)) throw error;
    await rm(png, { force: true });
    return `its line could not be added to ${manifest} (${shortFsMessage(error)}): not converted`;
  }
  return null;
}
