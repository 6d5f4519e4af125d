import type { Command } from 'commander';
import { EXIT } from '../../core/errors.js';
import { isValid } from '../../core/validation-report.js';
import { detectLayout } from '../../dataset/layout.js';
import { validateDataset } from '../../dataset/validate.js';
import { validationReportJson, validationReportText } from '../../report/validation-report-text.js';
import { parseFormat } from '../output-format.js';

/** `cxrbench data validate <dir>`: every problem of a dataset; exit 1 when any is an error. */
export function registerDataValidate(data: Command): void {
  data
    .command('validate')
    .description('check a dataset (paper validators v1–v4 and integrity checks); exit 1 on any error')
    .argument('<dir>', 'ReXVQA folder (with metadata/), a folder of <split>.jsonl files, or one question file')
    .option('--images [root]', 'check that every image exists; without a value, relative to each question file\'s folder')
    .option('--format <format>', 'text | json', 'text')
    .action(async (dir: string, opts: { images?: string | true; format: string }) => {
      const format = parseFormat(opts.format, ['text', 'json'] as const);
      const layout = detectLayout(dir);
      const images = opts.images === undefined ? undefined : opts.images === true ? 'default' : opts.images;
      const report = await validateDataset(layout, images === undefined ? {} : { images });
      process.stdout.write(format === 'json' ? validationReportJson(report) : validationReportText(report));
      process.exitCode = isValid(report) ? EXIT.ok : EXIT.findings;
    });
}
