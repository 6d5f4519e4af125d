import { Worker } from 'node:worker_threads';
import { CxrError, type CxrErrorCode } from '../core/errors.js';
import type { ArchiveJournal } from './extract-archive.js';
import { threadEntry } from '../core/thread-entry.js';

/** Where one archive part is: its partial file while it downloads, its place once verified, and its listed size. */
export interface ArchivePart {
  partial: string;
  dest: string;
  size: number;
}

/** What the extraction thread starts with (its workerData). */
export interface ThreadStart {
  outDir: string;
  parts: ArchivePart[];
  journal: ArchiveJournal;
  /** Bytes of each part written so far. */
  onDisk: number[];
  /** Parts verified (and so in place under their own name). */
  verified: boolean[];
}

/** What the main thread tells the extraction thread: part `part` now has `bytes` written, or is verified. */
export type ThreadMessage = { part: number; bytes: number } | { part: number; verified: true };

/** What the extraction thread tells the main thread. `fed`: how many parts it had started on (what the journal rests on). */
export type ThreadReply =
  | { kind: 'journal'; journal: ArchiveJournal; fed: number }
  | { kind: 'read'; delta: number }
  | { kind: 'done'; journal: ArchiveJournal; fed: number }
  | { kind: 'failed'; fed: number; cxrCode?: CxrErrorCode; errno?: string; system?: boolean; message: string };

/** What the download knows at the start and whom to tell. */
export interface ExtractionOptions {
  outDir: string;
  parts: ArchivePart[];
  /** The journal saved so far (its entries rest on verified parts). */
  journal: ArchiveJournal;
  onDisk: number[];
  verified: boolean[];
  /** Called with each journal whose every entry came from verified parts: the one safe to save. */
  onJournal: (journal: ArchiveJournal) => void;
  /** Compressed bytes read (progress). */
  onRead?: (delta: number) => void;
}

/** A running extraction, told by the download how the parts are doing. */
export interface Extraction {
  /** Resolves with the final journal once every entry is out and every part verified. */
  done: Promise<ArchiveJournal>;
  /** Part `part`'s bytes on disk changed by `delta`, as the download reports them: negative when a copy is thrown away. */
  wrote(part: number, delta: number): void;
  /** Part `part` matched the listing's size and hash. */
  verified(part: number): void;
  /** The run failed elsewhere: stop, with that error. */
  stop(error: unknown): void;
}

/**
 * Extraction in a thread of its own, following the parts while they download. Why a thread: the main thread
 * receives and hashes the downloads, and extraction (tar parsing, a file written per entry) on the same thread made
 * each wait for the other. Why follow: extraction need not wait for a part to finish (with four parts fetched at
 * once the first is complete only after four sevenths of the download); it reads each part's bytes as they are
 * written. Verification still comes first for what counts: a journal is passed on (and so saved) only when every
 * part its entries may rest on is verified, so a resumed run never trusts an entry made from unverified bytes.
 * When a part's bytes are thrown away (a bad copy, a server that ignored Range), the thread is stopped and started
 * again from the last safe journal: the entries after it are written again from the new bytes (a flipped byte cannot rename an entry unseen: the tar header's checksum covers its name). A failure
 * the thread meets while the parts it read are unverified waits for them: if they verify, it is the archive's.
 */
export function startExtraction(options: ExtractionOptions): Extraction {
  const { url, execArgv } = threadEntry('extract-thread', import.meta.url, { bundle: true });
  const onDisk = [...options.onDisk];
  const verified = [...options.verified];
  let safe = options.journal;
  let pending: { journal: ArchiveJournal; fed: number }[] = [];
  let heldDone: { journal: ArchiveJournal; fed: number } | null = null;
  let heldFailure: { error: Error; fed: number } | null = null;
  let worker: Worker | null = null;
  let settled = false;
  let resolveDone!: (journal: ArchiveJournal) => void;
  let rejectDone!: (error: unknown) => void;
  const done = new Promise<ArchiveJournal>((resolve, reject) => ((resolveDone = resolve), (rejectDone = reject)));
  done.catch(() => {});

  const verifiedPrefix = () => {
    let n = 0;
    while (n < verified.length && verified[n]) n++;
    return n;
  };
  const finish = (error: unknown, journal?: ArchiveJournal) => {
    if (settled) return;
    settled = true;
    void worker?.terminate();
    worker = null;
    if (journal) resolveDone(journal);
    else rejectDone(error);
  };
  /** Passes on what verification now allows: journals, the end, or a failure that is the archive's own. */
  const advance = () => {
    const v = verifiedPrefix();
    let moved = false;
    while (pending.length > 0 && pending[0]!.fed <= v) {
      safe = pending.shift()!.journal;
      moved = true;
    }
    if (moved) options.onJournal(safe);
    if (heldDone && heldDone.fed <= v) {
      options.onJournal(heldDone.journal);
      finish(null, heldDone.journal);
    } else if (heldFailure && heldFailure.fed <= v) {
      finish(heldFailure.error);
    }
  };
  const launch = () => {
    const start: ThreadStart = { outDir: options.outDir, parts: options.parts, journal: safe, onDisk, verified };
    const w = new Worker(url, { execArgv, workerData: start });
    worker = w;
    w.on('message', (reply: ThreadReply) => {
      if (w !== worker) return; // a thread stopped for a restart may still have had something on its way
      if (reply.kind === 'read') return options.onRead?.(reply.delta);
      if (reply.kind === 'journal') {
        // the newest journal for each number of parts is all that can ever be passed on
        if (pending.at(-1)?.fed === reply.fed) pending.pop();
        pending.push({ journal: reply.journal, fed: reply.fed });
      }
      else {
        worker = null;
        void w.terminate();
        if (reply.kind === 'done') heldDone = { journal: reply.journal, fed: reply.fed };
        else {
          const error = reply.cxrCode ? new CxrError(reply.cxrCode, reply.message) : Object.assign(new Error(reply.message), reply.errno ? { code: reply.errno } : {});
          // the file system's refusal (a full disk, a quota, an I/O error) is not the bytes' fault: say it at once
          if (reply.system) return finish(error);
          heldFailure = { error, fed: reply.fed };
        }
      }
      advance();
    });
    w.on('error', (error) => w === worker && finish(error));
    w.on('exit', (code) => w === worker && finish(new Error(`the extraction thread stopped (exit code ${code}) before it finished`)));
  };
  launch();

  return {
    done,
    wrote(part, delta) {
      if (settled) return;
      const bytes = (onDisk[part]! += delta);
      if (delta >= 0) {
        worker?.postMessage({ part, bytes } satisfies ThreadMessage);
        return;
      }
      // bytes thrown away: whatever rests on this part's old bytes goes, and the thread starts again from the last
      // safe journal. Always, not only when the thread is known to have read them: it learns of the part's bytes
      // and says how far it got by messages, and in between it may have opened the old copy (which, deleted, it
      // could go on reading) or be about to report what it made of it.
      verified[part] = false;
      // the new thread starts from the last safe journal and sends its own; the old thread's unsaved ones go
      pending = [];
      heldDone = null;
      heldFailure = null;
      const old = worker;
      worker = null;
      void old?.terminate();
      launch();
    },
    verified(part) {
      verified[part] = true;
      if (settled) return;
      worker?.postMessage({ part, verified: true } satisfies ThreadMessage);
      advance();
    },
    stop(error) {
      finish(error);
    },
  };
}
