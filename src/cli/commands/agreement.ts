import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { CxrError } from '../../core/errors.js';
import { detectLayout } from '../../dataset/layout.js';
import { readQuestions } from '../../dataset/read-dataset.js';
import { extractAnswer } from '../../extract/extract.js';
import { renderTable } from '../../report/text-table.js';
import { outcomeOf } from '../../runner/outcomes.js';
import { agreementOn, type RaterAnswers, type UnansweredPolicy } from '../../score/agreement-matrix.js';
import { wilson } from '../../score/intervals.js';
import { parseFormat } from '../output-format.js';
import { openSavedRun } from '../run-folder.js';

interface Gold {
  answer: Map<string, string>;
  task: Map<string, string>;
}

async function raterFromRun(dir: string, gold: Gold): Promise<RaterAnswers> {
  const run = openSavedRun(dir);
  const answers = new Map<string, string | null>();
  for await (const q of run.questions()) {
    const o = outcomeOf(q, run.journal.latest.get(q.id), run.manifest.extractor.strict);
    if (!o) continue;
    answers.set(q.id, o.predicted);
    if (!gold.answer.has(q.id)) gold.answer.set(q.id, q.answer);
    if (!gold.task.has(q.id)) gold.task.set(q.id, q.task);
  }
  return { name: `${run.manifest.adapter.baseline ? '[baseline] ' : ''}${run.manifest.adapter.name}`, answers };
}

function raterFromFile(file: string): RaterAnswers {
  const answers = new Map<string, string | null>();
  readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let record: { id?: unknown; answer?: unknown };
    try {
      record = JSON.parse(line) as typeof record;
    } catch {
      throw new CxrError('unreadable-file', `${file}: line ${i + 1} is not JSON; expected {"id": …, "answer": "B"}`);
    }
    if (typeof record.id !== 'string' && typeof record.id !== 'number') throw new CxrError('unreadable-file', `${file}: line ${i + 1} has no "id"`);
    const id = String(record.id);
    if (answers.has(id)) throw new CxrError('unreadable-file', `${file}: line ${i + 1} repeats id "${id}"`);
    const raw = record.answer;
    answers.set(id, raw === null || raw === undefined || raw === '' ? null : extractAnswer(String(raw)).letter);
  });
  return { name: file.split('/').pop()!.replace(/\.jsonl$/, ''), answers };
}

async function goldFromDataset(path: string, split: string | undefined, gold: Gold): Promise<void> {
  const layout = detectLayout(path);
  for await (const q of readQuestions(layout, split ? [split] : undefined)) {
    gold.answer.set(q.id, q.answer);
    gold.task.set(q.id, q.task);
  }
}

const k = (x: number) => (Number.isNaN(x) ? '—' : x.toFixed(3));

