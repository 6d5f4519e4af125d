import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { once } from 'node:events';

/**
 * Writes text pieces to `file` through a temporary file in the same folder and renames it into place, so a
 * reader never sees a half-written file and an interrupted write leaves the old file intact.
 * Returns how many pieces were written.
 */
export async function writeFileAtomically(file: string, pieces: () => AsyncIterable<string>): Promise<number> {
  const temp = `${file}.tmp-${process.pid}-${Date.now()}`;
  const out = createWriteStream(temp, { encoding: 'utf8' });
  let streamError: Error | null = null;
  out.on('error', (error) => {
    streamError ??= error;
  });
  let count = 0;
  try {
    for await (const piece of pieces()) {
      if (streamError) throw streamError;
      count++;
      if (!out.write(piece)) {
        // Wait for drain (or an early close); the listener that loses the race is removed, not left to pile up.
        const waiting = new AbortController();
        await Promise.race([once(out, 'drain', { signal: waiting.signal }), once(out, 'close', { signal: waiting.signal })]).finally(() => waiting.abort());
      }
    }
    out.end();
    await once(out, 'close');
    if (streamError) throw streamError;
    await rename(temp, file);
    return count;
  } catch (error) {
    if (!out.closed) {
      // Not events.once: it would reject with the write error that destroying a busy stream emits.
      const closed = new Promise<void>((resolve) => out.once('close', () => resolve()));
      out.destroy();
      await closed;
    }
    await rm(temp, { force: true });
    throw error;
  }
}
