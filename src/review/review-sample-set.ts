import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { z } from 'zod';
import { CxrError } from '../core/errors.js';
import { readCaseSet, type CaseSet, type CaseSource } from '../study/case-source.js';

/** A line of `review-sample.jsonl` as `cxrbench generate` writes it: which question (id, split), plus extra fields. */
const SampleLine = z.looseObject({ id: z.string().min(1), split: z.string().min(1) });

/** Fields of a sample line that repeat the record (or are the reviewer's blank form): not copied into the record. */
const REPEATED = new Set(['id', 'split', 'task', 'question', 'options', 'answer', 'explanation', 'review']);

/**
 * True when `path` is a generated set's review sample: a JSONL file whose lines name a question (id, split) and
 * carry the reviewer's blank form, rather than being question records themselves.
 */
export function isReviewSample(path: string): boolean {
  try {
    if (!path.endsWith('.jsonl') || !statSync(path).isFile()) return false;
    // The first line only: a question set given as one large JSONL file is not read twice.
    const head = Buffer.alloc(256 * 1024);
    const fd = openSync(path, 'r');
    let bytes: number;
    try {
      bytes = readSync(fd, head, 0, head.length, 0);
    } finally {
      closeSync(fd);
    }
    const first = head.subarray(0, bytes).toString('utf8').split('\n').find((l) => l.trim() !== '');
    if (!first) return false;
    const value = JSON.parse(first) as Record<string, unknown>;
    return typeof value === 'object' && value !== null && 'review' in value && 'split' in value && !('task_name' in value);
  } catch {
    return false;
  }
}

/**
 * Reads a generated set's review sample: each line names a question of the set in the folder beside it
 * (`metadata/<split>_vqa_data.json`), which is read with its images and reports like any set; the sample's own
 * fields the record lacks (the generator's evidence sentence) are kept in the record. Lines in sample order.
 */
export async function readReviewSample(path: string, splits?: readonly string[]): Promise<CaseSet> {
  const text = readFileSync(path, 'utf8');
  const lines: z.infer<typeof SampleLine>[] = [];
  for (const [i, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new CxrError('unreadable-file', `${path} line ${i + 1}: not JSON (${(error as Error).message})`);
    }
    const parsed = SampleLine.safeParse(value);
    if (!parsed.success) throw new CxrError('unreadable-file', `${path} line ${i + 1}: a review-sample line names its question with "id" and "split"`);
    if (!splits || splits.includes(parsed.data.split)) lines.push(parsed.data);
  }
  if (lines.length === 0) throw new CxrError('unreadable-file', `${path}: no sampled question${splits ? ` in ${splits.join(', ')}` : ''}`);
  const folder = dirname(path);
  const set = await readCaseSet(folder, [...new Set(lines.map((l) => l.split))]);
  const byKey = new Map(set.cases.map((c) => [`${c.question.split}\u0000${c.question.id}`, c]));
  const cases: CaseSource[] = lines.map((line) => {
    const found = byKey.get(`${line.split}\u0000${line.id}`);
    if (!found) throw new CxrError('unreadable-file', `${path}: question ${line.id} (${line.split}) is not in ${folder}/metadata/${line.split}_vqa_data.json — was the set generated again after the sample was written?`);
    const extra = Object.fromEntries(Object.entries(line).filter(([k]) => !REPEATED.has(k) && !(k in found.record)));
    return { ...found, record: { ...found.record, ...extra } };
  });
  const sha256 = createHash('sha256').update(set.sha256).update(text).digest('hex');
  return { source: `${basename(folder)}/${basename(path)}${splits ? ` (${splits.join(', ')})` : ''}`, sha256, cases };
}
