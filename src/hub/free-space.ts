import { statfs } from 'node:fs/promises';
import { CxrError } from '../core/errors.js';

/** Bytes free to an unprivileged writer in the file system holding `dir`. Injectable so the arithmetic can be tested at any size. */
export type FreeSpace = (dir: string) => Promise<number>;

/** Free space as the kernel reports it (statfs: available blocks × block size). */
export const statfsFree: FreeSpace = async (dir) => {
  const s = await statfs(dir);
  return s.bavail * s.bsize;
};

/** A byte count for people: 1.5 GB, 320 MB, 12 kB (powers of 1000, as disks are sold). */
export function formatBytes(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(value >= 100 ? 0 : 1)} ${units[unit]}`;
}

/** The clean stop for a disk too small: how much more is needed, and that a rerun goes on from where it stopped. */
export function diskFullError(outDir: string, needed: number, free: number, during: boolean): CxrError {
  const more = Math.max(needed - free, 0);
  if (during && more === 0) {
    // statfs shows room but a write was refused: a quota, or another writer that filled the disk and left again
    return new CxrError(
      'disk-full',
      `${outDir}: a write was refused for lack of space (ENOSPC: a full disk or a quota) though ${formatBytes(free)} is reported free now; ` +
        `${formatBytes(needed)} is still to write. Make room (or choose another --out) and rerun the same command: it goes on from where it stopped.`,
    );
  }
  const when = during ? 'The disk filled up' : 'Not started: not enough free space';
  return new CxrError(
    'disk-full',
    `${outDir}: ${when}. About ${formatBytes(more)} more is needed (${formatBytes(needed)} still to write, ${formatBytes(free)} free). ` +
      'Free that much (or choose another --out) and rerun the same command: it goes on from where it stopped.',
  );
}
