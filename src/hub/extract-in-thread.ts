import { Worker } from 'node:worker_threads';
import { CxrError, type CxrErrorCode } from '../core/errors.js';
import type { ArchiveJournal, ExtractOptions } from './extract-archive.js';
import { threadEntry } from '../core/thread-entry.js';

/** What the extraction thread starts with (its workerData). */
export interface ThreadStart {
  outDir: string;
  parts: string[];
  journal: ArchiveJournal;
}

/** What the extraction thread tells the main thread. */
export type ThreadReply =
  | { kind: 'journal'; journal: ArchiveJournal }
  | { kind: 'read'; delta: number }
  | { kind: 'done'; journal: ArchiveJournal }
  | { kind: 'failed'; cxrCode?: CxrErrorCode; errno?: string; message: string };

/**
 * extractArchive in a thread of its own, with the same options and result. Why: the main thread receives and
 * hashes the downloads, and extraction (tar parsing, one file written per entry, and the garbage its buffers make)
 * on that same thread made each wait for the other; on its own thread it runs beside the downloads on a second
 * core, and writes each file with synchronous calls that block only itself (bench/download-extract.ts).
 * A part's `ready` is awaited here, in order, and passed on; if it rejects (its download failed) the thread is
 * stopped and the same error is thrown.
 */
export function extractInThread(options: ExtractOptions): Promise<ArchiveJournal> {
  const { url, execArgv } = threadEntry('extract-thread', import.meta.url);
  const start: ThreadStart = { outDir: options.outDir, parts: options.parts, journal: options.journal };
  const worker = new Worker(url, { execArgv, workerData: start });
  return new Promise<ArchiveJournal>((resolve, reject) => {
    let settled = false;
    const finish = (error: unknown, journal?: ArchiveJournal) => {
      if (settled) return;
      settled = true;
      void worker.terminate();
      if (journal) resolve(journal);
      else reject(error);
    };
    worker.on('message', (reply: ThreadReply) => {
      if (reply.kind === 'journal') options.onJournal(reply.journal);
      else if (reply.kind === 'read') options.onRead?.(reply.delta);
      else if (reply.kind === 'done') finish(null, reply.journal);
      else if (reply.cxrCode) finish(new CxrError(reply.cxrCode, reply.message));
      else finish(Object.assign(new Error(reply.message), reply.errno ? { code: reply.errno } : {}));
    });
    worker.on('error', (error) => finish(error));
    worker.on('exit', (code) => finish(new Error(`the extraction thread stopped (exit code ${code}) before it finished`)));
    void (async () => {
      for (let i = 0; i < options.parts.length && !settled; i++) {
        await options.ready(i);
        worker.postMessage({ ready: i });
      }
    })().catch((error: unknown) => finish(error));
  });
}