/** `cxrbench agreement <raters...>`: Cohen's kappa matrix overall and per task, Fleiss' kappa, accuracy against the gold. */
export function registerAgreement(program: Command): void {
  program
    .command('agreement')
    .description("agreement between raters (runs or answer files {id, answer}): pairwise Cohen's kappa overall and per task, Fleiss' kappa, accuracy vs gold")
    .argument('<raters...>', 'run folders and/or JSONL answer files')
    .option('--gold <dataset>', 'dataset holding the gold answers and tasks (default: from the run folders)')
    .option('--split <name>', 'split of --gold')
    .option('--unanswered <policy>', 'category (an unanswered item is its own label) | drop (items someone left unanswered are dropped)', 'category')
    .option('--format <format>', 'table | json', 'table')
    .action(async (paths: string[], opts: { gold?: string; split?: string; unanswered: string; format: string }) => {
      const format = parseFormat(opts.format, ['table', 'json'] as const);
      const policy = parseFormat(opts.unanswered, ['category', 'drop'] as const, '--unanswered') as UnansweredPolicy;
      if (paths.length < 2) throw new CxrError('bad-option', 'agreement needs at least two raters');
      const gold: Gold = { answer: new Map(), task: new Map() };
      if (opts.gold) await goldFromDataset(opts.gold, opts.split, gold);
      const raters: RaterAnswers[] = [];
      for (const p of paths) {
        if (!existsSync(p)) throw new CxrError('path-not-found', `${p}: no such run folder or answer file`);
        raters.push(statSync(p).isDirectory() && existsSync(join(p, 'manifest.json')) ? await raterFromRun(p, gold) : raterFromFile(p));
      }
      if (gold.answer.size === 0) throw new CxrError('bad-option', 'no gold answers: give at least one run folder, or --gold <dataset>');
      for (const [i, r] of raters.entries()) {
        const unknown = [...r.answers.keys()].filter((id) => !gold.answer.has(id));
        if (unknown.length > 0) throw new CxrError('unreadable-file', `${paths[i]}: ${unknown.length} id(s) not in the gold set, e.g. ${unknown.slice(0, 5).join(', ')}`);
      }
      const shared = [...gold.answer.keys()].filter((id) => raters.every((r) => r.answers.has(id)));
      const missing = raters.map((r, i) => ({ rater: paths[i]!, missing: [...gold.answer.keys()].filter((id) => !r.answers.has(id)).length }));
      if (shared.length === 0) throw new CxrError('bad-option', `the raters share no item (${missing.map((m) => `${m.rater} lacks ${m.missing}`).join(', ')})`);
      const overall = agreementOn(raters, shared, policy);
      const tasks = [...new Set(shared.map((id) => gold.task.get(id) ?? '(unknown)'))].sort();
      const byTask = Object.fromEntries(tasks.map((t) => [t, agreementOn(raters, shared.filter((id) => (gold.task.get(id) ?? '(unknown)') === t), policy)]));
      const accuracy = raters.map((r) => {
        const correct = shared.filter((id) => r.answers.get(id) === gold.answer.get(id)).length;
        return { rater: r.name, correct, n: shared.length, accuracy: wilson(correct, shared.length), unanswered: shared.filter((id) => r.answers.get(id) == null).length };
      });
      const names = raters.map((r) => r.name);
      if (format === 'json') {
        process.stdout.write(JSON.stringify({ raters: names, sharedItems: shared.length, missing, unanswered: policy, overall, byTask, accuracy }, null, 2) + '\n');
        return;
      }
      const matrix = (title: string, t: { n: number; cohen: number[][]; fleiss: number }) =>
        renderTable({ title: `${title} (n = ${t.n}; Fleiss' kappa ${k(t.fleiss)})`, headers: ['', ...names.map((_, i) => `R${i + 1}`)], rows: t.cohen.map((row, i) => [`R${i + 1} ${names[i]}`, ...row.map(k)]), numeric: [false, ...names.map(() => true)] }, 'table');
      const out = [
        `${shared.length} shared items; unanswered items ${policy === 'category' ? 'count as their own label' : 'are dropped'}${missing.some((m) => m.missing > 0) ? `; not answered by every rater: ${missing.filter((m) => m.missing > 0).map((m) => `${m.rater} lacks ${m.missing}`).join(', ')}` : ''}`,
        matrix("\nCohen's kappa, all questions", overall),
        ...tasks.map((t) => matrix(`\nCohen's kappa, ${t}`, byTask[t]!)),
        renderTable({ title: '\nAccuracy against the gold', headers: ['rater', 'n', 'accuracy %', 'Wilson 95%', 'unanswered'], rows: accuracy.map((a) => [a.rater, String(a.n), (100 * a.accuracy.value).toFixed(1), `${(100 * a.accuracy.lo).toFixed(1)}–${(100 * a.accuracy.hi).toFixed(1)}`, String(a.unanswered)]), numeric: [false, true, true, true, true] }, 'table'),
      ];
      process.stdout.write(out.join('\n'));
    });
}
