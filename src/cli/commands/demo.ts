import type { Command } from 'commander';
import { EXIT } from '../../core/errors.js';
import { isValid } from '../../core/validation-report.js';
import { detectLayout } from '../../dataset/layout.js';
import { computeStats } from '../../dataset/stats.js';
import { validateDataset } from '../../dataset/validate.js';
import { formatStats } from '../../report/stats-report.js';
import { validationReportText } from '../../report/validation-report-text.js';
import { DEMO_DATASET } from './demo-dataset.js';


/** `cxrbench demo`: the main job on the bundled demo — load, validate (images included) and print statistics. */
export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description('run the main job on the bundled demo dataset: load, validate (with images) and print statistics')
    .option('--data <dir>', 'use another dataset instead of the bundled demo', DEMO_DATASET)
    .action(async (opts: { data: string }) => {
      const layout = detectLayout(opts.data);
      process.stdout.write(`cxrbench demo — dataset ${opts.data}\n\n== Validation ==\n`);
      const report = await validateDataset(layout, { images: 'default' });
      process.stdout.write(validationReportText(report));
      process.stdout.write('\n== Statistics ==\n');
      process.stdout.write(formatStats(await computeStats(layout), 'table'));
      process.exitCode = isValid(report) ? EXIT.ok : EXIT.findings;
    });
}
