import { readFile, rm, writeFile } from 'node:fs/promises';
import { CxrError } from '../core/errors.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Claims an output folder for one download at a time (two would write the same .part files). A lock left by a
 * process that is gone — killed with -9 — is taken over, so a crash never blocks the rerun that resumes it.
 * Returns the function that releases it.
 */
export async function holdLock(lockFile: string, outDir: string): Promise<() => Promise<void>> {
  for (let tries = 0; tries < 2; tries++) {
    try {
      await writeFile(lockFile, String(process.pid), { flag: 'wx' });
      return () => rm(lockFile, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number((await readFile(lockFile, 'utf8').catch(() => '')).trim());
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && alive(holder)) {
        throw new CxrError('conflict', `${outDir}: another cxrbench data download (pid ${holder}) is writing here; wait for it or stop it first.`);
      }
      await rm(lockFile, { force: true });
    }
  }
  throw new CxrError('conflict', `${outDir}: could not take the download lock ${lockFile}; remove it if no download is running.`);
}
