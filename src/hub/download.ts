import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { CxrError } from '../core/errors.js';
import { TOOL_VERSION } from '../core/version.js';
import { EMPTY_JOURNAL, type ArchiveJournal } from './extract-archive.js';
import { ConnectionPool } from './connection-pool.js';
import { startExtraction } from './extract-in-thread.js';
import { DEFAULT_RANGE_BYTES, fetchVerified, partialPath, type FetchSettings } from './fetch-file.js';
import { hashFile } from './file-hash.js';
import { diskFullError, statfsFree, type FreeSpace } from './free-space.js';
import { listRepoFiles, resolveRevision, type HubConnection } from './hub-client.js';
import { holdLock } from './lock.js';
import { readManifest, writeManifest, type DownloadManifest, type ManifestFile } from './manifest.js';
import { archiveParts, parseRevisions, questionFiles, reposFor, REXGRADIENT_REPO, REXVQA_REPO, STATE_DIR, type DownloadWhat, type ListedFile, type PlannedFile } from './selection.js';

/** Everything `data download` was asked. */
export interface DownloadOptions {
  outDir: string;
  what: DownloadWhat;
  /** ReXVQA splits to fetch; undefined for every split the repo has. */
  splits?: string[];
  /** `--revision`: one revision for every repo, or `repo=rev` pairs; undefined pins `main` at the start. */
  revision?: string;
  hub: HubConnection;
  /** Connections at once: several files, or several ranges of one large file (the earliest unfinished file first). */
  concurrency: number;
  settings: FetchSettings;
  /** Hash every file on disk again instead of trusting the manifest's size and mtime. */
  verify: boolean;
  /** Keep the archive parts after extraction (by default they are deleted once every image is out). */
  keepParts: boolean;
  freeSpace?: FreeSpace;
  onEvent?: (event: DownloadEvent) => void;
}

/** What the download tells its shell as it goes (the shell draws progress; the core never prints). */
export type DownloadEvent =
  | { kind: 'plan'; revisions: Record<string, string>; files: { name: string; size: number; have: number }[]; extractBytes: number }
  | { kind: 'file-start'; name: string; size: number; have: number }
  | { kind: 'bytes'; name: string; delta: number }
  | { kind: 'file-done'; name: string }
  | { kind: 'extract'; journal: ArchiveJournal; parts: number; readDelta: number }
  | { kind: 'retry'; message: string };

/** How a run ended (errors are thrown as CxrError instead). */
export interface DownloadSummary {
  status: 'complete' | 'downloaded';
  revisions: Record<string, string>;
  files: number;
  bytes: number;
  images: number | null;
  seconds: number;
}

const nameOf = (f: { repo: string; path: string }) => `${f.repo.split('/')[1]}/${f.path}`;
const sameFile = (a: { repo: string; path: string }, b: { repo: string; path: string }) => a.repo === b.repo && a.path === b.path;
const relevant = (f: ListedFile) => /^metadata\/.+_vqa_data\.json$/.test(f.path) || /^deid_png\.part/.test(f.path);

async function sizeOf(path: string): Promise<number | null> {
  try {
    return (await stat(path)).size;
  } catch {
    return null;
  }
}

/** Pins each repo's revision (once, recorded) and gets its listing: from the manifest on a rerun, from the hub the first time. */
async function pinRepos(options: DownloadOptions, manifest: DownloadManifest): Promise<void> {
  const repos = reposFor(options.what);
  const asked = parseRevisions(options.revision, repos);
  for (const repo of repos) {
    const pinned = manifest.repos[repo];
    const wanted = asked[repo];
    if (pinned) {
      if (wanted !== undefined && wanted !== pinned.requested && wanted !== pinned.revision) {
        throw new CxrError('resume-conflict', `${options.outDir}: ${repo} was pinned to ${pinned.revision} (${pinned.requested}) by the first run here; --revision ${wanted} would mix two versions. Use a new --out folder for another revision.`);
      }
      continue;
    }
    const revision = await resolveRevision(options.hub, repo, wanted ?? 'main');
    const listing = (await listRepoFiles(options.hub, repo, revision)).filter(relevant);
    manifest.repos[repo] = { requested: wanted ?? 'main', revision, listing };
  }
}

