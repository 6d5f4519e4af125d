import { basename, dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { resolveImagePath } from '../../dataset/image-path.js';
import { inPaperOrder } from '../../core/question.js';
import { accuracyBarSpec, kappaHeatmapSpec, overallBarSpec, renderSvg } from '../../report/charts.js';
import { renderHtmlReport, type ReportAnswer, type ReportComparison, type ReportItem } from '../../report/html.js';
import { compareRuns } from '../../score/paired.js';
import { selectImages } from '../../prompt/build-prompt.js';
import type { Estimate } from '../../score/intervals.js';
import { cellInterval, overallInterval } from '../../score/results.js';
import { agreementOn, describePolicy, FEW_KAPPA_ITEMS, UNDEFINED_KAPPA_NOTE } from '../../score/agreement-matrix.js';
import { openSavedRun, type SavedRun } from '../run-folder.js';
import { openAnswers, openScoresOf } from '../open-scores.js';
import { modeComparisonTable } from '../../report/open-ended-table.js';
import type { Table } from '../../report/text-table.js';
import { summarizeOutcomes } from '../../score/summary.js';
import { scoreRun, type ScoredRun } from '../score-run.js';
import { writeTextAtomically } from '../write-output.js';

async function imageDataUrl(path: string, side: number, cache: Map<string, string>): Promise<string> {
  const key = `${side}|${path}`;
  let url = cache.get(key);
  if (url === undefined) {
    try {
      const { default: sharp } = await import('sharp'); // loaded on use: every other command starts lighter without it
      const jpeg = await sharp(path).resize({ width: side, height: side, fit: 'inside', withoutEnlargement: true }).jpeg({ quality: 80 }).toBuffer();
      url = `data:image/jpeg;base64,${jpeg.toString('base64')}`;
    } catch {
      url = 'data:image/svg+xml;base64,' + Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${side}" height="${side}"><text x="4" y="20">image missing</text></svg>`).toString('base64');
    }
    cache.set(key, url);
  }
  return url;
}

const shown = (e: Estimate) => ({ accuracy: e.value, lo: e.lo, hi: e.hi });

/** Ranking with tiers and every pair's paired difference, on the questions all runs answered (as `cxrbench compare`). */
function pairedComparison(scored: ScoredRun[], label: (i: number) => string): ReportComparison {
  const runs = scored.map((s, i) => ({ name: label(i), outcomes: new Map(s.items.map((it) => [it.question.id, it.outcome])) }));
  const shared = [...runs[0]!.outcomes.keys()].filter((id) => runs.every((r) => r.outcomes.has(id)));
  const { pairs, ranking } = compareRuns(runs, shared, 1000, 0);
  return { sharedItems: shared.length, ranking, pairs: pairs.map((p) => ({ a: p.a, b: p.b, ...p.overall })) };
}

/**
 * For each open-ended run given with a multiple-choice run of the same model (the first such), the two side by side
 * per task; the open run's judged accuracy only when a judge read its answers.
 */
function modeComparisons(runs: readonly SavedRun[], scored: readonly ScoredRun[]): Table[] {
  const counts = (i: number) => summarizeOutcomes(scored[i]!.items.map((it) => it.outcome), scored[i]!.items.length);
  const tables: Table[] = [];
  runs.forEach((run, i) => {
    if (run.manifest.mode !== 'open') return;
    const mc = runs.findIndex((r) => r.manifest.mode !== 'open' && r.manifest.adapter.name === run.manifest.adapter.name);
    if (mc === -1) return;
    const mcCounts = counts(mc);
    const openCounts = counts(i);
    tables.push(modeComparisonTable({
      model: run.manifest.adapter.name,
      multipleChoice: mcCounts,
      open: { scores: openScoresOf(openAnswers(scored[i]!.items)), judged: run.manifest.extractor.judge ? openCounts : null },
    }));
  });
  return tables;
}

/**
 * Writes the self-contained HTML report of a run (and, with more runs, their comparison chart and kappa heatmap);
 * returns its path. Shared by `cxrbench report` and the demo.
 */
export async function writeHtmlReport(dirs: string[], out: string | undefined): Promise<string> {
  const runs = dirs.map(openSavedRun);
  const scored: ScoredRun[] = [];
  for (const run of runs) scored.push(await scoreRun(run));
  const name = (i: number) => `${runs[i]!.manifest.adapter.baseline ? '[baseline] ' : ''}${runs[i]!.manifest.adapter.name}${runs[i]!.manifest.mode === 'open' ? ' [open-ended]' : ''}`;
  // Two runs of one model (another prompt, another seed) are told apart by their folders.
  const label = (i: number) => (runs.some((_, j) => j !== i && name(j) === name(i)) ? `${name(i)} (${basename(resolve(dirs[i]!))})` : name(i));
  const subject = runs[0]!;
  // The whiskers are the summary table's intervals (cellInterval: the study bootstrap, or Wilson's where it has no spread).
  const bars = scored.flatMap((s, i) => Object.entries(s.results.byTask).map(([task, c]) => ({ run: label(i), group: task, ...shown(cellInterval(c)) })));
  const taskOrder = inPaperOrder(bars.map((b) => b.group));
  const overall = scored.map((s, i) => ({ run: label(i), ...shown(overallInterval(s.results.rexrankOverall, s.results.byTask)) }));
  let kappaSvg: string | null = null;
  let kappaNote = 'Give more runs (models, baselines, readers) to see their pairwise agreement.';
  if (runs.length >= 2) {
    const raters = scored.map((s, i) => ({ name: label(i), answers: new Map(s.items.map((it) => [it.question.id, it.outcome.predicted])) }));
    const items = [...new Set(raters.flatMap((r) => [...r.answers.keys()]))];
    const table = agreementOn(raters, items, 'pairwise');
    kappaSvg = await renderSvg(kappaHeatmapSpec(raters.map((r) => r.name), table.cohen, table.pairN));
    const ns = table.pairN.flatMap((row, i) => row.filter((_, j) => j > i));
    kappaNote = `Cohen's κ on ${items.length} questions, ${describePolicy('pairwise')} (n per pair ${Math.min(...ns)}–${Math.max(...ns)}); cells on fewer than ${FEW_KAPPA_ITEMS} questions are grey, and ${UNDEFINED_KAPPA_NOTE}. Fleiss' κ ${table.fleiss === null ? '— (undefined)' : table.fleiss.toFixed(3)} on ${table.fleissN} questions.`;
  }
  const cache = new Map<string, string>();
  const baseDir = dirname(subject.manifest.dataset.path);
  // Every run's answer per question, by id; the item browser follows the first run's questions.
  const byId = scored.map((s) => new Map(s.items.map((it) => [it.question.id, it])));
  const answerOf = (it: ScoredRun['items'][number] | undefined): ReportAnswer => it
    ? { status: it.outcome.status, predicted: it.outcome.predicted, rule: it.outcome.extraction?.rule ?? null, output: it.prediction?.response?.text ?? (it.prediction?.error ? `error: ${it.prediction.error.kind}: ${it.prediction.error.message}` : ''), ...(it.prediction?.response?.reasoning ? { reasoning: it.prediction.response.reasoning } : {}) }
    : { status: 'error', predicted: null, rule: null, output: '(this run has no answer to this question)' };
  const items: ReportItem[] = [];
  for (const { question } of scored[0]!.items) {
    const images = [];
    for (const image of selectImages(question.images, { maxImages: subject.manifest.images.maxImages })) {
      const path = resolveImagePath(image.path, baseDir, 'default');
      images.push({ thumb: await imageDataUrl(path, 128, cache), full: await imageDataUrl(path, 768, cache), view: image.view });
    }
    items.push({
      id: question.id, task: question.task, category: question.category ?? '(none)', question: question.text, options: [...question.options],
      gold: question.answer, answers: byId.map((m) => answerOf(m.get(question.id))), explanation: question.explanation, images,
    });
  }
  const m = subject.manifest;
  const html = renderHtmlReport({
    title: runs.length > 1 ? `${runs.length} runs compared on ${m.dataset.name}/${m.dataset.split}` : `${label(0)} on ${m.dataset.name}/${m.dataset.split}`,
    runs: scored.map((s, i) => ({ label: label(i), results: s.results })),
    taskOrder,
    manifestSummary: `dataset sha256 ${m.dataset.sha256.slice(0, 12)}… · prompt ${m.prompt.name} v${m.prompt.version} · extractor ${m.extractor.name} ${m.extractor.version}${m.extractor.strict ? ' (strict)' : ''} · cxrbench ${m.toolVersion}`,
    accuracyChartSvg: (await renderSvg(accuracyBarSpec(bars, taskOrder))) + (await renderSvg(overallBarSpec(overall))),
    kappaHeatmapSvg: kappaSvg,
    kappaNote,
    comparison: runs.length > 1 ? pairedComparison(scored, label) : null,
    modeComparisons: modeComparisons(runs, scored),
    items,
  });
  const file = resolve(out ?? join(dirs[0]!, 'report.html'));
  await writeTextAtomically(file, html);
  return file;
}

/** `cxrbench report <run> [<run>...]`: the self-contained HTML report. */
export function registerReport(program: Command): void {
  program
    .command('report')
    .description('write a self-contained HTML report of a run (charts, tables with intervals, an error browser); more runs add comparison and a kappa heatmap')
    .argument('<runs...>', 'run folders; the first is the one browsed')
    .option('--out <file>', 'where to write (default <first run>/report.html)')
    .action(async (dirs: string[], opts: { out?: string }) => {
      process.stdout.write(`${await writeHtmlReport(dirs, opts.out)}\n`);
    });
}
