import { copyFileSync, existsSync, lstatSync, mkdirSync, symlinkSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { CxrError } from '../core/errors.js';
import type { Question } from '../core/question.js';

/** How a subset gets its images: symbolic links to the source's files, or copies of them. */
export type SubsetImageMode = 'link' | 'copy';

/** What {@link placeSubsetImages} did. */
export interface SubsetImages {
  /** Images linked or copied into the subset (each file once, however many questions use it). */
  placed: number;
  /** Images already in place (a rerun with --force). */
  present: number;
  /** Images the source does not have: their references are written as they are, and `data validate --images` lists them. */
  missing: string[];
  /** Absolute references, left pointing where they point. */
  absolute: number;
}

/**
 * Where each relative image reference of the subset's questions lands, so that the same reference (e.g.
 * `../deid_png/…/x.png` from `metadata/`) resolves inside the subset as it did in the source. A reference that
 * would land outside the subset folder is refused, naming the file, record and field: linking it would write
 * outside `--out`.
 */
export function subsetImageTargets(questions: readonly Question[], source: { file: string; baseDir: string }, outRoot: string, outBaseDir: string): Map<string, string> {
  const targets = new Map<string, string>();
  const root = resolve(outRoot);
  for (const q of questions) {
    for (const image of q.images) {
      if (isAbsolute(image.path)) continue;
      const target = resolve(outBaseDir, image.path);
      const inside = relative(root, target);
      if (inside === '' || inside.startsWith(`..${sep}`) || inside === '..' || isAbsolute(inside)) {
        throw new CxrError('bad-option', `${source.file}: record ${q.id}, field ImagePath: ${image.path} would land outside ${outRoot} (${target}); give --images none, or move the images under the dataset folder`);
      }
      targets.set(target, resolve(source.baseDir, image.path));
    }
  }
  return targets;
}

/** Links (or copies) every image the subset's questions reference from the source into the subset folder. */
export function placeSubsetImages(questions: readonly Question[], source: { file: string; baseDir: string }, outRoot: string, outBaseDir: string, mode: SubsetImageMode): SubsetImages {
  const result: SubsetImages = { placed: 0, present: 0, missing: [], absolute: questions.reduce((n, q) => n + q.images.filter((i) => isAbsolute(i.path)).length, 0) };
  for (const [target, from] of subsetImageTargets(questions, source, outRoot, outBaseDir)) {
    if (!existsSync(from)) {
      result.missing.push(from);
      continue;
    }
    if (exists(target)) {
      result.present++;
      continue;
    }
    mkdirSync(dirname(target), { recursive: true });
    if (mode === 'link') symlinkSync(from, target);
    else copyFileSync(from, target);
    result.placed++;
  }
  return result;
}

/** True when something (even a dangling link) is at `path`. */
function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