function planFiles(options: DownloadOptions, manifest: DownloadManifest): PlannedFile[] {
  const plan: PlannedFile[] = [];
  if (options.what !== 'images') {
    const r = manifest.repos[REXVQA_REPO]!;
    plan.push(...questionFiles(r.listing, options.splits, r.revision));
  }
  if (options.what !== 'metadata') {
    const r = manifest.repos[REXGRADIENT_REPO]!;
    plan.push(...archiveParts(r.listing, r.revision));
  }
  return plan;
}

/** The manifest's record of a planned file, created (unverified) when new. */
function recordOf(manifest: DownloadManifest, file: PlannedFile): ManifestFile {
  let record = manifest.files.find((f) => sameFile(f, file));
  if (record && (record.size !== file.size || record.sha256 !== file.sha256 || record.gitSha1 !== file.gitSha1)) {
    manifest.files = manifest.files.filter((f) => f !== record);
    record = undefined;
  }
  if (!record) {
    record = { repo: file.repo, path: file.path, dest: file.dest, kind: file.kind, size: file.size, ...(file.sha256 ? { sha256: file.sha256 } : {}), ...(file.gitSha1 ? { gitSha1: file.gitSha1 } : {}) };
    manifest.files.push(record);
  }
  return record;
}

/**
 * Whether a file is already in place. Without --verify a verified file is trusted while its size and mtime are
 * those recorded (hashing hundreds of GB on every rerun would make "is it complete?" take an hour); with it, the
 * file is hashed again. A part deleted after its archive was extracted counts as done while the archive does.
 */
async function isDone(options: DownloadOptions, manifest: DownloadManifest, record: ManifestFile): Promise<boolean> {
  if (!record.verifiedAt) return false;
  if (record.removed) return manifest.archive?.complete === true;
  const path = join(options.outDir, record.dest);
  let s;
  try {
    s = await stat(path);
  } catch {
    return false;
  }
  if (s.size !== record.size) return false;
  if (!options.verify) return s.mtimeMs === record.mtimeMs;
  const check = await hashFile(path, record);
  if (check && check.actual !== check.expected) {
    options.onEvent?.({ kind: 'retry', message: `${nameOf(record)}: ${check.algorithm} ${check.actual} where the hub lists ${check.expected}; fetching it again` });
    await rm(path, { force: true });
    return false;
  }
  record.mtimeMs = s.mtimeMs;
  return true;
}

/** Counts the files and bytes under a folder (for --verify of the extracted images against the journal). */
async function treeSize(dir: string): Promise<{ files: number; bytes: number }> {
  let files = 0;
  let bytes = 0;
  let entries;
  try {
    entries = await readdir(dir, { recursive: true, withFileTypes: true });
  } catch {
    return { files, bytes };
  }
  for (const e of entries) {
    if (!e.isFile()) continue;
    files++;
    bytes += (await stat(join(e.parentPath, e.name))).size;
  }
  return { files, bytes };
}

/** With --verify, a complete archive whose images no longer add up is extracted again (its parts fetched again when deleted). */
async function verifyImages(options: DownloadOptions, manifest: DownloadManifest): Promise<void> {
  const journal = manifest.archive;
  if (!options.verify || !journal?.complete) return;
  const found = await treeSize(join(options.outDir, 'deid_png'));
  if (found.files >= journal.filesOut && found.bytes >= journal.bytesOut) return;
  options.onEvent?.({ kind: 'retry', message: `deid_png/: ${found.files} files (${found.bytes} bytes) where the archive gave ${journal.filesOut} (${journal.bytesOut}); extracting it again` });
  manifest.archive = { ...EMPTY_JOURNAL };
  for (const f of manifest.files) if (f.removed) delete f.verifiedAt, delete f.removed;
}

