import { randomBytes } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { CxrError } from '../core/errors.js';
import { STATE_DIR } from './selection.js';

/** The manifest's file name in the output folder. */
export const MANIFEST_FILE = 'cxrbench-download.json';

const listed = z.object({ path: z.string(), size: z.number().int().nonnegative(), sha256: z.string().optional(), gitSha1: z.string().optional() });

const fileRecord = z.object({
  repo: z.string(),
  path: z.string(),
  dest: z.string(),
  kind: z.enum(['metadata', 'archive-part']),
  size: z.number().int().nonnegative(),
  sha256: z.string().optional(),
  gitSha1: z.string().optional(),
  /** Set once size and hash matched the listing; with mtimeMs, what a rerun trusts instead of hashing again. */
  verifiedAt: z.string().optional(),
  mtimeMs: z.number().optional(),
  /** An archive part deleted after the archive was extracted (its hash stays on record). */
  removed: z.boolean().optional(),
});

const journal = z.object({
  entriesDone: z.number().int().nonnegative(),
  lastEntry: z.string().nullable(),
  filesOut: z.number().int().nonnegative(),
  bytesOut: z.number().nonnegative(),
  partsRead: z.number().int().nonnegative(),
  complete: z.boolean(),
});

const manifestSchema = z.object({
  format: z.literal('cxrbench-download/1'),
  toolVersion: z.string(),
  /** The hub the files came from (never a token: it is read from the environment on every run). */
  endpoint: z.string(),
  startedAt: z.string(),
  updatedAt: z.string(),
  completedAt: z.string().nullable(),
  /**
   * Each repo's requested revision, the commit it was pinned to at the start, and the listing of the files cxrbench
   * uses there (question files, archive parts): a rerun works from these, so it never mixes two versions.
   */
  repos: z.record(z.string(), z.object({ requested: z.string(), revision: z.string(), listing: z.array(listed) })),
  files: z.array(fileRecord),
  archive: journal.nullable(),
});

/** What was fetched into an output folder, and how far: the record a rerun resumes from and trusts. */
export type DownloadManifest = z.infer<typeof manifestSchema>;
/** One file of the manifest. */
export type ManifestFile = z.infer<typeof fileRecord>;

/** Reads the manifest of an output folder; null when there is none yet. A damaged one is an error naming the field. */
export async function readManifest(outDir: string): Promise<DownloadManifest | null> {
  const path = join(outDir, MANIFEST_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return null;
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new CxrError('unreadable-file', `${path}: not JSON (${(error as Error).message}); move it away to start the download over`);
  }
  const parsed = manifestSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new CxrError('unreadable-file', `${path}: field ${issue.path.join('.') || '(top)'}: ${issue.message}; move it away to start the download over`);
  }
  return parsed.data;
}

/** Writes the manifest atomically (a temp file in the state folder, then rename), so a kill never leaves half of it. */
export async function writeManifest(outDir: string, manifest: DownloadManifest): Promise<void> {
  const temp = join(outDir, STATE_DIR, `manifest.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    await writeFile(temp, JSON.stringify(manifest, null, 2) + '\n');
    await rename(temp, join(outDir, MANIFEST_FILE));
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
