import type { Command } from 'commander';
import { CxrError } from '../../core/errors.js';
import { formatResults } from '../../report/results-tables.js';
import { resultsLatex } from '../../report/latex.js';
import { scoreRun } from '../score-run.js';
import { writeHtmlReport } from './report.js';
import { parseFormat } from '../output-format.js';
import { openSavedRun } from '../run-folder.js';
import { join } from 'node:path';
import { RUN_FILES } from '../../runner/run.js';
import { addJudgeOptions, judgeFromFlags, judgeStatsLine, type JudgeFlags } from '../judge-options.js';
import { savedRunOutcomes } from '../saved-run-outcomes.js';
import { openAnswers, openScoresOf } from '../open-scores.js';
import { openEndedTable } from '../../report/open-ended-table.js';
import { renderTable } from '../../report/text-table.js';

/** `cxrbench score <run>`: accuracy with intervals per task, category, subcategory and number of views, re-scored from the journal. */
export function registerScore(program: Command): void {
  const command = program
    .command('score')
    .description('score a saved run: accuracy with 95% intervals overall, per task, category, subcategory and views')
    .argument('<run>', 'a run folder written by cxrbench eval')
    .option('--format <format>', 'table | md | csv | json | latex | html (html: writes <run>/report.html, as cxrbench report)', 'table')
    .option('--resamples <n>', 'bootstrap resamples', '1000')
    .option('--seed <n>', 'bootstrap seed', '0')
    .option('--small-cell <n>', 'mark cells with fewer questions', '30');
  addJudgeOptions(command)
    .action(async (dir: string, opts: JudgeFlags & { format: string; resamples: string; seed: string; smallCell: string }) => {
      const format = parseFormat(opts.format, ['table', 'md', 'csv', 'json', 'latex', 'html'] as const);
      const numbers = [['--resamples', opts.resamples], ['--seed', opts.seed], ['--small-cell', opts.smallCell]].map(([name, v]) => {
        const n = Number(v);
        if (!Number.isInteger(n) || n < 0) throw new CxrError('bad-option', `${name} ${v}: expected a whole number ≥ 0`);
        return n;
      });
      const run = openSavedRun(dir);
      const judge = await judgeFromFlags(opts, join(dir, RUN_FILES.judge));
      if (format === 'html') {
        // The judge (when given) decides first and is recorded in the manifest, so the report reads its verdicts.
        if (judge) await savedRunOutcomes(run, judge);
        process.stdout.write(`${await writeHtmlReport([dir], undefined)}\n`);
        return;
      }
      if (run.journal.corruptLines > 0) process.stderr.write(`note: ${run.journal.corruptLines} unreadable line(s) of ${dir}/predictions.jsonl were skipped; their questions count as not yet run\n`);
      const { results } = await scoreRun(run, { resamples: Math.max(1, numbers[0]!), seed: numbers[1]!, smallCell: numbers[2]! }, judge);
      if (judge) process.stderr.write(judgeStatsLine(judge));
      const m = run.manifest;
      const title = `${m.adapter.baseline ? '[baseline] ' : ''}${m.adapter.name} on ${m.dataset.name}/${m.dataset.split}`;
      const scored = format === 'latex' ? resultsLatex([{ model: `${m.adapter.baseline ? '[baseline] ' : ''}${m.adapter.name}`, results }]) : formatResults(results, format, title);
      if (m.mode !== 'open' || format === 'latex') return void process.stdout.write(scored);
      // An open-ended run: its text scores against the correct option's text, as eval printed them, beside the judged accuracy.
      const items = [];
      for await (const question of run.questions()) items.push({ question, prediction: run.journal.latest.get(question.id) });
      const open = openScoresOf(openAnswers(items));
      if (format === 'json') return void process.stdout.write(`${JSON.stringify({ ...JSON.parse(scored), openEnded: open }, null, 2)}\n`);
      process.stdout.write(`${scored}\n${renderTable(openEndedTable(open, null, `${title} — open-ended (no options), text scores against the correct option's text`), format)}`);
    });
}
