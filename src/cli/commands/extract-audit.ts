import type { Command } from 'commander';
import type { OutcomeStatus } from '../../core/model-io.js';
import { renderTable } from '../../report/text-table.js';
import { outcomeOf } from '../../runner/outcomes.js';
import { openSavedRun } from '../run-folder.js';

/**
 * `cxrbench extract-audit <run>`: replays a run's stored outputs through the strict (JSON and tags) and the
 * lenient ladder, and shows how many items and accuracy points the choice of extractor moves.
 */
export function registerExtractAudit(program: Command): void {
  program
    .command('extract-audit')
    .description('compare strict and lenient answer extraction on a saved run: items and accuracy points moved')
    .argument('<run>', 'a run folder written by cxrbench eval')
    .option('--show <n>', 'list up to n items whose outcome changes', '20')
    .action(async (dir: string, opts: { show: string }) => {
      const run = openSavedRun(dir);
      const counts = { strict: new Map<OutcomeStatus, number>(), lenient: new Map<OutcomeStatus, number>() };
      const moves = new Map<string, number>();
      const rules = new Map<string, number>();
      const examples: string[][] = [];
      let n = 0;
      for await (const question of run.questions()) {
        const prediction = run.journal.latest.get(question.id);
        const strict = outcomeOf(question, prediction, true);
        const lenient = outcomeOf(question, prediction, false);
        if (!strict || !lenient) continue;
        n++;
        counts.strict.set(strict.status, (counts.strict.get(strict.status) ?? 0) + 1);
        counts.lenient.set(lenient.status, (counts.lenient.get(lenient.status) ?? 0) + 1);
        if (lenient.extraction) rules.set(lenient.extraction.rule, (rules.get(lenient.extraction.rule) ?? 0) + 1);
        if (strict.status !== lenient.status || strict.predicted !== lenient.predicted) {
          const move = `${strict.status} → ${lenient.status}`;
          moves.set(move, (moves.get(move) ?? 0) + 1);
          if (examples.length < Number(opts.show)) {
            const text = (prediction?.response?.text ?? '').replace(/\s+/g, ' ');
            examples.push([question.id, strict.predicted ?? '—', lenient.predicted ?? '—', question.answer, lenient.extraction?.rule ?? '', text.length > 70 ? `${text.slice(0, 67)}…` : text]);
          }
        }
      }
      const acc = (m: Map<OutcomeStatus, number>) => (n === 0 ? 0 : (m.get('correct') ?? 0) / n);
      const statuses: OutcomeStatus[] = ['correct', 'wrong', 'unparseable', 'error'];
      const out: string[] = [];
      out.push(renderTable({
        title: `Extraction audit of ${dir} (${n} answered items)`,
        headers: ['ladder', 'accuracy', ...statuses],
        rows: (['strict', 'lenient'] as const).map((k) => [k, `${(100 * acc(counts[k])).toFixed(2)}%`, ...statuses.map((s) => String(counts[k].get(s) ?? 0))]),
        numeric: [false, true, true, true, true, true],
      }, 'table'));
      const changed = [...moves.values()].reduce((a, b) => a + b, 0);
      out.push(`lenient − strict: ${(100 * (acc(counts.lenient) - acc(counts.strict))).toFixed(2)} accuracy points; ${changed} item(s) change outcome or letter`);
      if (moves.size > 0) out.push(renderTable({ headers: ['strict → lenient', 'items'], rows: [...moves.entries()].sort((a, b) => b[1] - a[1]).map(([m, c]) => [m, String(c)]), numeric: [false, true] }, 'table'));
      out.push(renderTable({ title: 'Lenient rule that decided each item', headers: ['rule', 'items'], rows: [...rules.entries()].sort((a, b) => b[1] - a[1]).map(([r, c]) => [r, String(c)]), numeric: [false, true] }, 'table'));
      if (examples.length > 0) out.push(renderTable({ title: 'Items that change', headers: ['id', 'strict', 'lenient', 'gold', 'rule', 'output'], rows: examples }, 'table'));
      process.stdout.write(out.join('\n'));
    });
}
