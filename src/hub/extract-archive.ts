import { closeSync, mkdirSync, openSync, writevSync, writeSync } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createZstdDecompress } from 'node:zlib';
import tar from 'tar-stream';
import { CxrError } from '../core/errors.js';
import { safeEntryPath } from './safe-entry-path.js';

/**
 * How far extraction of the split archive got, kept in the manifest.
 *
 * Why entries and not parts: the pieces are byte slices of ONE zstd stream of ONE tar, so a part boundary falls
 * anywhere — inside a zstd block and inside a tar entry — and the decompressor's state there cannot be saved. What
 * can be said exactly is "the first N entries are fully written". A resumed extraction therefore reads the parts
 * again from the first (kept on disk until the archive is done, so nothing is fetched twice), decompresses, and
 * skips the first N entries without writing them; entry N onwards is written again, which also repairs an entry
 * cut short by a kill. `lastEntry` (the name of entry N-1) guards against a journal that belongs to another archive.
 */
export interface ArchiveJournal {
  entriesDone: number;
  lastEntry: string | null;
  filesOut: number;
  bytesOut: number;
  /** Parts whose every byte went into the decompressor (for progress; resuming relies on `entriesDone`). */
  partsRead: number;
  complete: boolean;
}

/** A fresh journal: nothing extracted yet. */
export const EMPTY_JOURNAL: ArchiveJournal = { entriesDone: 0, lastEntry: null, filesOut: 0, bytesOut: 0, partsRead: 0, complete: false };

/** What extraction needs: the parts' bytes in order, and whom to tell of progress. */
export interface ExtractOptions {
  outDir: string;
  /** How many parts the archive is cut into. */
  partCount: number;
  /** Part `i`'s bytes from its first, as they become available (the caller decides whether to wait for verification). */
  readPart: (i: number) => AsyncIterable<Buffer>;
  journal: ArchiveJournal;
  /** Called after every entry and part with the journal as it now stands (the caller decides how often to save it). */
  onJournal: (journal: ArchiveJournal) => void;
  /** Compressed bytes read so far in this pass (progress). */
  onRead?: (delta: number) => void;
}

/** Entries up to this size are gathered in memory and written in one call (most PNGs); larger ones are streamed. */
const IN_MEMORY_ENTRY = 16 << 20;

class JournalMismatch extends Error {}

async function* partsInOrder(options: ExtractOptions, journal: ArchiveJournal): AsyncGenerator<Buffer> {
  for (let i = 0; i < options.partCount; i++) {
    for await (const chunk of options.readPart(i)) {
      options.onRead?.(chunk.length);
      yield chunk;
    }
    journal.partsRead = Math.max(journal.partsRead, i + 1);
    options.onJournal(journal);
  }
}

function unsafe(name: string, reason: string, outDir: string): CxrError {
  return new CxrError(
    'archive-unsafe',
    `deid_png archive entry "${name}" ${reason}: refused, and extraction stopped (nothing was written outside ${outDir}). ` +
      'The archive is not what ReXGradient-160K ships; check the revision and HF_ENDPOINT.',
  );
}

/**
 * Writes one entry. Synchronous calls on purpose: extraction runs in a thread of its own (extract-in-thread.ts),
 * where blocking stops only that thread, and an awaited open, write and close per image cost three round trips
 * through libuv's pool, queued behind zstd's own work there. No fsync per file: the journal says which entries
 * are out, and an entry the journal lists but a crash lost from the page cache would come back on a rerun only
 * with --verify. That is the same trust as for the parts (size and mtime), and fsync on each of 160K images cost
 * more than the rest of extraction together.
 */
async function writeEntry(entry: AsyncIterable<unknown>, target: string, size: number): Promise<void> {
  if (size <= IN_MEMORY_ENTRY) {
    const chunks: Buffer[] = [];
    for await (const chunk of entry) chunks.push(chunk as Buffer);
    // one writev of the pieces as tar gave them: no concatenated copy of every image to allocate and collect
    const fd = openSync(target, 'w');
    try {
      const written = writevSync(fd, chunks);
      // a short write to a regular file is rare (a signal, a quota): finish it rather than leave a short image
      if (written < size) writeSync(fd, Buffer.concat(chunks).subarray(written));
    } finally {
      closeSync(fd);
    }
    return;
  }
  const fd = openSync(target, 'w');
  try {
    for await (const chunk of entry) writeSync(fd, chunk as Buffer);
  } finally {
    closeSync(fd);
  }
}

