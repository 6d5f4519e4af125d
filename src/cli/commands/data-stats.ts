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
    .option('--format <format>', 'table | md | csv | json', 'table')
    .action(async (dir: string, opts: { format: string }) => {
      const format = parseFormat(opts.format, ['table', 'md', 'csv', 'json'] as const);
      const stats = await computeStats(detectLayout(dir));
      process.stdout.write(formatStats(stats, format));
    });
}
