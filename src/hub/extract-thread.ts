import { parentPort, workerData } from 'node:worker_threads';
import { CxrError } from '../core/errors.js';
import { extractArchive, type ArchiveJournal } from './extract-archive.js';
import type { ThreadReply, ThreadStart } from './extract-in-thread.js';

// The extraction thread: runs extractArchive on the parts the main thread names, waiting for a 'ready' message
// before it reads each one, and sends back the journal as it moves and how it ended. It owns no state of its own:
// the main thread keeps the manifest, so a kill of either leaves the journal the main thread last saved.
const start = workerData as ThreadStart;
const port = parentPort!;
const readyParts = new Set<number>();
const waiting = new Map<number, () => void>();
port.on('message', (message: { ready: number }) => {
  readyParts.add(message.ready);
  waiting.get(message.ready)?.();
});
const send = (reply: ThreadReply) => port.postMessage(reply);

extractArchive({
  outDir: start.outDir,
  parts: start.parts,
  journal: start.journal,
  ready: (i) => (readyParts.has(i) ? Promise.resolve() : new Promise<void>((resolve) => waiting.set(i, resolve))),
  onJournal: (journal: ArchiveJournal) => send({ kind: 'journal', journal }),
  onRead: (delta) => send({ kind: 'read', delta }),
}).then(
  // no port.close() after the last message: the main thread ends the thread once it has the answer
  (journal) => send({ kind: 'done', journal }),
  (error: unknown) => {
    const e = error as NodeJS.ErrnoException;
    send(error instanceof CxrError ? { kind: 'failed', cxrCode: error.code, message: error.message } : { kind: 'failed', errno: e.code, message: e instanceof Error ? e.message : String(error) });
  },
);
