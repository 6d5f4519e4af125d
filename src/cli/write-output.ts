import { mkdirSync } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { CxrError } from '../core/errors.js';

/** Why a path the user named cannot be written, as one line saying what to do; null for a failure that is ours. */
function outputProblem(path: string, what: 'file' | 'folder', error: unknown): CxrError | null {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EISDIR') return new CxrError('output-exists', `${path} is a folder: give the name of a file to write`);
  if (code === 'EEXIST') return new CxrError('output-exists', `${path} is a file: give a folder to write into (it is created if missing)`);
  if (code === 'ENOTDIR') return new CxrError('output-exists', `cannot write the ${what} ${path}: part of its path is a file, not a folder`);
  if (code === 'ENOENT') return new CxrError('path-not-found', `cannot write the ${what} ${path}: the folder ${dirname(path)} does not exist (create it first)`);
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') return new CxrError('bad-option', `cannot write the ${what} ${path}: not allowed (${code})`);
  return null;
}

/**
 * Writes a whole text file atomically (temp file + rename): readers never see half a file. A path that cannot
 * be written (a folder there, a missing folder, no permission) is refused naming it, and no temp file is left.
 */
export async function writeTextAtomically(file: string, text: string): Promise<void> {
  const temp = `${file}.tmp-${process.pid}-${Date.now()}`;
  try {
    await writeFile(temp, text);
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined); // nothing to remove when its folder was the problem
    throw outputProblem(file, 'file', error) ?? error;
  }
}

/** Creates the output folder an option names (and its parents); a file there, or a path that cannot be a folder, is refused naming it. */
export function makeOutputFolder(dir: string, option: string): void {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    const problem = outputProblem(dir, 'folder', error);
    if (!problem) throw error;
    throw new CxrError(problem.code, `${option} ${problem.message}`);
  }
}