/**
 * Takes an output folder to the official ReXVQA layout (`metadata/` and `deid_png/`), resuming whatever an earlier
 * run left: revisions pinned once and recorded, files fetched with ranged requests and verified, the image archive
 * streamed through zstd and tar while later parts still download, and a manifest saved as it goes.
 */
export async function downloadDataset(options: DownloadOptions): Promise<DownloadSummary> {
  const started = Date.now();
  const emit = options.onEvent ?? (() => {});
  await mkdir(join(options.outDir, STATE_DIR), { recursive: true });
  const release = await holdLock(join(options.outDir, STATE_DIR, 'lock'), options.outDir);
  try {
    const now = () => new Date().toISOString();
    const manifest: DownloadManifest = (await readManifest(options.outDir)) ?? {
      format: 'cxrbench-download/1', toolVersion: TOOL_VERSION, endpoint: options.hub.endpoint, startedAt: now(), updatedAt: now(), completedAt: null, repos: {}, files: [], archive: null,
    };
    await pinRepos(options, manifest);
    const revisions = Object.fromEntries(Object.entries(manifest.repos).map(([r, v]) => [r, v.revision]));
    const plan = planFiles(options, manifest);
    await verifyImages(options, manifest);
    const wantImages = options.what !== 'metadata';
    const parts = plan.filter((f) => f.kind === 'archive-part');
    const pending: PlannedFile[] = [];
    for (const file of plan) if (!(await isDone(options, manifest, recordOf(manifest, file)))) pending.push(file);
    const journal: ArchiveJournal = manifest.archive ?? { ...EMPTY_JOURNAL };
    const extractNeeded = wantImages && !journal.complete;

    let saving = Promise.resolve();
    // Saves queue behind each other; one that fails (a full disk) fails the ones after it, and the run learns of it
    // where it awaits `saving` or, for the journal's saves made in passing, through fail() below: never an
    // unhandled rejection that would end the process without the full-disk message.
    const save = () => {
      saving = saving.then(() => ((manifest.updatedAt = now()), writeManifest(options.outDir, manifest)));
      saving.catch(() => {});
      return saving;
    };
    if (pending.length === 0 && !extractNeeded) {
      manifest.completedAt ??= now();
      await save();
      return { status: 'complete', revisions, files: plan.length, bytes: plan.reduce((n, f) => n + f.size, 0), images: wantImages ? journal.filesOut : null, seconds: (Date.now() - started) / 1000 };
    }

    // What is still to be written: the rest of each pending file, and the images not yet out of the archive
    // (PNGs do not compress, so the extracted tree is about the archive's size).
    const have = new Map<PlannedFile, number>();
    for (const f of pending) have.set(f, (await sizeOf(partialPath(options.outDir, f))) ?? 0);
    let toWrite = pending.reduce((n, f) => n + f.size - have.get(f)!, 0);
    const extractBytes = extractNeeded ? Math.max(0, parts.reduce((n, f) => n + f.size, 0) - journal.bytesOut) : 0;
    toWrite += extractBytes;
    const freeSpace = options.freeSpace ?? statfsFree;
    const free = await freeSpace(options.outDir);
    if (toWrite > free) throw diskFullError(options.outDir, toWrite, free, false);
    emit({ kind: 'plan', revisions, files: pending.map((f) => ({ name: nameOf(f), size: f.size, have: have.get(f)! })), extractBytes });
    await save();

    let lastJournalSave = 0;
    let trailingSave: NodeJS.Timeout | undefined;
    const extraction = extractNeeded
      ? startExtraction({
          outDir: options.outDir,
          parts: parts.map((p) => ({ partial: partialPath(options.outDir, p), dest: join(options.outDir, p.dest), size: p.size })),
          journal,
          onDisk: parts.map((p) => (pending.includes(p) ? have.get(p)! : p.size)),
          verified: parts.map((p) => !pending.includes(p)),
          onRead: (delta) => emit({ kind: 'extract', journal: manifest.archive ?? journal, parts: parts.length, readDelta: delta }),
          onJournal: (j) => {
            manifest.archive = { ...j };
            // a journal saved once a second loses at most a second of entries to a kill: they are written again.
            // The last change is saved a second later too, so an extraction waiting for its next part (a kill's
            // likeliest moment on a slow link) has all it wrote on record, not what it had a second before.
            clearTimeout(trailingSave);
            if (Date.now() - lastJournalSave > 1000 || j.complete) {
              lastJournalSave = Date.now();
              save().catch((error) => fail(error));
            } else {
              trailingSave = setTimeout(() => ((lastJournalSave = Date.now()), save().catch((error) => fail(error))), 1000);
            }
          },
        })
      : null;
    const stop = new AbortController();
    const connections = Math.max(1, options.concurrency);
    // ranges fetched ahead of their file's end wait in memory: at most one per connection but the one writing
    const pool = new ConnectionPool(connections, connections - 1, options.settings.rangeBytes ?? DEFAULT_RANGE_BYTES);
    const queue = [...pending];
    let failure: unknown = null;
    const fail = (error: unknown) => {
      failure ??= error;
      stop.abort(error);
      extraction?.stop(error);
    };
    const worker = async () => {
      for (let file = queue.shift(); file && !stop.signal.aborted; file = queue.shift()) {
        const name = nameOf(file);
        const index = parts.indexOf(file);
        emit({ kind: 'file-start', name, size: file.size, have: have.get(file)! });
        const onBytes = (delta: number) => {
          emit({ kind: 'bytes', name, delta });
          if (index < 0) return;
          extraction?.wrote(index, delta);
        };
        try {
          const mtimeMs = await fetchVerified(
            { hub: options.hub, revision: manifest.repos[file.repo]!.revision, outDir: options.outDir, settings: options.settings, pool, order: pending.indexOf(file), signal: stop.signal, onBytes, onRetry: (message) => emit({ kind: 'retry', message }) },
            file,
          );
          Object.assign(recordOf(manifest, file), { verifiedAt: now(), mtimeMs });
          delete recordOf(manifest, file).removed;
          if (index >= 0) extraction?.verified(index);
          await save();
          emit({ kind: 'file-done', name });
        } catch (error) {
          fail(error);
        }
      }
    };
    const extracted = extraction ? extraction.done.catch((error) => fail(error)) : Promise.resolve();
    await Promise.all([...Array.from({ length: connections }, worker), extracted]);
    clearTimeout(trailingSave);
    void save(); // the journal as it stands, also when the run failed: a rerun goes on from there
    await saving;
    if (failure) throw failure;

    if (wantImages && manifest.archive?.complete && !options.keepParts) {
      // all at once: freeing a large file's blocks is the file system's work, and one file need not wait for another
      await Promise.all(parts.map((p) => rm(join(options.outDir, p.dest), { force: true })));
      for (const p of parts) recordOf(manifest, p).removed = true;
    }
    await rm(join(options.outDir, STATE_DIR, 'partial'), { recursive: true, force: true });
    manifest.completedAt = now();
    await save();
    return { status: 'downloaded', revisions, files: plan.length, bytes: plan.reduce((n, f) => n + f.size, 0), images: wantImages ? (manifest.archive?.filesOut ?? 0) : null, seconds: (Date.now() - started) / 1000 };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
    const free = await (options.freeSpace ?? statfsFree)(options.outDir).catch(() => 0);
    throw diskFullError(options.outDir, await stillToWrite(options), free, true);
  } finally {
    await release();
  }
}

/** After ENOSPC: what the folder still needs, from the manifest written so far (the partial files count as written). */
async function stillToWrite(options: DownloadOptions): Promise<number> {
  const manifest = await readManifest(options.outDir).catch(() => null);
  if (!manifest) return 0;
  let need = 0;
  let partsBytes = 0;
  for (const f of manifest.files) {
    if (f.kind === 'archive-part') partsBytes += f.size;
    if (!f.verifiedAt) need += f.size - ((await sizeOf(partialPath(options.outDir, f as PlannedFile))) ?? 0);
  }
  if (options.what !== 'metadata' && !manifest.archive?.complete) need += Math.max(0, partsBytes - (manifest.archive?.bytesOut ?? 0));
  return need;
}
