import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { corpusFromQuestions } from '../../corpus/from-questions.js';
import { generateQuestionSet } from '../../generate/pipeline.js';
import { DEFAULT_MAX_BLIND_ACCURACY } from './generate.js';
import { readQuestions } from '../../dataset/read-dataset.js';
import { loadBenchmarkFromDataset } from '../../board/load-benchmark.js';
import { scoreHere, submitPredictions } from '../../board/submit.js';
import { DEFAULT_BOARD_PORT, localBoardUrl } from '../../board/board-address.js';
import { openBoardStore } from './board.js';
import { seedDemoPeople } from './demo-board-people.js';
import { demoFromDicom } from './demo-dicom.js';
import { join } from 'node:path';
import { CxrError, EXIT } from '../../core/errors.js';
import { isValid } from '../../core/validation-report.js';
import { detectLayout, type DatasetLayout } from '../../dataset/layout.js';
import { computeStats } from '../../dataset/stats.js';
import { validateDataset } from '../../dataset/validate.js';
import { runSummaryTable } from '../../report/run-summary-table.js';
import { formatStats } from '../../report/stats-report.js';
import { validationReportText } from '../../report/validation-report-text.js';
import { evaluate, evaluateSettings } from '../evaluate.js';
import { writeHtmlReport } from './report.js';
import { TASK_NAMES } from '../../core/question.js';
import { renderTable } from '../../report/text-table.js';
import type { RunSummary } from '../../score/summary.js';

const SHORT_TASK = ['Presence', 'Negation', 'Differential', 'Location', 'Geometric'];

/** One row per model: ReXrank overall, micro, the five tasks — the layout of the paper's Table 2. */
function table2Summary(rows: { model: string; summary: RunSummary }[]): string {
  const pct = (x: number | null | undefined) => (x === null || x === undefined ? '—' : (100 * x).toFixed(1));
  return renderTable({
    headers: ['model', 'overall', 'micro', ...SHORT_TASK],
    rows: rows.map(({ model, summary }) => [model, pct(summary.rexrankOverall), pct(summary.overall.accuracy), ...TASK_NAMES.map((t) => pct(summary.byTask[t]?.accuracy))]),
    numeric: [false, true, true, true, true, true, true, true],
  }, 'table');
}

/** A local board with the demo's test split as a hidden benchmark and the baseline runs scored onto it. */
async function seedBoard(dir: string, data: string, split: string, runDirs: string[], reviewSample: string | null, port: number): Promise<void> {
  const baseUrl = localBoardUrl(port);
  rmSync(join(dir, 'board.sqlite'), { force: true });
  rmSync(join(dir, 'board.sqlite-wal'), { force: true });
  rmSync(join(dir, 'board.sqlite-shm'), { force: true });
  const store = await openBoardStore(dir, true);
  try {
    const benchmark = await loadBenchmarkFromDataset(store, 'demo', data, split, { slug: 'demo', title: 'cxrbench demo (hidden test split)', version: '1', dailyLimit: 5, totalLimit: 50, open: true });
    for (const runDir of runDirs) {
      const name = runDir.split(/[\\/]/).pop()!; // the board's badge says "baseline"; the name need not
      const file = join(runDir, 'rexrank-predictions.json');
      const result = await submitPredictions(store, scoreHere(store), benchmark, { fileName: file, content: readFileSync(file, 'utf8'), model: { name, openWeights: false, notes: 'a baseline of cxrbench, not a model: it answers without seeing the image (text-only) or from the study report (report-oracle)' }, teamId: null, userId: null, kind: 'baseline' });
      if (!result.ok) throw new Error(`seeding ${name}: ${'problems' in result ? result.problems.map((p) => p.message).join('; ') : result.message}`);
    }
    const people = await seedDemoPeople(store, benchmark, data, split, baseUrl, reviewSample);
    process.stdout.write(`\nBoard seeded in ${dir}: ${benchmark.item_count} hidden questions, ${runDirs.length} baseline entries.\nServe it: ./run cxrbench serve --data-dir ${dir}${port === DEFAULT_BOARD_PORT ? '' : ` --port ${port}`}   (then open ${baseUrl}/b/demo)\n`);
    process.stdout.write(`Reader study "${people.cases} cases" is open; reading links (each is a reader, shown only now):\n${people.links.map((l) => `  ${l}\n`).join('')}`);
    if (people.review) process.stdout.write(`Review queue of ${people.review.items} generated question(s): ${baseUrl}/reviews/${people.review.queueId} (the host and the second reviewer each review every one; where they disagree, the second administrator adjudicates)\n`);
    process.stdout.write(`Host (administrator) account: ${people.host.email}, password ${people.host.password} — sign in, then Studies → results (local demo only; make real accounts with \`cxrbench board user\`).\n`);
    if (people.review) {
      process.stdout.write(`Second reviewer account: ${people.review.reviewer.email}, password ${people.review.reviewer.password} — reviews the same questions as the host (sign in from a private window).\n`);
      process.stdout.write(`Second administrator account: ${people.review.adjudicator.email}, password ${people.review.adjudicator.password} — reviews nothing, so it can adjudicate the questions the host and the second reviewer disagree on (docs/review.md).\n`);
    }
  } finally {
    await store.close();
  }
}

/**
 * The demo's studies (their notes as reports) through the question-generation pipeline, offline: a small
 * question set in the official layout with its dataset card, of which the demo prints the headline.
 */
