import { readdirSync, statSync } from 'node:fs';
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
  if (inMetadata.length > 0) return { kind: 'rexvqa', root: path, files: inMetadata };
  const here = officialFiles(path);
  if (here.length > 0) return { kind: 'rexvqa', root: dirname(path), files: here };
  const jsonl = jsonlFiles(path);
  if (jsonl.length > 0) return { kind: 'jsonl', root: path, files: jsonl };

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
