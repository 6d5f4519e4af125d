import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEMO_DATASET } from '../../src/cli/commands/demo-dataset.js';

/** One split of the bundled demo as its file says: question keys in file order, and the count per task. */
export interface DemoSplit {
  ids: string[];
  n: number;
  byTask: Record<string, number>;
}

/** Reads a demo split's counts, so tests follow the demo when its questions change instead of hard-coding them. */
export function demoSplit(split: 'train' | 'valid' | 'test'): DemoSplit {
  const records = JSON.parse(readFileSync(join(DEMO_DATASET, 'metadata', `${split}_vqa_data.json`), 'utf8')) as Record<string, { task_name: string }>;
  const byTask: Record<string, number> = {};
  for (const record of Object.values(records)) byTask[record.task_name] = (byTask[record.task_name] ?? 0) + 1;
  return { ids: Object.keys(records), n: Object.keys(records).length, byTask };
}

/** The demo's test split, which most end-to-end tests evaluate. */
export const DEMO_TEST = demoSplit('test');
