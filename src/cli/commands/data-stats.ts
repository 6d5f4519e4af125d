import type { Command } from 'commander';
import { detectLayout } from '../../dataset/layout.js';
import { computeStats } from '../../dataset/stats.js';
import { formatStats } from '../../report/stats-report.js';
import { parseFormat } from '../output-format.js';

/** `cxrbench data stats <dir>`: per-split statistics (paper Table 1 and distributions). */
export function registerDataStats(data: Command): void {
  data
    .command('stats')
    .description('per-split statistics: tasks (paper Table 1), categories, subcategories, studies, views')
    .argument('<dir>', 'ReXVQA folder (with metadata/), a folder of <split>.jsonl files, or one question file')
    .option('--images [root]', 'leave out questions whose images are missing (as data validate --images); without a value, relative to each question file\'s folder')
    .option('--format <format>', 'table | md | csv | json', 'table')
    .action(async (dir: string, opts: { images?: string | true; format: string }) => {
      const format = parseFormat(opts.format, ['table', 'md', 'csv', 'json'] as const);
      const images = opts.images === undefined ? undefined : opts.images === true ? 'default' : opts.images;
      const stats = await computeStats(detectLayout(dir), images === undefined ? {} : { images });
      process.stdout.write(formatStats(stats, format));
    });
}
