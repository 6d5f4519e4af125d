import { rename, writeFile } from 'node:fs/promises';

/** Writes a whole text file atomically (temp file + rename): readers never see half a file. */
export async function writeTextAtomically(file: string, text: string): Promise<void> {
  const temp = `${file}.tmp-${process.pid}-${Date.now()}`;
  await writeFile(temp, text);
  await rename(temp, file);
}
