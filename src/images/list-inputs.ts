import { open, readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';

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

/**
 * The files to convert, as absolute paths in a stable order. A file named on the command line is always
 * taken (so a non-DICOM one is reported, not ignored); inside a folder only DICOM-looking files are, so a
 * licence or a JSON dump beside the images is not a failure. Paths that do not exist are returned in `missing`.
 */
export async function listInputs(paths: string[]): Promise<{ files: string[]; missing: string[] }> {
  const files: string[] = [];
  const missing: string[] = [];
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
    if (!info) missing.push(path);
    else if (info.isDirectory()) await walk(full);
    else files.push(full);
  }
  return { files: [...new Set(files)], missing };
}
