import { createHash } from 'node:crypto';

/** A number in [0, 1) fixed by (seed, key): per-question randomness that does not depend on order or concurrency. */
export function keyedRandom(seed: number, key: string): number {
  return createHash('sha256').update(`${seed}\u0000${key}`).digest().readUInt32BE(0) / 2 ** 32;
}
