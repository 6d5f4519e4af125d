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
  let count = 0;
  try {
    for await (const piece of pieces()) {
      count++;
      if (!out.write(piece)) await once(out, 'drain');
    }
    out.end();
    await once(out, 'finish');
    await rename(temp, file);
    return count;
  } catch (error) {
    out.destroy();
    await rm(temp, { force: true });
    throw error;
  }
}
