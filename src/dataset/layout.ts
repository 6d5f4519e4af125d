import { readdirSync, statSync, type Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { CxrError } from '../core/errors.js';

/** The format of one question file. */
export type QuestionFileFormat = 'rexvqa-json' | 'jsonl';

/** One split's question file. */
export interface QuestionFile {
  split: string;
  path: string;
  format: QuestionFileFormat;
  /** The folder image paths in this file are relative to (the `metadata/` folder for the official layout). */
  baseDir: string;
}

/** A dataset found on disk: which layout, and its files in split order. */
export interface DatasetLayout {
  kind: 'rexvqa' | 'jsonl';
  root: string;
  files: QuestionFile[];
}

const OFFICIAL_FILE = /^(.+)_vqa_data\.json$/;
const SPLIT_ORDER = ['train', 'valid', 'validation', 'val', 'test'];

function splitRank(split: string): number {
  const rank = SPLIT_ORDER.indexOf(split);
  return rank === -1 ? SPLIT_ORDER.length : rank;
}

function bySplit(a: QuestionFile, b: QuestionFile): number {
  return splitRank(a.split) - splitRank(b.split) || a.split.localeCompare(b.split);
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

/** What a path is when it is neither a folder nor a regular file, in words; null when it is one of those. */
function oddKind(stats: Stats): string | null {
  if (stats.isFile() || stats.isDirectory()) return null;
  return stats.isFIFO() ? 'a named pipe (FIFO)' : stats.isCharacterDevice() ? 'a character device' : stats.isBlockDevice() ? 'a block device' : stats.isSocket() ? 'a socket' : 'not a regular file';
}

/**
 * A question file must be a regular file: a named pipe or device would be opened and read forever (a FIFO blocks
 * until a writer comes; /dev/zero never ends), so it is refused by name before anything reads it.
 */
function mustBeRegular(files: QuestionFile[]): QuestionFile[] {
  for (const f of files) {
    const kind = oddKind(statSync(f.path));
    if (kind) throw new CxrError('layout-unrecognised', `${f.path}: ${kind}, not a regular file; save the questions to a file and give its path`);
  }
  return files;
}

function officialFiles(metadataDir: string): QuestionFile[] {
  return listDir(metadataDir)
    .map((name) => ({ name, match: OFFICIAL_FILE.exec(name) }))
    .filter((f): f is { name: string; match: RegExpExecArray } => f.match !== null)
    .map(({ name, match }) => ({ split: match[1]!, path: join(metadataDir, name), format: 'rexvqa-json' as const, baseDir: metadataDir }))
    .sort(bySplit);
}

function jsonlFiles(dir: string): QuestionFile[] {
  return listDir(dir)
    .filter((name) => name.endsWith('.jsonl'))
    .map((name) => ({ split: basename(name, '.jsonl'), path: join(dir, name), format: 'jsonl' as const, baseDir: dir }))
    .sort(bySplit);
}

/**
 * Finds the question files of a dataset. Accepts, in this order: the official ReXVQA folder (with
 * `metadata/<split>_vqa_data.json`), its `metadata/` folder itself, a folder of `<split>.jsonl` files,
 * or one `.json`/`.jsonl` file. Anything else is an error that says what was expected and what was found.
 */
export function detectLayout(path: string): DatasetLayout {
  let stats;
  try {
    stats = statSync(path);
  } catch {
    throw new CxrError('path-not-found', `${path}: no such file or folder. Expected a ReXVQA folder (with metadata/<split>_vqa_data.json) or a JSONL file.`);
  }
  const kind = oddKind(stats);
  if (kind) throw new CxrError('layout-unrecognised', `${path}: ${kind}, not a folder or a file. Expected a ReXVQA folder (with metadata/<split>_vqa_data.json) or a JSONL file.`);
  if (stats.isFile()) {
    const name = basename(path);
    const official = OFFICIAL_FILE.exec(name);
    if (name.endsWith('.jsonl')) return { kind: 'jsonl', root: dirname(path), files: [{ split: basename(name, '.jsonl'), path, format: 'jsonl', baseDir: dirname(path) }] };
    if (name.endsWith('.json')) {
      const split = official ? official[1]! : basename(name, '.json');
      return { kind: 'rexvqa', root: dirname(path), files: [{ split, path, format: 'rexvqa-json', baseDir: dirname(path) }] };
    }
    throw new CxrError('layout-unrecognised', `${path}: not a .json or .jsonl question file.`);
  }
  const inMetadata = officialFiles(join(path, 'metadata'));
  if (inMetadata.length > 0) return { kind: 'rexvqa', root: path, files: mustBeRegular(inMetadata) };
  const here = officialFiles(path);
  if (here.length > 0) return { kind: 'rexvqa', root: dirname(path), files: mustBeRegular(here) };
  const jsonl = jsonlFiles(path);
  if (jsonl.length > 0) return { kind: 'jsonl', root: path, files: mustBeRegular(jsonl) };

  const found = listDir(path);
  const expected =
    'Expected the official ReXVQA layout, <folder>/metadata/{train,valid,test}_vqa_data.json ' +
    '(each one JSON object keyed by question), or a folder of <split>.jsonl files, one question per line.';
  if (found.length === 0) throw new CxrError('folder-empty', `${path}: the folder is empty. ${expected}`);
  const metadata = listDir(join(path, 'metadata'));
  const shown = (names: string[]) => names.slice(0, 12).join(', ') + (names.length > 12 ? `, … (${names.length} in all)` : '');
  const detail = metadata.length > 0 ? `found metadata/ holding: ${shown(metadata)}` : `found: ${shown(found)}`;
  throw new CxrError('layout-unrecognised', `${path}: no question files. ${expected} Instead ${detail}.`);
}
