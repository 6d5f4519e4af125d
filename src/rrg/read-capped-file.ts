import { closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';
import { nonRegularKind } from '../core/file-kind.js';
import { CxrError, type CxrErrorCode } from '../core/errors.js';

const MiB = 1024 * 1024;
/** A size in words: "300 MiB", "2 GiB", "12 kB". */
function sizeText(bytes: number): string {
  if (bytes >= 1024 * MiB) return `${+(bytes / (1024 * MiB)).toFixed(1)} GiB`;
  if (bytes >= MiB) return `${+(bytes / MiB).toFixed(1)} MiB`;
  return `${Math.ceil(bytes / 1024)} kB`;
}

/** How a file is named in messages ("--pred predictions.json"), the limit, what the limit is for, and the error code to refuse with. */
export interface CappedFile {
  label: string;
  maxBytes: number;
  /** e.g. "a predictions file": the message says "the 256 MiB limit for a predictions file". */
  what: string;
  code?: CxrErrorCode;
}

/**
 * Why `path` is not read as `file`, from its stat: a folder, not a regular file (a FIFO, a device, a socket — a
 * FIFO would wait for a writer forever, /dev/zero never ends) or over the limit. Null when it may be read.
 */
export function cappedFileProblem(path: string, info: Stats, file: CappedFile): string | null {
  if (info.isDirectory()) return `${file.label} ${path}: a folder, not a file`;
  if (!info.isFile()) return `${file.label} ${path}: ${nonRegularKind(info)}, not a regular file: not read`;
  if (info.size > file.maxBytes) return `${file.label} ${path}: ${info.size.toLocaleString('en-US')} bytes, larger than the ${sizeText(file.maxBytes)} limit for ${file.what}: not read`;
  return null;
}

/**
 * A file's bytes, refused (a CxrError naming it) when it is not a regular file or is larger than its limit. It is
 * checked before it is opened (a device is never opened), opened without blocking and checked again (the path may
 * have changed), then read in chunks that stop one byte past the limit: memory never holds more than the limit,
 * even for a file that grows while it is read.
 */
export function readCappedFile(path: string, file: CappedFile): Buffer {
  const code = file.code ?? 'unreadable-file';
  const cannot = (error: unknown) => new CxrError(code, `${file.label} ${path}: cannot read the file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  let before: Stats;
  try {
    before = statSync(path);
  } catch (error) {
    throw cannot(error);
  }
  const problem = cappedFileProblem(path, before, file);
  if (problem) throw new CxrError(code, problem);
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw cannot(error);
  }
  try {
    const info = fstatSync(fd);
    const changed = cappedFileProblem(path, info, file);
    if (changed) throw new CxrError(code, changed);
    // The first chunk holds the whole file as its size says, plus one byte to see a file longer than that (one that
    // grows, or a /proc file whose size says 0); more chunks only then, never past the limit + 1.
    const chunks: Buffer[] = [];
    let total = 0;
    let size = info.size + 1;
    for (let eof = false; !eof; size = MiB) {
      const chunk = Buffer.allocUnsafe(Math.min(size, file.maxBytes + 1 - total));
      let filled = 0;
      while (filled < chunk.length) {
        const read = readSync(fd, chunk, filled, chunk.length - filled, null);
        if (read === 0) {
          eof = true;
          break;
        }
        filled += read;
      }
      chunks.push(chunk.subarray(0, filled));
      total += filled;
      if (total > file.maxBytes) throw new CxrError(code, `${file.label} ${path}: grew past the ${sizeText(file.maxBytes)} limit for ${file.what} while it was read: not read`);
    }
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
  } catch (error) {
    if (error instanceof CxrError) throw error;
    throw cannot(error);
  } finally {
    closeSync(fd);
  }
}

/** readCappedFile as UTF-8 text. */
export function readCappedTextFile(path: string, file: CappedFile): string {
  return readCappedFile(path, file).toString('utf8');
}
