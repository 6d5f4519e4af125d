import { isAbsolute, join, normalize, resolve } from 'node:path';

/**
 * Where an image path of a record points on disk. Without an image root, relative to the folder of the file
 * that lists it; with one, joined to that root after dropping leading `../` segments.
 */
export function resolveImagePath(path: string, baseDir: string, imageRoot: 'default' | string | undefined): string {
  if (imageRoot === undefined || imageRoot === 'default') return isAbsolute(path) ? path : resolve(baseDir, path);
  const withinRoot = normalize(path).replace(/^(\.\.[/\\])+/, '').replace(/^[/\\]+/, '');
  return resolve(join(imageRoot, withinRoot));
}
