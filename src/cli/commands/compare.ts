import type { Command } from 'commander';
import { CxrError } from '../../core/errors.js';
import type { Outcome } from '../../core/model-io.js';
import { renderTable } from '../../report/text-table.js';
import { compareRuns } from '../../score/paired.js';
import { parseFormat } from '../output-format.js';
import { openSavedRun, type SavedRun } from '../run-folder.js';
import { savedRunOutcomes } from '../saved-run-outcomes.js';

async function outcomesOf(run: SavedRun): Promise<Map<string, Outcome>> {
  const { items } = await savedRunOutcomes(run);
  return new Map(items.map(({ question, outcome }) => [question.id, outcome]));
}

const pct = (x: number) => (100 * x).toFixed(1);
const signed = (x: number) => `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)}`;
const pv = (p: number) => (p < 0.001 ? p.toExponential(1) : p.toFixed(3));

/** `cxrbench compare <run> <run> [...]`: paired differences with intervals and exact McNemar tests; tiers for several runs. */
export function registerCompare(program: Command): void {
  program
    .command('compare')
    .description('compare runs on the items they share: paired bootstrap difference, exact McNemar per task (Holm), and rank tiers')
    .argument('<runs...>', 'two or more run folders')
    .option('--force', 'compare runs on different dataset versions or item sets (on the items they share)')
    .option('--format <format>', 'table | json', 'table')
    .option('--resamples <n>', 'bootstrap resamples', '1000')
    .option('--seed <n>', 'bootstrap seed', '0')
    .action(async (dirs: string[], opts: { force?: boolean; format: string; resamples: string; seed: string }) => {
      const format = parseFormat(opts.format, ['table', 'json'] as const);
      if (dirs.length < 2) throw new CxrError('bad-option', 'compare needs at least two run folders');
      const runs = dirs.map(openSavedRun);
      const base = runs[0]!.manifest.dataset;
      for (const [i, run] of runs.entries()) {
        const d = run.manifest.dataset;
        if ((d.sha256 !== base.sha256 || d.split !== base.split) && !opts.force) {
          throw new CxrError('bad-option', `${dirs[i]} was run on ${d.split} of ${d.path} (sha256 ${d.sha256.slice(0, 12)}…), ${dirs[0]} on ${base.split} of ${base.path} (sha256 ${base.sha256.slice(0, 12)}…): different dataset versions; pass --force to compare on the items they share`);
        }
      }
      const outcomes = await Promise.all(runs.map(outcomesOf));
      const shared = [...outcomes[0]!.keys()].filter((id) => outcomes.every((m) => m.has(id)));
      const differing = outcomes.map((m, i) => ({ dir: dirs[i]!, extra: m.size - shared.length })).filter((x) => x.extra > 0);
      if (differing.length > 0 && !opts.force) {
        const missing = [...outcomes[0]!.keys()].filter((id) => !shared.includes(id)).slice(0, 5);
        throw new CxrError('bad-option', `the runs cover different items: ${shared.length} shared; ${differing.map((d) => `${d.dir} has ${d.extra} more`).join(', ')}${missing.length ? ` (e.g. ${missing.join(', ')})` : ''}; pass --force to compare on the shared items`);
      }
      const names = runs.map((r, i) => `${r.manifest.adapter.baseline ? '[baseline] ' : ''}${r.manifest.adapter.name} (${dirs[i]})`);
      const resamples = Math.max(1, Number(opts.resamples) || 1000);
      const seed = Number(opts.seed) || 0;
      const { pairs, ranking } = compareRuns(runs.map((_, i) => ({ name: names[i]!, outcomes: outcomes[i]! })), shared, resamples, seed);
      if (format === 'json') {
        process.stdout.write(JSON.stringify({ sharedItems: shared.length, pairs, ranking, settings: { resamples, seed, test: 'exact McNemar; Holm across tasks; tiers at alpha 0.05' } }, null, 2) + '\n');
        return;
      }
      const out: string[] = [`${shared.length} shared items`];
      for (const p of pairs) {
        const rows = [['all questions', p.overall] as const, ...Object.entries(p.byTask)].map(([task, c]) => [
          task, String(c.n), pct(c.accuracyA), pct(c.accuracyB), signed(c.difference), `${signed(c.lo)} to ${signed(c.hi)}`, `${c.onlyA}/${c.onlyB}`, pv(c.p), task === 'all questions' ? '' : pv(c.pHolm),
        ]);
        out.push(renderTable({ title: `\nA = ${p.a}\nB = ${p.b}`, headers: ['task', 'n', 'A %', 'B %', 'A−B pts', '95% paired bootstrap', 'only A/only B', 'McNemar p', 'Holm p'], rows, numeric: [false, true, true, true, true, true, true, true, true] }, 'table'));
      }
      out.push(renderTable({ title: '\nRanking (runs not significantly below their tier leader share its tier)', headers: ['tier', 'run', 'accuracy %', 'p vs tier leader (Holm)'], rows: ranking.map((r) => [String(r.tier), r.name, pct(r.accuracy), r.pVsTierLeader === null ? 'tier leader' : pv(r.pVsTierLeader)]), numeric: [true, false, true, true] }, 'table'));
      process.stdout.write(out.join('\n'));
    });
}
