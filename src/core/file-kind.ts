import type { Stats } from 'node:fs';

/**
 * What a path that is neither a regular file nor a folder is, in words for a refusal: commands refuse such paths
 * before reading them, since a FIFO waits for a writer forever and a device (/dev/zero) never ends.
 */
export function nonRegularKind(info: Pick<Stats, 'isFIFO' | 'isCharacterDevice' | 'isBlockDevice' | 'isSocket'>): string {
  if (info.isFIFO()) return 'a FIFO (named pipe)';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  if (info.isSocket()) return 'a socket';
  return 'not a regular file';
}
