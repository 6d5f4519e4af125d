import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** Which layers each layer of src/ may import (ARCHITECTURE.md's dependency rule). Its own layer is always allowed. */
export const ALLOWED: Record<string, readonly string[]> = {
  core: [],
  dataset: ['core'],
  prompt: ['core'],
  extract: ['core'],
  score: ['core'],
  models: ['core'],
  runner: ['core', 'models', 'prompt', 'extract'],
  // the answer judge: a model asked about outputs the rules cannot read, sent through the runner's sender and journal
  judge: ['core', 'models', 'prompt', 'extract', 'runner'],
  report: ['core', 'score'],
  store: ['core', 'score'],
  // the job queue the board scores on (pg-boss on PostgreSQL, a job table on SQLite)
  jobs: ['core', 'store'],
  // the leaderboard's application layer: checks and scores uploads over the store (docs/design/board.md)
  board: ['core', 'dataset', 'extract', 'score', 'models', 'store', 'jobs', 'rrg'],
  // question generation (docs/generation.md): report corpora in, PHI screened, questions checked, official layout out
  phi: ['core'],
  corpus: ['core', 'dataset'],
  // the shortcut audit (docs/generation.md): blind guessers over any question set's wording, scored with intervals
  shortcuts: ['core', 'dataset', 'models', 'score'],
  generate: ['core', 'dataset', 'corpus', 'phi', 'models', 'runner', 'shortcuts'],
  // reader studies and expert review (docs/board.md): people read and rate questions over the store
  study: ['core', 'dataset', 'extract', 'score', 'store', 'board'],
  review: ['core', 'dataset', 'score', 'store', 'study'],
  // report generation metrics (docs/rrg.md): BLEU-2, ROUGE-L, RadCliQ here; model metrics' arithmetic over a backend;
  // GREEN's judge is a model endpoint asked through the runner's sender and journal, as the answer judge is
  rrg: ['core', 'score', 'models', 'runner'],
  // DICOM → PNG (docs/images.md): decode, modality/VOI transforms, resize, manifest
  images: ['core'],
  // dataset hub downloads (docs/data.md): listing, ranged fetch, verification, archive streaming into the official layout
  hub: ['core'],
  cli: ['core', 'dataset', 'prompt', 'extract', 'score', 'models', 'runner', 'judge', 'report', 'store', 'jobs', 'board', 'corpus', 'generate', 'shortcuts', 'phi', 'study', 'review', 'rrg', 'images', 'hub'],
  server: ['core', 'dataset', 'prompt', 'extract', 'score', 'models', 'runner', 'report', 'store', 'jobs', 'board', 'study', 'review', 'rrg'],
  // the library entry point exports the core library, never the shells
  'index.ts': ['core', 'dataset', 'prompt', 'extract', 'score', 'models', 'runner', 'judge', 'report', 'store', 'jobs', 'board'],
};

/** A source file of src/, by its path relative to src/ (forward slashes). */
export interface SourceFile {
  path: string;
  text: string;
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function layerOf(pathInSrc: string): string {
  return pathInSrc.includes('/') ? pathInSrc.split('/')[0]! : pathInSrc;
}

/** Every import of one src/ layer into another that the rule forbids, as "from → to (specifier)". */
export function forbiddenImports(files: SourceFile[]): string[] {
  const problems: string[] = [];
  for (const file of files) {
    const from = layerOf(file.path);
    const allowed = ALLOWED[from];
    if (!allowed) {
      problems.push(`${file.path}: layer "${from}" is not in the dependency rule`);
      continue;
    }
    for (const match of file.text.matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2]!;
      if (!specifier.startsWith('.')) continue; // packages and node: builtins
      const target = join(dirname(file.path), specifier).split(sep).join('/');
      if (target.startsWith('..')) {
        problems.push(`${file.path} → ${specifier}: imports from outside src/`);
        continue;
      }
      const to = layerOf(target);
      if (to !== from && !allowed.includes(to)) problems.push(`${file.path} → ${specifier}: ${from} may not import ${to}`);
    }
  }
  return problems;
}

/** The non-test TypeScript files of a src/ folder. */
export function sourceFiles(srcDir: string): SourceFile[] {
  const out: SourceFile[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) {
        out.push({ path: relative(resolve(srcDir), full).split(sep).join('/'), text: readFileSync(full, 'utf8') });
      }
    }
  };
  walk(srcDir);
  return out;
}
