import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { CxrError } from '../core/errors.js';

/**
 * The --deid key: 32 random bytes kept in a file, created on first use (mode 0600, exclusive create so two runs
 * cannot make two keys) and reused after, so the same patient gets the same hashed id in every run. The key is
 * never printed; it sits beside the output folder, not in it, so sharing the folder does not share the key.
 */
export async function loadOrCreateDeidKey(file: string): Promise<Buffer> {
  try {
    await writeFile(file, randomBytes(32).toString('hex') + '\n', { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const hex = (await readFile(file, 'utf8')).trim();
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new CxrError('unreadable-file', `${file}: not a cxrbench de-identification key (64 hex digits expected); move it away to make a new key (hashed ids will change)`);
  return Buffer.from(hex, 'hex');
}
