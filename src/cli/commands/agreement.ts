import { existsSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Command } from 'commander';
import { answerFormatOfFileName, parseAnswerFile, type AnswerRecord } from '../../core/answer-file.js';
import { CxrError } from '../../core/errors.js';
import { inPaperOrder } from '../../core/question.js';
import { detectLayout } from '../../dataset/layout.js';
import { readQuestions } from '../../dataset/read-dataset.js';
import { extractAnswer } from '../../extract/extract.js';
import { renderTable } from '../../report/text-table.js';
import { agreementOn, describePolicy, UNANSWERED_POLICIES, UNDEFINED_KAPPA_NOTE, type AgreementTable, type RaterAnswers } from '../../score/agreement-matrix.js';
import { wilson } from '../../score/intervals.js';
import { parseFormat } from '../output-format.js';
import { openSavedRun } from '../run-folder.js';
import { savedRunOutcomes } from '../saved-run-outcomes.js';
import { readTextFile } from '../read-text-file.js';

/** The gold answer and task of each item: from a dataset, an answer key, or the run folders. */
interface Gold {
  answer: Map<string, string>;
  task: Map<string, string>;
}

async function raterFromRun(dir: string, gold: Gold, goldGiven: boolean): Promise<RaterAnswers> {
  const run = openSavedRun(dir);
  const answers = new Map<string, string | null>();
  for (const { question: q, outcome: o } of (await savedRunOutcomes(run)).items) {
    answers.set(q.id, o.predicted);
    // A given gold key decides the items and answers; a run only fills in tasks the key does not state.
    if (!goldGiven && !gold.answer.has(q.id)) gold.answer.set(q.id, q.answer);
    if (gold.answer.has(q.id) && !gold.task.has(q.id)) gold.task.set(q.id, q.task);
  }
  return { name: `${run.manifest.adapter.baseline ? '[baseline] ' : ''}${run.manifest.adapter.name}`, answers };
}

function readAnswerRecords(file: string): AnswerRecord[] {
  const { records, problems } = parseAnswerFile(readTextFile(file, 'answer file'), answerFormatOfFileName(file));
  if (problems.length > 0) throw new CxrError('unreadable-file', `${file}: ${problems.length} problem(s):\n  ${problems.slice(0, 10).join('\n  ')}`);
  return records;
}

/** A reader's answer file: each answer read as a model's output would be ("B", "b", "(B)", "B. text"). */
function raterFromFile(file: string): RaterAnswers {
  const answers = new Map<string, string | null>();
  for (const r of readAnswerRecords(file)) answers.set(r.id, r.answer === null ? null : extractAnswer(r.answer).letter);
  return { name: basename(file).replace(/\.(jsonl|json|csv)$/i, ''), answers };
}

/** A gold key must give one letter per item: anything else is named, not read as unanswered. */
function goldFromAnswerFile(file: string, gold: Gold): void {
  const bad: string[] = [];
  for (const r of readAnswerRecords(file)) {
    const letter = /^[(\[]?([A-Da-d])[)\].:]?$/.exec((r.answer ?? '').trim())?.[1];
    if (!letter) {
      bad.push(`${r.where}: field "answer" of "${r.id}" must be one letter A–D, found ${JSON.stringify(r.answer)}`);
      continue;
    }
    gold.answer.set(r.id, letter.toUpperCase());
    if (r.task) gold.task.set(r.id, r.task);
  }
  if (bad.length > 0) throw new CxrError('unreadable-file', `${file}: ${bad.length} gold answer(s) unusable:\n  ${bad.slice(0, 10).join('\n  ')}`);
}

/** True when `path` is an answer key ({id, answer, task?} lines, a JSON array or a CSV), not a dataset. */
function isAnswerKey(path: string): boolean {
  if (statSync(path).isDirectory()) return false;
  const lower = path.toLowerCase();
  if (lower.endsWith('.csv')) return true;
  const head = readTextFile(path, '--gold').slice(0, 65_536).replace(/^\uFEFF/, '').trimStart();
  if (lower.endsWith('.json')) return head.startsWith('[');
  const firstLine = head.split('\n', 1)[0] ?? '';
  try {
    const record = JSON.parse(firstLine) as Record<string, unknown>;
    return 'answer' in record && !('options' in record) && !('question' in record);
  } catch {
    return false;
  }
}

async function goldFromDataset(path: string, split: string | undefined, gold: Gold): Promise<void> {
  const layout = detectLayout(path);
  for await (const q of readQuestions(layout, split ? [split] : undefined)) {
    gold.answer.set(q.id, q.answer);
    gold.task.set(q.id, q.task);
  }
}

const k = (x: number | null) => (x === null ? '—' : x.toFixed(3));

function matrix(title: string, names: string[], t: AgreementTable): string {
  const pairwise = t.policy === 'pairwise';
  const heading = pairwise
    ? `${title} (${t.items} items; cells: kappa (n items both answered); Fleiss' kappa ${k(t.fleiss)} on ${t.fleissN} items every rater answered)`
    : `${title} (n = ${t.cohen.length > 0 ? t.pairN[0]![0] : 0}; Fleiss' kappa ${k(t.fleiss)})`;
  return renderTable({
    title: heading,
    headers: ['', ...names.map((_, i) => `R${i + 1}`)],
    rows: t.cohen.map((row, i) => [`R${i + 1} ${names[i]}`, ...row.map((x, j) => (pairwise ? `${k(x)} (${t.pairN[i]![j]})` : k(x)))]),
    numeric: [false, ...names.map(() => true)],
  }, 'table');
}

