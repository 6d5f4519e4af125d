import { join } from 'node:path';
import type { Command } from 'commander';
import type { Outcome, OutcomeStatus } from '../../core/model-io.js';
import { renderTable } from '../../report/text-table.js';
import { outcomeOf } from '../../runner/outcomes.js';
import { RUN_FILES } from '../../runner/run.js';
import { addJudgeOptions, judgeFromFlags, judgeStatsLine, storedJudge, type JudgeFlags } from '../judge-options.js';
import { openSavedRun } from '../run-folder.js';
import { savedRunOutcomes } from '../saved-run-outcomes.js';

const STATUSES: OutcomeStatus[] = ['correct', 'wrong', 'unparseable', 'truncated', 'error'];

function tally(outcomes: readonly Outcome[]): Map<OutcomeStatus, number> {
  const m = new Map<OutcomeStatus, number>();
  for (const o of outcomes) m.set(o.status, (m.get(o.status) ?? 0) + 1);
  return m;
}

const clip = (text: string) => {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > 70 ? `${flat.slice(0, 67)}…` : flat;
};

/**
 * `cxrbench extract-audit <run>`: replays a run's stored outputs through the strict reader (JSON and tags), the
 * full rules, and — when the run used a judge, or `--judge` is given — the rules plus the judge, and shows how many
 * items and accuracy points each step moves, with a sample of the items.
 */
export function registerExtractAudit(program: Command): void {
  const command = program
    .command('extract-audit')
    .description('compare strict extraction, the full rules, and the rules plus the judge on a saved run: items and accuracy points moved')
    .argument('<run>', 'a run folder written by cxrbench eval')
    .option('--show <n>', 'list up to n items whose outcome changes, per step', '20');
  addJudgeOptions(command).action(async (dir: string, opts: JudgeFlags & { show: string }) => {
    const run = openSavedRun(dir);
    const journalFile = join(dir, RUN_FILES.judge);
    const judge = (await judgeFromFlags(opts, journalFile)) ?? storedJudge(run.manifest.extractor.judge, journalFile);
    const strict: Outcome[] = [];
    const rules: Outcome[] = [];
    const texts = new Map<string, string>();
    for await (const question of run.questions()) {
      const prediction = run.journal.latest.get(question.id);
      const s = outcomeOf(question, prediction, true);
      const r = outcomeOf(question, prediction, false);
      if (!s || !r) continue;
      strict.push(s);
      rules.push(r);
      texts.set(question.id, prediction?.response?.text ?? '');
    }
    // The judge reads on top of the run's own extraction settings (lenient unless the run was strict).
    const judged = judge ? (await savedRunOutcomes({ ...run, manifest: { ...run.manifest, extractor: { ...run.manifest.extractor, strict: false } } }, judge, false)).items.map((i) => i.outcome) : null;
    const n = rules.length;
    const readings: [string, Outcome[]][] = [['strict (JSON, tags)', strict], ['rules', rules], ...(judged ? [[`rules + judge ${judge!.model}`, judged] as [string, Outcome[]]] : [])];
    const acc = (outcomes: Outcome[]) => (n === 0 ? 0 : outcomes.filter((o) => o.status === 'correct').length / n);
    const out: string[] = [];
    out.push(renderTable({
      title: `Extraction audit of ${dir} (${n} answered items)`,
      headers: ['reading', 'accuracy', ...STATUSES],
      rows: readings.map(([name, outcomes]) => {
        const t = tally(outcomes);
        return [name, `${(100 * acc(outcomes)).toFixed(2)}%`, ...STATUSES.map((s) => String(t.get(s) ?? 0))];
      }),
      numeric: [false, true, true, true, true, true],
    }, 'table'));
    for (let step = 1; step < readings.length; step++) {
      const [fromName, from] = readings[step - 1]!;
      const [toName, to] = readings[step]!;
      const moves = new Map<string, number>();
      const examples: string[][] = [];
      for (let i = 0; i < n; i++) {
        const a = from[i]!;
        const b = to[i]!;
        if (a.status === b.status && a.predicted === b.predicted) continue;
        const move = `${a.status} → ${b.status}`;
        moves.set(move, (moves.get(move) ?? 0) + 1);
        if (examples.length < Number(opts.show)) {
          examples.push([b.questionId, a.predicted ?? '—', b.predicted ?? '—', b.expected, b.extraction?.rule ?? '', clip(b.extraction?.judge && 'reply' in b.extraction.judge ? `judge: ${b.extraction.judge.reply} | ${texts.get(b.questionId)}` : texts.get(b.questionId) ?? '')]);
        }
      }
      const changed = [...moves.values()].reduce((x, y) => x + y, 0);
      out.push(`\n${toName} vs ${fromName}: ${(100 * (acc(to) - acc(from))).toFixed(2)} accuracy points; ${changed} item(s) change outcome or letter`);
      if (moves.size > 0) out.push(renderTable({ headers: [`${fromName} → ${toName}`, 'items'], rows: [...moves.entries()].sort((x, y) => y[1] - x[1]).map(([m, c]) => [m, String(c)]), numeric: [false, true] }, 'table'));
      if (examples.length > 0) out.push(renderTable({ title: `Items that change (${fromName} → ${toName})`, headers: ['id', 'before', 'after', 'gold', 'rule', 'output'], rows: examples }, 'table'));
    }
    const rulesUsed = new Map<string, number>();
    for (const o of judged ?? rules) if (o.extraction) rulesUsed.set(o.extraction.rule, (rulesUsed.get(o.extraction.rule) ?? 0) + 1);
    out.push(renderTable({ title: '\nRule that decided each item', headers: ['rule', 'items'], rows: [...rulesUsed.entries()].sort((a, b) => b[1] - a[1]).map(([r, c]) => [r, String(c)]), numeric: [false, true] }, 'table'));
    if (!judge) out.push('\nNo judge: give --judge <spec> to see what a judge model would read of the unparseable items.');
    process.stdout.write(`${out.join('\n')}\n`);
    if (judge && judge.stats.asked > 0) process.stderr.write(judgeStatsLine(judge));
  });
}
