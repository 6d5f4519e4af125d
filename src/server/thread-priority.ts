import { constants, setPriority } from 'node:os';

/**
 * Lowers the calling thread's CPU priority: scoring and upload checks are batch work, pages are not. On Linux a
 * nice value belongs to a thread, so only this thread yields and the web thread of the same process wins the CPU
 * when both want it; elsewhere it would renice the whole process, so it is left alone.
 */
export function lowerThreadPriority(): void {
  if (process.platform !== 'linux') return;
  try {
    setPriority(constants.priority.PRIORITY_LOW);
  } catch {
    // not permitted: run at normal priority
  }
}
