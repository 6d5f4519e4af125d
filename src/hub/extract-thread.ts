import { open, type FileHandle } from 'node:fs/promises';
import { parentPort, workerData } from 'node:worker_threads';
import { CxrError } from '../core/errors.js';
import { extractArchive, type ArchiveJournal } from './extract-archive.js';
import type { ThreadMessage, ThreadReply, ThreadStart } from './extract-in-thread.js';

// The extraction thread: runs extractArchive over the parts as their bytes reach the disk, following each part
// while it downloads (the main thread says how many bytes of each are written), and sends back the journal as it
// moves, the number of parts it has started on (what the journal's entries may depend on), and how it ended. It
// owns no state of its own: the main thread keeps the manifest and decides which journal is safe to save.
const start = workerData as ThreadStart;
const port = parentPort!;
const onDisk = [...start.onDisk];
const verified = [...start.verified];
const waiting = new Map<number, () => void>();
port.on('message', (message: ThreadMessage) => {
  if ('verified' in message) verified[message.part] = true;
  else onDisk[message.part] = message.bytes;
  waiting.get(message.part)?.();
});
const nextWord = (i: number) => new Promise<void>((resolve) => waiting.set(i, resolve));
const send = (reply: ThreadReply) => port.postMessage(reply);

/** Parts whose bytes have begun to go into the decompressor: every entry out so far came from these. */
let fed = 0;

const READ = 1 << 20;

/**
 * Opens a part where it is: under its partial name while it downloads, or, once the main thread has said it is
 * verified, under its own (a file there before that may be a stale copy being fetched again). Null when it is at
 * neither yet (deleted for a new copy: the main thread is about to restart this thread, or announce new bytes).
 */
async function openPart(i: number): Promise<FileHandle | null> {
  const { partial, dest } = start.parts[i]!;
  try {
    return await open(partial, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (!verified[i]) return null;
  return open(dest, 'r'); // renamed between the two calls is fine: rename is atomic, and the bytes are the same
}

/** Part i's bytes from its first, each read only once the main thread has said it is written. */
async function* followPart(i: number): AsyncGenerator<Buffer> {
  const size = start.parts[i]!.size;
  let handle: FileHandle | null = null;
  try {
    for (let at = 0; at < size; ) {
      const available = Math.min(onDisk[i]!, size);
      if (available <= at) {
        await nextWord(i);
        continue;
      }
      // counted from before the part is opened (an error opening or reading it rests on it too), not from when
      // the previous part ended: entries still coming out of that part's last bytes rest on the earlier parts only
      fed = Math.max(fed, i + 1);
      handle ??= await openPart(i);
      if (!handle) {
        await nextWord(i);
        continue;
      }
      const want = Math.min(READ, available - at);
      const { bytesRead, buffer } = await handle.read(Buffer.allocUnsafe(want), 0, want, at);
      // fewer bytes than announced only if the file was cut (a reset the main thread is about to act on): wait
      if (bytesRead === 0) {
        await nextWord(i);
        continue;
      }
      at += bytesRead;
      yield bytesRead === want ? buffer : buffer.subarray(0, bytesRead);
    }
  } finally {
    await handle?.close();
  }
}

// The journal moves on with every entry (tens of thousands); it is sent at most every JOURNAL_EVERY_MS, and always
// before the thread's last word, so the main thread is not woken per image.
const JOURNAL_EVERY_MS = 50;
let unsent: ArchiveJournal | null = null;
let lastSent = 0;
let trailing: NodeJS.Timeout | undefined;
const flushJournal = () => {
  clearTimeout(trailing);
  trailing = undefined;
  if (unsent) send({ kind: 'journal', journal: { ...unsent }, fed });
  unsent = null;
  lastSent = Date.now();
};
const sendJournal = (journal: ArchiveJournal) => {
  unsent = journal;
  if (Date.now() - lastSent >= JOURNAL_EVERY_MS) flushJournal();
  // the last change goes too, a moment later: the thread may now wait a long while for the next part's bytes
  else trailing ??= setTimeout(flushJournal, JOURNAL_EVERY_MS);
};

extractArchive({
  outDir: start.outDir,
  partCount: start.parts.length,
  readPart: followPart,
  journal: start.journal,
  onJournal: sendJournal,
  onRead: (delta) => send({ kind: 'read', delta }),
}).then(
  // no port.close() after the last message: the main thread ends the thread once it has the answer
  (journal) => (flushJournal(), send({ kind: 'done', journal, fed })),
  (error: unknown) => {
    flushJournal();
    const e = error as NodeJS.ErrnoException;
    if (error instanceof CxrError) send({ kind: 'failed', fed, cxrCode: error.code, message: error.message });
    // a system call's refusal (it names the call) is the file system's, not the bytes'
    else send({ kind: 'failed', fed, errno: e.code, system: typeof e.syscall === 'string', message: e instanceof Error ? e.message : String(error) });
  },
);
