import { open, readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { nonRegularKind } from '../core/file-kind.js';

/** Whether a file found in a folder looks like DICOM: a .dcm/.dicom name, or the Part 10 "DICM" marker. */
async function looksLikeDicom(file: string): Promise<boolean> {
  if (/\.(dcm|dicom)$/i.test(file)) return true;
  const handle = await open(file, 'r');
  try {
    const head = Buffer.alloc(4);
    const { bytesRead } = await handle.read(head, 0, 4, 128);
    return bytesRead === 4 && head.toString('latin1') === 'DICM';
  } finally {
    await handle.close();
  }
}

/** A path given that cannot be converted, and why. */
export interface UnusableInput {
  path: string;
  reason: string;
}

/**
 * The files to convert, as absolute paths in a stable order. A file named on the command line is always
 * taken (so a non-DICOM one is reported, not ignored); inside a folder only DICOM-looking files are, so a
 * licence or a JSON dump beside the images is not a failure. Paths that do not exist, and anything named on the
 * command line that is not a regular file or a folder (a FIFO, a device, a socket), are returned in `unusable`
 * with the reason — without being opened: reading a FIFO waits for a writer forever, and opening a device may act
 * on it. Inside folders only regular files are looked at.
 */
export async function listInputs(paths: string[]): Promise<{ files: string[]; unusable: UnusableInput[] }> {
  const files: string[] = [];
  const unusable: UnusableInput[] = [];
  const walk = async (dir: string): Promise<void> => {
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile() && (await looksLikeDicom(full))) files.push(full);
    }
  };
  for (const path of paths) {
    const full = resolve(path);
    const info = await stat(full).catch(() => null);
    if (!info) unusable.push({ path, reason: 'no such file or folder' });
    else if (info.isDirectory()) await walk(full);
    else if (info.isFile()) files.push(full);
    else unusable.push({ path, reason: `${nonRegularKind(info)}, not a DICOM file: not read` });
  }
  return { files: [...new Set(files)], unusable };
}
