import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { ListedFile } from './selection.js';

/** A running hash of a file's content in the form the hub lists it: sha256 for LFS files, git's blob sha1 otherwise. */
export interface ContentHash {
  algorithm: 'sha256' | 'git-sha1';
  expected: string;
  hash: Hash;
}

/** Starts the hash the hub's listing can be checked against; null when the listing gives no hash at all. */
export function contentHash(file: ListedFile): ContentHash | null {
  if (file.sha256) return { algorithm: 'sha256', expected: file.sha256.toLowerCase(), hash: createHash('sha256') };
  if (file.gitSha1) {
    // git hashes a blob with a header, so the listed oid of a small file is not the sha1 of its bytes alone
    const hash = createHash('sha1').update(`blob ${file.size}\0`);
    return { algorithm: 'git-sha1', expected: file.gitSha1.toLowerCase(), hash };
  }
  return null;
}

/** Feeds the first `bytes` of a file on disk (all of it when undefined) into a hash: the part already fetched, when a download resumes. */
export async function hashPrefix(path: string, bytes: number | undefined, hash: Hash): Promise<void> {
  if (bytes === 0) return;
  for await (const chunk of createReadStream(path, { start: 0, ...(bytes === undefined ? {} : { end: bytes - 1 }), highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
}

/** Hashes a whole file on disk as the hub lists it; resolves to the algorithm, the listed and the actual digest, or null when there is nothing to check against. */
export async function hashFile(path: string, file: ListedFile): Promise<{ algorithm: string; expected: string; actual: string } | null> {
  const h = contentHash(file);
  if (!h) return null;
  await hashPrefix(path, undefined, h.hash);
  return { algorithm: h.algorithm, expected: h.expected, actual: h.hash.digest('hex') };
}