async function demoQuestionGeneration(layout: DatasetLayout, out: string): Promise<void> {
  const fileOf = new Map(layout.files.map((f) => [f.split, f.path]));
  const reports = await corpusFromQuestions(readQuestions(layout), (q) => fileOf.get(q.split) ?? layout.root);
  mkdirSync(out, { recursive: true });
  const corpus = join(out, 'corpus.jsonl');
  writeFileSync(corpus, reports.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const card = await generateQuestionSet({ corpus, out, seed: 0, similarity: 0.9, reviewRate: 0.1, splits: { train: 0.8, valid: 0.1, test: 0.1 }, maxBlindAccuracy: DEFAULT_MAX_BLIND_ACCURACY });
  const json = card.json as { reports: { imported: number; withQuestions: number }; questions: { generated: number; kept: number } };
  process.stdout.write(`\n== Question generation (offline templates, from the demo's ${json.reports.imported} notes) ==\n`);
  process.stdout.write(`${json.questions.generated} question(s) generated, ${json.questions.kept} kept after the checks, from ${json.reports.withQuestions} report(s); dataset card: ${join(out, 'dataset-card.md')}\n`);
  process.stdout.write(`Make your own from a report corpus: ./run cxrbench corpus import <reports.csv> --format csv --out corpus.jsonl && ./run cxrbench generate corpus.jsonl --out my-set\n`);
}

/** The baselines the demo evaluates: no model, no network, no GPU. */
const DEMO_MODELS = ['baseline:text-only', 'baseline:report-oracle'];

/** The file that marks a folder as the demo's own output: only such a folder (or an empty one) is emptied. */
const DEMO_MARK = '.cxrbench-demo';
/** What the demo writes in its folder: the baselines' runs, the generated set, the DICOM study, the report. */
const DEMO_ENTRIES = new Set(['text-only', 'report-oracle', 'generated', 'generated.id-key', 'from-dicom', 'from-dicom.deid-key', 'report.html']);

/**
 * Empties the demo's output folder — only when it is missing, empty, or marked as an earlier demo's output: a
 * mistyped `--out ~/data` must never delete someone's files.
 */
function takeOutputFolder(out: string): void {
  if (existsSync(out)) {
    if (!statSync(out).isDirectory()) throw new CxrError('bad-option', `--out ${out} is a file, not a folder: give a folder for the demo's runs`);
    const entries = readdirSync(out);
    // Marked, or holding only what the demo writes (an earlier version's demo left no mark).
    const demoOwn = entries.includes(DEMO_MARK) || entries.every((e) => DEMO_ENTRIES.has(e));
    if (!demoOwn) throw new CxrError('bad-option', `--out ${out} holds files the demo did not make (${entries.slice(0, 3).join(', ')}${entries.length > 3 ? ', …' : ''}); the demo empties its folder first, so give a new or empty folder`);
    rmSync(out, { recursive: true, force: true });
  }
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, DEMO_MARK), 'This folder is the output of `cxrbench demo`, which empties it when it runs again.\n');
}

/**
 * `cxrbench demo` (its work; the command and its options are in demo.ts): the main job on the bundled demo — validate (images included), describe, then evaluate the
 * text-only and report-oracle baselines on the test split through the same runner, extraction and scoring a
 * real model goes through, and print accuracy per task; then question generation from the notes and a study
 * converted from DICOM.
 */
export async function runDemo(opts: { data: string; out: string; board?: string; port: number }): Promise<void> {
  const layout = detectLayout(opts.data);
  process.stdout.write(`cxrbench demo — dataset ${opts.data}\n\n== Validation ==\n`);
  const report = await validateDataset(layout, { images: 'default' });
  process.stdout.write(validationReportText(report));
  process.stdout.write('\n== Statistics ==\n');
  process.stdout.write(formatStats(await computeStats(layout), 'table'));
  if (!isValid(report)) {
    process.exitCode = EXIT.findings;
    return;
  }
  takeOutputFolder(opts.out);
  const split = layout.files.some((f) => f.split === 'test') ? 'test' : layout.files.at(-1)!.split;
  const table2: { model: string; summary: RunSummary }[] = [];
  const runDirs: string[] = [];
  for (const model of DEMO_MODELS) {
    const name = model.split(':')[1]!;
    const { summary, manifest, outDir } = await evaluate(evaluateSettings({ data: opts.data, split, model, out: join(opts.out, name) }));
    process.stdout.write(`\n== Evaluation: ${name} (a baseline, not a model) ==\n`);
    process.stdout.write(runSummaryTable(summary, `[baseline] ${manifest.adapter.name} on ${manifest.dataset.name}/${split}`));
    process.stdout.write(`run folder: ${outDir}\n`);
    table2.push({ model: `[baseline] ${manifest.adapter.name}`, summary });
    runDirs.push(outDir);
  }
  process.stdout.write(
    '\nTo evaluate a real model, serve it behind an OpenAI-compatible endpoint (vLLM, SGLang, Ollama, …) and run e.g.\n' +
      '  ./run cxrbench eval --data examples/demo --split test --model preset:medgemma-4b-it --endpoint http://127.0.0.1:8000/v1\n',
  );
  process.stdout.write(`\n== Summary (paper Table 2 layout, accuracy %) ==\n${table2Summary(table2)}`);
  await demoQuestionGeneration(layout, join(opts.out, 'generated'));
  await demoFromDicom(join(opts.out, 'from-dicom'));
  const htmlReport = await writeHtmlReport(runDirs, join(opts.out, "report.html"));
  process.stdout.write(`\nHTML report: ${htmlReport}\n`);
  if (opts.board) await seedBoard(opts.board, opts.data, split, runDirs, join(opts.out, 'generated', 'review-sample.jsonl'), opts.port);
}
