import { readFileSync, statSync } from 'node:fs';
import { CxrError } from '../core/errors.js';

/** A file an option names, as text; a folder or an unreadable path is a user error naming the option and why. */
export function readTextFile(path: string, option: string): string {
  try {
    if (statSync(path).isDirectory()) throw new CxrError('unreadable-file', `${option} ${path}: a folder, not a file`);
    return readFileSync(path, 'utf8');
  } catch (error) {
    if (error instanceof CxrError) throw error;
    throw new CxrError('unreadable-file', `${option} ${path}: cannot read the file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}