/** `cxrbench agreement <raters...>`: Cohen's kappa matrix overall and per task, Fleiss' kappa, accuracy against the gold. */
export function registerAgreement(program: Command): void {
  program
    .command('agreement')
    .description("agreement between raters (runs or answer files {id, answer}): pairwise Cohen's kappa overall and per task, Fleiss' kappa, accuracy vs gold")
    .argument('<raters...>', 'run folders and/or answer files (JSONL {id, answer} lines, a JSON array, or CSV id,answer)')
    .option('--gold <path>', 'the gold answers: a dataset, or an answer key {id, answer, task?} (JSONL, JSON array or CSV) (default: from the run folders)')
    .option('--split <name>', 'split of a --gold dataset')
    .option('--unanswered <policy>', 'pairwise (each kappa on the items both raters answered) | category (unanswered is a label of its own) | drop (only items every rater answered)', 'pairwise')
    .option('--format <format>', 'table | json', 'table')
    .action(async (paths: string[], opts: { gold?: string; split?: string; unanswered: string; format: string }) => {
      const format = parseFormat(opts.format, ['table', 'json'] as const);
      const policy = parseFormat(opts.unanswered, UNANSWERED_POLICIES, '--unanswered');
      if (paths.length < 2) throw new CxrError('bad-option', 'agreement needs at least two raters');
      const gold: Gold = { answer: new Map(), task: new Map() };
      if (opts.gold) {
        if (!existsSync(opts.gold)) throw new CxrError('path-not-found', `--gold ${opts.gold}: no such dataset or answer key`);
        if (isAnswerKey(opts.gold)) goldFromAnswerFile(opts.gold, gold);
        else await goldFromDataset(opts.gold, opts.split, gold);
      }
      const raters: RaterAnswers[] = [];
      for (const p of paths) {
        if (!existsSync(p)) throw new CxrError('path-not-found', `${p}: no such run folder or answer file`);
        raters.push(statSync(p).isDirectory() && existsSync(join(p, 'manifest.json')) ? await raterFromRun(p, gold, opts.gold !== undefined) : raterFromFile(p));
      }
      if (gold.answer.size === 0) throw new CxrError('bad-option', 'no gold answers: give at least one run folder, or --gold <dataset or answer key>');
      for (const [i, r] of raters.entries()) {
        const unknown = [...r.answers.keys()].filter((id) => !gold.answer.has(id));
        if (unknown.length > 0) throw new CxrError('unreadable-file', `${paths[i]}: ${unknown.length} id(s) not in the gold set, e.g. ${unknown.slice(0, 5).join(', ')}`);
      }
      // Every gold item is in scope: an item a rater skipped is unanswered, never silently dropped.
      const items = [...gold.answer.keys()];
      const taskOf = (id: string) => gold.task.get(id) ?? '(unknown)';
      const overall = agreementOn(raters, items, policy);
      const tasks = inPaperOrder(items.map(taskOf));
      const byTask = Object.fromEntries(tasks.map((t) => [t, agreementOn(raters, items.filter((id) => taskOf(id) === t), policy)]));
      const accuracy = raters.map((r, i) => {
        const answered = items.filter((id) => (r.answers.get(id) ?? null) !== null).length;
        const correct = items.filter((id) => r.answers.get(id) === gold.answer.get(id)).length;
        return { rater: r.name, file: paths[i]!, n: items.length, correct, answered, unanswered: items.length - answered, accuracy: wilson(correct, items.length) };
      });
      const answeredByNobody = items.filter((id) => raters.every((r) => (r.answers.get(id) ?? null) === null)).length;
      const names = raters.map((r) => r.name);
      const convention = `${describePolicy(policy)}; accuracy counts an unanswered item as wrong, over all ${items.length} gold items`;
      if (format === 'json') {
        process.stdout.write(JSON.stringify({ raters: names, goldItems: items.length, answeredByNobody, unanswered: policy, convention, overall, byTask, accuracy }, null, 2) + '\n');
        return;
      }
      const out = [
        `${items.length} gold items; ${convention}; ${UNDEFINED_KAPPA_NOTE}.`,
        ...(answeredByNobody > 0 ? [`${answeredByNobody} gold item(s) were answered by no rater: they count as wrong for everyone (give the study's key as --gold to score only its items).`] : []),
        matrix("\nCohen's kappa, all questions", names, overall),
        ...tasks.map((t) => matrix(`\nCohen's kappa, ${t}`, names, byTask[t]!)),
        renderTable({
          title: '\nAccuracy against the gold (unanswered counts as wrong)',
          headers: ['rater', 'n', 'answered', 'accuracy %', 'Wilson 95%'],
          rows: accuracy.map((a) => [a.rater, String(a.n), String(a.answered), (100 * a.accuracy.value).toFixed(1), `${(100 * a.accuracy.lo).toFixed(1)}–${(100 * a.accuracy.hi).toFixed(1)}`]),
          numeric: [false, true, true, true, true],
        }, 'table'),
      ];
      process.stdout.write(out.join('\n'));
    });
}
