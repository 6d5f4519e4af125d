import { CxrError } from '../core/errors.js';

/** The gated dataset repository holding the ReXVQA questions (`metadata/<split>_vqa_data.json`). */
export const REXVQA_REPO = 'rajpurkarlab/ReXVQA';
/** The gated dataset repository holding the de-identified PNGs, shipped as the split archive `deid_png.part*`. */
export const REXGRADIENT_REPO = 'rajpurkarlab/ReXGradient-160K';

/** What to fetch: the question files, the images, or both. */
export type DownloadWhat = 'metadata' | 'images' | 'all';

/** One file of a repo listing, as the hub reports it. */
export interface ListedFile {
  path: string;
  size: number;
  /** sha256 of the content: the LFS oid. Absent for a file kept in git itself. */
  sha256?: string;
  /** The git blob id (sha1 of "blob <size>\0" + content), which is what the hub lists for a non-LFS file. */
  gitSha1?: string;
}

/** A file chosen for download, with where it lands relative to the output folder. */
export interface PlannedFile extends ListedFile {
  repo: string;
  /** Relative to the output folder: `metadata/…` for questions, the parts' holding folder for archive pieces. */
  dest: string;
  kind: 'metadata' | 'archive-part';
}

/** Where verified archive parts wait (inside the output folder, so the rename into place stays on one file system). */
export const STATE_DIR = '.cxrbench-download';
const QUESTION_FILE = /^metadata\/(.+)_vqa_data\.json$/;
const ARCHIVE_PART = /^deid_png\.part(.*)$/;

/** Which repos a `--what` needs. */
export function reposFor(what: DownloadWhat): string[] {
  return what === 'metadata' ? [REXVQA_REPO] : what === 'images' ? [REXGRADIENT_REPO] : [REXVQA_REPO, REXGRADIENT_REPO];
}

/**
 * Orders archive parts as `split` names them: a numeric suffix by its value (part2 before part10), letters
 * (`partaa`, `partab`) as text. Concatenating in any other order would feed zstd a scrambled stream.
 */
function partOrder(a: string, b: string): number {
  const sa = ARCHIVE_PART.exec(a)![1]!;
  const sb = ARCHIVE_PART.exec(b)![1]!;
  const na = /^\d+$/.test(sa) ? Number(sa) : NaN;
  const nb = /^\d+$/.test(sb) ? Number(sb) : NaN;
  if (!Number.isNaN(na) && !Number.isNaN(nb) && na !== nb) return na - nb;
  return sa.localeCompare(sb);
}

/** The question files of the ReXVQA listing for the splits asked (all splits listed when `splits` is undefined). */
export function questionFiles(listing: ListedFile[], splits: string[] | undefined, revision: string): PlannedFile[] {
  const bySplit = new Map<string, ListedFile>();
  for (const f of listing) {
    const m = QUESTION_FILE.exec(f.path);
    if (m) bySplit.set(m[1]!, f);
  }
  if (bySplit.size === 0) throw new CxrError('not-found', `${REXVQA_REPO} at ${revision}: no metadata/<split>_vqa_data.json in the listing; is this the right repository and revision?`);
  const wanted = splits ?? [...bySplit.keys()].sort();
  const missing = wanted.filter((s) => !bySplit.has(s));
  if (missing.length > 0) {
    throw new CxrError('bad-option', `--splits: ${missing.join(', ')} not in ${REXVQA_REPO} at ${revision}; it has ${[...bySplit.keys()].sort().join(', ')}`);
  }
  return wanted.map((s) => ({ ...bySplit.get(s)!, repo: REXVQA_REPO, dest: bySplit.get(s)!.path, kind: 'metadata' as const }));
}

/** The `deid_png.part*` pieces of the ReXGradient-160K listing, in the order they concatenate. */
export function archiveParts(listing: ListedFile[], revision: string): PlannedFile[] {
  const parts = listing.filter((f) => ARCHIVE_PART.test(f.path)).sort((a, b) => partOrder(a.path, b.path));
  if (parts.length === 0) throw new CxrError('not-found', `${REXGRADIENT_REPO} at ${revision}: no deid_png.part* archive pieces in the listing; is this the right repository and revision?`);
  return parts.map((f) => ({ ...f, repo: REXGRADIENT_REPO, dest: `${STATE_DIR}/parts/${f.path}`, kind: 'archive-part' as const }));
}

/** Parses `--revision`: one revision for every repo, or `repo=rev` pairs (by full name or the part after the slash). */
export function parseRevisions(value: string | undefined, repos: string[]): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = Object.fromEntries(repos.map((r) => [r, undefined]));
  if (value === undefined) return out;
  if (!value.includes('=')) {
    for (const r of repos) out[r] = value;
    return out;
  }
  for (const pair of value.split(',')) {
    const [name, rev] = pair.split('=').map((s) => s.trim());
    const repo = [REXVQA_REPO, REXGRADIENT_REPO].find((r) => r === name || r.split('/')[1] === name);
    if (!repo || !rev) throw new CxrError('bad-option', `--revision: "${pair}" is not <repo>=<revision> with repo ReXVQA or ReXGradient-160K`);
    if (repo in out) out[repo] = rev;
  }
  return out;
}