async function extractOnce(options: ExtractOptions, journal: ArchiveJournal): Promise<ArchiveJournal> {
  const root = resolve(options.outDir);
  const skip = journal.entriesDone;
  const state: ArchiveJournal = skip === 0 ? { ...EMPTY_JOURNAL } : { ...journal, partsRead: 0 };
  mkdirSync(root, { recursive: true });
  const made = new Set<string>([root]);
  // Folders are made from the deepest one known to exist downwards, one mkdir each: `mkdirSync(dir, { recursive })`
  // on a new study's folder first fails on the missing leaf and climbs, about two calls per level, and the archive
  // opens five new levels per study (studies/…/series/…/instances), which made folder creation a third of extraction.
  const ensureDir = (dir: string) => {
    if (made.has(dir)) return;
    const missing: string[] = [];
    for (let d = dir; !made.has(d) && d !== root && d.startsWith(root + sep); d = dirname(d)) missing.push(d);
    for (let i = missing.length - 1; i >= 0; i--) {
      try {
        mkdirSync(missing[i]!);
      } catch (error) {
        // there already (a resumed run, a folder entry): fine while it is a folder; anything else says why
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        mkdirSync(missing[i]!, { recursive: true });
      }
      made.add(missing[i]!);
    }
  };
  const extract = tar.extract();
  // 1 MB blocks out of zstd: with the default 16 kB it was 2,500 round trips to libuv's pool per 2.5 GB, not 150,000
  const feeding = pipeline(Readable.from(partsInOrder(options, state)), createZstdDecompress({ chunkSize: 1 << 20 }), extract);
  feeding.catch(() => {}); // the loop below sees the same failure through the extract stream
  let index = 0;
  try {
    for await (const entry of extract) {
      const { name, type, size = 0, linkname } = entry.header;
      if (index < skip) {
        if (index === skip - 1 && name !== journal.lastEntry) throw new JournalMismatch();
        entry.resume();
        await new Promise<void>((r) => entry.once('end', () => r()));
        index++;
        continue;
      }
      const place = safeEntryPath(name);
      if (!place.ok) throw unsafe(name, place.reason, options.outDir);
      if (type === 'symlink' || type === 'link') throw unsafe(name, `is a link to "${linkname ?? ''}" (links are refused: one could lead a later entry out of the folder)`, options.outDir);
      const target = resolve(root, place.relative);
      if (target !== root && !target.startsWith(root + sep)) throw unsafe(name, 'lands outside the output folder', options.outDir);
      if (type === 'directory') {
        entry.resume();
        ensureDir(target);
      } else if (type === 'file' || type === 'contiguous-file') {
        ensureDir(dirname(target));
        await writeEntry(entry, target, size);
        state.filesOut++;
        state.bytesOut += size;
      } else {
        throw unsafe(name, `is a ${type ?? 'special'} entry, not a file or folder`, options.outDir);
      }
      index++;
      state.entriesDone = index;
      state.lastEntry = name;
      options.onJournal(state);
    }
    await feeding;
  } catch (error) {
    extract.destroy();
    // a system call's failure (a full disk, a quota, an I/O error: it names the call) is said as it is; anything
    // else came out of zstd or tar reading the bytes
    if (error instanceof CxrError || error instanceof JournalMismatch || typeof (error as NodeJS.ErrnoException).syscall === 'string') throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new CxrError('download-corrupt', `deid_png archive: could not be read through zstd and tar after ${index} entries (${reason}); the verified parts do not form a valid archive. Try another revision or mirror.`);
  }
  if (index < skip) throw new JournalMismatch();
  state.complete = true;
  options.onJournal(state);
  return state;
}

/**
 * Streams the archive parts, in order, as one byte stream through zstd and tar into the output folder: no joined
 * archive on disk, and each image written once. Resumes from the journal (see ArchiveJournal for why by entry);
 * a journal that does not match the archive is discarded and extraction starts over. Entries whose path would
 * leave the folder, links, and device or FIFO entries are refused with the entry's name.
 */
export async function extractArchive(options: ExtractOptions): Promise<ArchiveJournal> {
  try {
    return await extractOnce(options, options.journal);
  } catch (error) {
    if (!(error instanceof JournalMismatch)) throw error;
    return extractOnce(options, { ...EMPTY_JOURNAL });
  }
}

