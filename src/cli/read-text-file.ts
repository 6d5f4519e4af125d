import { readFileSync, statSync, type Stats } from 'node:fs';
import { CxrError } from '../core/errors.js';

/**
 * The largest file a command reads whole (predictions, answer files, templates, configurations): 256 MB. A run's
 * ReXrank predictions of all 41K ReXVQA test questions are ~55 MB; a string past V8's limit (~512 MB) could not
 * be read at all, and the parse of one this big needs several times its size in memory.
 */
export const MAX_TEXT_FILE_BYTES = 256 * 1024 * 1024;

/** What a path that is not a regular file is, for the message. */
function kindOf(stats: Stats): string {
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isFIFO()) return 'a named pipe (FIFO)';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

const megabytes = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(bytes < 1024 * 1024 ? 2 : 0)} MB`;

/**
 * Checks that an option names a regular file a command may read whole: no folder, no device or pipe (`/dev/zero`
 * never ends and a FIFO without a writer never opens — both would hang or grow without bound), and no larger
 * than `limitBytes`. Only the file's metadata is read, so a module that reads the file itself can be guarded too.
 */
export function checkTextFile(path: string, option: string, limitBytes = MAX_TEXT_FILE_BYTES): void {
  let stats: Stats;
  try {
    stats = statSync(path);
  } catch (error) {
    throw new CxrError('unreadable-file', `${option} ${path}: cannot read the file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  if (stats.isDirectory()) throw new CxrError('unreadable-file', `${option} ${path}: a folder, not a file`);
  if (!stats.isFile()) throw new CxrError('unreadable-file', `${option} ${path}: ${kindOf(stats)}, not a regular file; save the data to a file and give its path`);
  if (stats.size > limitBytes) throw new CxrError('unreadable-file', `${option} ${path}: ${megabytes(stats.size)}, larger than the ${megabytes(limitBytes)} a command reads whole`);
}

/** A file an option names, as text, checked first by {@link checkTextFile}; an unreadable path is a user error naming the option and why. */
export function readTextFile(path: string, option: string, limitBytes = MAX_TEXT_FILE_BYTES): string {
  checkTextFile(path, option, limitBytes);
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new CxrError('unreadable-file', `${option} ${path}: cannot read the file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}
