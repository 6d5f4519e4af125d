import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { CxrError } from '../core/errors.js';
import type { Question } from '../core/question.js';
import { detectLayout } from '../dataset/layout.js';
import { readQuestionFile } from '../dataset/read-dataset.js';
import { loadBenchmark, type Benchmark, type NewBenchmark } from '../store/benchmarks.js';
import type { Store } from '../store/connect.js';
import { hiddenItem, publicRecord } from './hidden-item.js';

async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * Loads one split of a dataset (official ReXVQA layout or JSONL) as a hidden benchmark. A test set must be
 * whole: any record with an error refuses the load, naming the first ones (run `cxrbench data validate`).
 */
export async function loadBenchmarkFromDataset(store: Store, actor: string, data: string, split: string, meta: Omit<NewBenchmark, 'contentSha256'>): Promise<Benchmark> {
  const layout = detectLayout(data);
  const file = layout.files.find((f) => f.split === split);
  if (!file) throw new CxrError('bad-option', `--split ${split}: ${data} has splits ${layout.files.map((f) => f.split).join(', ')}`);
  const questions: Question[] = [];
  const problems: string[] = [];
  for await (const event of readQuestionFile(file)) {
    if (event.kind === 'file-issue') problems.push(event.issue.message);
    else if (!event.question) problems.push(...event.issues.filter((i) => i.severity === 'error').map((i) => `${i.key ?? '?'}${i.field ? ` (${i.field})` : ''}: ${i.message}`));
    else questions.push(event.question);
  }
  if (problems.length > 0) throw new CxrError('unreadable-file', `${file.path}: ${problems.length} problem(s) — a hidden test set must load whole. First: ${problems.slice(0, 5).join('; ')}. Run \`cxrbench data validate ${data}\`.`);
  if (questions.length === 0) throw new CxrError('unreadable-file', `${file.path}: no questions`);
  const items = questions.map((q, position) => {
    const item = hiddenItem(q, position);
    return { position, question_id: item.questionId, study_id: item.studyId, task: item.task, category: item.category, subcategory: item.subcategory, gold: item.gold, options_json: JSON.stringify(item.options), public_json: JSON.stringify(publicRecord(q)) };
  });
  return loadBenchmark(store, actor, { ...meta, contentSha256: await sha256File(file.path) }, items);
}
