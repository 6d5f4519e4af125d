import type { Command } from 'commander';
import { CxrError, EXIT } from '../../core/errors.js';
import { checkQuestionSet } from '../../generate/check/check-question-set.js';
import { renderTable } from '../../report/text-table.js';
import { writeTextAtomically } from '../write-output.js';
import { generateQuestionSet } from '../../generate/pipeline.js';

const ratio = (flag: string) => (value: string) => {
  const x = Number(value);
  if (!Number.isFinite(x) || x <= 0 || x > 1) throw new CxrError('bad-option', `${flag} ${value}: expected a number in (0, 1]`);
  return x;
};

/** `cxrbench generate <corpus>`: report corpus → checked, PHI-screened ReXVQA-format question set with a dataset card. */
export function registerGenerate(program: Command): void {
  program
    .command('generate <corpus>')
    .description('make a ReXVQA-format question set from a corpus (cxrbench corpus import): generate → check → PHI screen → official layout + dataset card')
    .requiredOption('--out <dir>', 'output folder (metadata/<split>_vqa_data.json, dataset-card.md/.json, rejections, review sample)')
    .option('--generator <spec>', 'offline (template rules, no network; the default)', 'offline')
    .option('--seed <n>', 'seed for options order, splits and the review sample', '0')
    .option('--similarity <x>', 'drop a question more similar than this (TF-IDF cosine) to a kept one', ratio('--similarity'), 0.9)
    .option('--review-rate <x>', 'share of kept questions in the expert-review sample', ratio('--review-rate'), 0.1)
    .option('--splits <train,valid,test>', 'split shares, by patient', '0.8,0.1,0.1')
    .action(async (corpus: string, opts: { out: string; generator: string; seed: string; similarity: number; reviewRate: number; splits: string }) => {
      if (opts.generator !== 'offline') throw new CxrError('bad-option', `--generator ${opts.generator}: only "offline" (template rules) is available in this version; the model-backed generator is not built yet`);
      const shares = opts.splits.split(',').map(Number);
      if (shares.length !== 3 || shares.some((x) => !Number.isFinite(x) || x < 0) || shares.reduce((a, b) => a + b, 0) <= 0) throw new CxrError('bad-option', `--splits ${opts.splits}: expected three non-negative shares, e.g. 0.8,0.1,0.1`);
      const seed = Number(opts.seed);
      if (!Number.isInteger(seed)) throw new CxrError('bad-option', `--seed ${opts.seed}: expected an integer`);
      const card = await generateQuestionSet({ corpus, out: opts.out, seed, similarity: opts.similarity, reviewRate: opts.reviewRate, splits: { train: shares[0]!, valid: shares[1]!, test: shares[2]! } });
      process.stdout.write(card.markdown);
      process.stdout.write(`\nwritten to ${opts.out}\n`);
    });
}

/** `cxrbench check <dir>`: the check layer on a question set in the official layout (as `generate` runs it). */
export function registerCheck(program: Command): void {
  program
    .command('check <dataset>')
    .description('run the validators on a ReXVQA-format question set: v1–v4 structural, c1–c3 content (against each record\'s report), PHI screen, diversity; exit 1 when any question fails')
    .option('--similarity <x>', 'near-duplicate threshold (TF-IDF cosine)', ratio('--similarity'), 0.9)
    .option('--out <file>', 'write every rejection (JSONL: question, validator, reason)')
    .action(async (dataset: string, opts: { similarity: number; out?: string }) => {
      const result = await checkQuestionSet(dataset, opts.similarity);
      process.stdout.write(renderTable({ headers: ['validator', 'checked', 'passed', 'pass rate'], rows: result.validators.map((v) => [v.validator, String(v.checked), String(v.passed), v.checked === 0 ? '—' : `${((100 * v.passed) / v.checked).toFixed(1)}%`]), numeric: [false, true, true, true] }, 'table'));
      const byRule = new Map<string, number>();
      for (const r of result.rejections) byRule.set(`${r.validator}: ${r.reason.split(':')[0]}`, (byRule.get(`${r.validator}: ${r.reason.split(':')[0]}`) ?? 0) + 1);
      for (const [rule, n] of [...byRule].sort((a, b) => b[1] - a[1])) process.stdout.write(`  ${n} × ${rule}\n`);
      const failed = new Set(result.rejections.map((r) => r.questionId)).size;
      process.stdout.write(`${result.questions} question(s), ${failed} fail at least one validator\n`);
      if (opts.out) {
        await writeTextAtomically(opts.out, result.rejections.map((r) => JSON.stringify(r)).join('\n') + (result.rejections.length ? '\n' : ''));
        process.stdout.write(`rejections written to ${opts.out}\n`);
      }
      if (failed > 0) process.exitCode = EXIT.findings;
    });
}
