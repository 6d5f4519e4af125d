import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { CxrError } from '../../core/errors.js';
import { detectLayout } from '../../dataset/layout.js';
import { readQuestions } from '../../dataset/read-dataset.js';
import { writeJsonl } from '../../dataset/sources/jsonl.js';
import { writeRexvqaJson } from '../../dataset/sources/rexvqa-json-write.js';
import { parseFormat } from '../output-format.js';

/** `cxrbench data convert <dir> --to jsonl|rexvqa --out <folder>`: rewrite a dataset in the other format, split by split. */
export function registerDataConvert(data: Command): void {
  data
    .command('convert')
    .description('rewrite a dataset as <split>.jsonl files or as the official metadata/<split>_vqa_data.json layout (repairs applied; records with errors left out — run validate first)')
    .argument('<dir>', 'the dataset to read')
    .requiredOption('--to <format>', 'jsonl | rexvqa')
    .requiredOption('--out <folder>', 'output folder (created; existing files are not overwritten unless --force)')
    .option('--force', 'overwrite existing output files')
    .action(async (dir: string, opts: { to: string; out: string; force?: boolean }) => {
      const to = parseFormat(opts.to, ['jsonl', 'rexvqa'] as const, '--to');
      const layout = detectLayout(dir);
      const outDir = to === 'rexvqa' ? join(opts.out, 'metadata') : opts.out;
      mkdirSync(outDir, { recursive: true });
      for (const file of layout.files) {
        const target = join(outDir, to === 'jsonl' ? `${file.split}.jsonl` : `${file.split}_vqa_data.json`);
        if (existsSync(target) && !opts.force) throw new CxrError('output-exists', `${target} exists; pass --force to overwrite it`);
        const questions = readQuestions(layout, [file.split]);
        const count = to === 'jsonl' ? await writeJsonl(questions, target) : await writeRexvqaJson(questions, target);
        process.stderr.write(`${file.split}: ${count} question(s) → ${target}\n`);
      }
    });
}
