import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { CxrError } from '../core/errors.js';
import { toOfficialRecord } from '../core/official-record.js';
import type { Question } from '../core/question.js';
import { resolveImagePath } from '../dataset/image-path.js';
import { detectLayout } from '../dataset/layout.js';
import { readQuestionFile } from '../dataset/read-dataset.js';
import { studyFromQuestion } from '../dataset/study.js';
import { imageContentType } from '../store/images.js';

/** One view of a case: the path as the record gives it, and the file on disk (null when it cannot be shown, and why). */
export interface CaseImage {
  path: string;
  view: string | null;
  file: string | null;
  problem: string | null;
}

/** A question with what people need to read or review it: its images on disk and its report. */
export interface CaseSource {
  question: Question;
  record: Record<string, unknown>;
  reportText: string | null;
  images: CaseImage[];
}

/** A question set read for a study or a review: its cases and a sha256 over its files, for the record. */
export interface CaseSet {
  source: string;
  sha256: string;
  cases: CaseSource[];
}

async function hashFiles(files: readonly string[]): Promise<string> {
  const hash = createHash('sha256');
  for (const file of files) for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

function reportTextOf(question: Question): string | null {
  const r = studyFromQuestion(question).report;
  const parts = [['Indication', r.indication], ['Comparison', r.comparison], ['Findings', r.findings], ['Impression', r.impression]].filter(([, t]) => t);
  return parts.length > 0 ? parts.map(([label, t]) => `${label}: ${t}`).join('\n') : null;
}

/** Why an image file cannot be shown (no such file, not a PNG or JPEG by name), or null. Decoding is checked later. */
function imageFileProblem(file: string): string | null {
  try {
    if (!existsSync(file)) return 'missing';
    if (!statSync(file).isFile()) return 'not a file';
  } catch (error) {
    return `unreadable (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
  }
  return imageContentType(file) === null ? 'not a .png or .jpg file' : null;
}

/**
 * The image as it can be shown: its file decodes as an image (an empty or corrupt file is reported as such, so
 * the host hears of it before readers meet a broken case). Checked for the cases a study or queue keeps.
 */
export async function decodableImage(image: CaseImage): Promise<CaseImage> {
  if (!image.file) return image;
  try {
    // sharp (libvips) loads when a study is made from images, not with every command that can make one.
    const { default: sharp } = await import('sharp');
    const meta = await sharp(image.file).metadata();
    if (!meta.width || !meta.height) return { ...image, file: null, problem: 'not a readable image (no size)' };
    return image;
  } catch (error) {
    return { ...image, file: null, problem: `not a readable image (${(error as Error).message.split('\n')[0]!.slice(0, 80)})` };
  }
}

/**
 * Reads the questions of a dataset (folder or file, any layout cxrbench reads; `splits` to choose) with their
 * images resolved on disk. A record with errors refuses the set, naming the first ones: people should not read
 * questions the validator rejects. Missing images do not refuse it — the host is told which, before inviting.
 */
export async function readCaseSet(data: string, splits?: readonly string[]): Promise<CaseSet> {
  const layout = detectLayout(data);
  const files = layout.files.filter((f) => !splits || splits.includes(f.split));
  if (files.length === 0) throw new CxrError('bad-option', `${data} has splits ${layout.files.map((f) => f.split).join(', ')}; none of ${splits?.join(', ')}`);
  const cases: CaseSource[] = [];
  const problems: string[] = [];
  for (const file of files) {
    for await (const event of readQuestionFile(file)) {
      if (event.kind === 'file-issue') problems.push(event.issue.message);
      else if (!event.question) problems.push(...event.issues.filter((i) => i.severity === 'error').map((i) => `${i.key ?? '?'}${i.field ? ` (${i.field})` : ''}: ${i.message}`));
      else {
        const q = event.question;
        cases.push({
          question: q,
          record: toOfficialRecord(q),
          reportText: reportTextOf(q),
          images: q.images.map((image) => {
            const onDisk = resolveImagePath(image.path, file.baseDir, 'default');
            const problem = imageFileProblem(onDisk);
            return { path: image.path, view: image.view, file: problem ? null : onDisk, problem };
          }),
        });
      }
    }
  }
  if (problems.length > 0) throw new CxrError('unreadable-file', `${data}: ${problems.length} problem(s); fix them first (cxrbench data validate ${data}). First: ${problems.slice(0, 5).join('; ')}`);
  if (cases.length === 0) throw new CxrError('unreadable-file', `${data}: no questions`);
  return { source: `${data}${splits ? ` (${splits.join(', ')})` : ''}`, sha256: await hashFiles(files.map((f) => f.path)), cases };
}

/** The bytes of a case's image file (read when the set is stored). */
export function readImageFile(image: CaseImage): Buffer | null {
  if (!image.file) return null;
  try {
    return readFileSync(image.file);
  } catch {
    return null;
  }
}
