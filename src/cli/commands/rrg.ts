import { statSync } from 'node:fs';
import { basename } from 'node:path';
import type { Command } from 'commander';
import { CxrError } from '../../core/errors.js';
import { renderTable } from '../../report/text-table.js';
import { readReportPairs, TRACKS, type Track } from '../../rrg/report-pairs.js';
import { METRICS, scoreReports, type MetricName, type RrgResults } from '../../rrg/score-reports.js';
import { OnnxBackend } from '../../rrg/onnx-backend.js';
import { HttpScoringService, type ModelMetricBackend } from '../../rrg/scoring-service.js';
import { wholeNumber } from '../option-parsers.js';
import { readTextFile } from '../read-text-file.js';
import { parseFormat } from '../output-format.js';

/** Metric names as typed on the command line (ReXrank's column names, lowercased) → the output's names. */
const METRIC_ALIASES: Record<string, MetricName> = {
  bleu: 'bleu', 'bleu-2': 'bleu', 'rouge-l': 'rouge_l', rouge_l: 'rouge_l', rougel: 'rouge_l', bertscore: 'bertscore', sembscore: 'sembscore', radgraph: 'radgraph',
  green: 'green', radcliq: 'radcliq_v1', 'radcliq-v1': 'radcliq_v1', radcliq_v1: 'radcliq_v1', ratescore: 'ratescore', fineradscore: 'fineradscore',
};
const DEFAULT_METRICS = 'bleu,rouge-l,bertscore,sembscore,radgraph,radcliq-v1';

/** A folder given to an --onnx-* option (its files are checked by the backend, which names the missing ones). */
function onnxFolder(path: string | undefined, option: string): string | undefined {
  if (path === undefined) return undefined;
  let isFolder = false;
  try {
    isFolder = statSync(path).isDirectory();
  } catch (error) {
    throw new CxrError('bad-option', `${option} ${path}: no such folder (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  if (!isFolder) throw new CxrError('bad-option', `${option} ${path}: not a folder; give the folder holding model.onnx and tokenizer.json`);
  return path;
}

/** Each model metric from the ONNX backend when its folder is given, else from the scoring service, else none. */
function backendOf(opts: { service?: string; onnxBertscore?: string; onnxChexbert?: string; onnxRatescoreNer?: string; onnxRatescoreEncoder?: string }): { backend: ModelMetricBackend | null; close: () => Promise<void> } {
  const service = opts.service ? new HttpScoringService(opts.service) : null;
  const folders = {
    bertscore: onnxFolder(opts.onnxBertscore, '--onnx-bertscore'),
    chexbert: onnxFolder(opts.onnxChexbert, '--onnx-chexbert'),
    ratescoreNer: onnxFolder(opts.onnxRatescoreNer, '--onnx-ratescore-ner'),
    ratescoreEncoder: onnxFolder(opts.onnxRatescoreEncoder, '--onnx-ratescore-encoder'),
  };
  const onnx = Object.values(folders).some((f) => f !== undefined) ? new OnnxBackend(folders) : null;
  const close = async () => onnx?.close();
  if (!onnx || !service) return { backend: onnx ?? service, close };
  return {
    backend: {
      name: `${onnx.name} + ${service.name}`,
      tokenEmbeddings: onnx.tokenEmbeddings ?? ((texts) => service.tokenEmbeddings(texts)),
      reportEmbeddings: onnx.reportEmbeddings ?? ((texts) => service.reportEmbeddings(texts)),
      radGraphs: (texts) => service.radGraphs(texts),
      greenCounts: (pairs) => service.greenCounts(pairs),
      ratescoreEntities: onnx.ratescoreEntities ?? ((texts) => service.ratescoreEntities(texts)),
    },
    close,
  };
}

function parseMetrics(value: string): MetricName[] {
  const names = value.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  const unknown = names.filter((n) => !(n in METRIC_ALIASES));
  if (unknown.length || names.length === 0) throw new CxrError('bad-option', `--metrics ${value}: unknown ${unknown.join(', ') || '(none given)'}; choose from bleu, rouge-l, bertscore, sembscore, radgraph, green, radcliq-v1, ratescore, fineradscore`);
  return [...new Set(names.map((n) => METRIC_ALIASES[n]!))];
}

/** The documented JSON shape: metrics by name, and one flat object per study. */
function jsonOf(results: RrgResults, track: Track): unknown {
  return {
    track,
    metrics: results.metrics,
    ranking: results.ranking,
    not_computed: results.not_computed,
    empty_predictions: results.empty_predictions,
    studies: results.studies.map((s) => ({ id: s.id, ...s.values })),
    settings: results.settings,
  };
}

function tableOf(results: RrgResults, format: 'table' | 'md' | 'csv', asked: readonly MetricName[]): string {
  const fmt = (x: number) => x.toFixed(4);
  const rows = asked.map((m) => {
    const s = results.metrics[m];
    return s ? [m, fmt(s.mean), `${fmt(s.lo)}–${fmt(s.hi)}`, String(s.n)] : [m, 'not computed', '', ''];
  });
  if (results.ranking) rows.push([results.ranking.kind === 'inverse' ? '1/radcliq_v1' : 'radcliq_v1 (mean ≤ 0: no reciprocal)', fmt(results.ranking.value), '', '']);
  let out = renderTable({ headers: ['metric', 'mean', '95% CI (bootstrap over studies)', 'n'], rows, numeric: [false, true, false, true] }, format);
  if (format !== 'csv') {
    for (const [m, why] of Object.entries(results.not_computed)) out += `${m}: ${why}\n`;
    if (results.empty_predictions.length) out += `${results.empty_predictions.length} stud${results.empty_predictions.length === 1 ? 'y has' : 'ies have'} an empty or missing prediction, scored as an empty report: ${results.empty_predictions.slice(0, 5).join(', ')}${results.empty_predictions.length > 5 ? ', …' : ''}\n`;
  }
  return out;
}

/** `cxrbench rrg score`: ReXrank's report-generation metrics on a predictions file (docs/rrg.md). */
export function registerRrg(program: Command): void {
  const rrg = program.command('rrg').description('radiology report generation: ReXrank V1.0 metrics');
  rrg.command('score')
    .description('score generated reports: BLEU-2 and ROUGE-L here; BERTScore, SembScore, RadGraph, GREEN, RaTEScore through a scoring service (BERTScore, SembScore and RaTEScore also from local ONNX models); RadCliQ-v1 from them')
    .requiredOption('--pred <file>', "predictions: ReXrank's RRG JSON (keyed by study, with model_prediction and the reference sections) or JSONL {id, prediction, reference}")
    .option('--ref <file>', "references in a separate ReXrank JSON (then --pred needs only model_prediction; ids must match)")
    .option('--track <track>', 'findings | findings-impression (the reference text of the track)', 'findings-impression')
    .option('--metrics <list>', 'comma-separated', DEFAULT_METRICS)
    .option('--service <url>', 'a scoring service for the model-based metrics (protocol in docs/rrg.md)')
    .option('--onnx-bertscore <dir>', 'BERTScore from a local ONNX export (model.onnx + tokenizer.json), run here on the CPU; wins over --service')
    .option('--onnx-chexbert <dir>', 'SembScore from a local ONNX export of CheXbert (model.onnx + tokenizer.json), run here on the CPU; wins over --service')
    .option('--onnx-ratescore-ner <dir>', "RaTEScore's RaTE-NER token classifier as a local ONNX export (model.onnx + tokenizer.json + config.json); with --onnx-ratescore-encoder, wins over --service")
    .option('--onnx-ratescore-encoder <dir>', "RaTEScore's entity encoder (BioLORD-2023-C) as a local ONNX export (model.onnx + tokenizer.json); with --onnx-ratescore-ner")
    .option('--resamples <n>', 'bootstrap resamples', wholeNumber('--resamples', 100, 100_000), 1000)
    .option('--seed <n>', 'bootstrap seed', wholeNumber('--seed', 0, 2 ** 31 - 1), 0)
    .option('--format <format>', 'table | md | csv | json', 'table')
    .action(async (opts: { pred: string; ref?: string; track: string; metrics: string; service?: string; onnxBertscore?: string; onnxChexbert?: string; onnxRatescoreNer?: string; onnxRatescoreEncoder?: string; resamples: number; seed: number; format: string }) => {
      const format = parseFormat(opts.format, ['table', 'md', 'csv', 'json'] as const);
      const track = parseFormat(opts.track, TRACKS, '--track');
      const metrics = parseMetrics(opts.metrics);
      if (opts.service !== undefined && !/^https?:\/\/\S+$/.test(opts.service)) throw new CxrError('bad-option', `--service ${opts.service}: expected an http(s) URL`);
      const { backend, close } = backendOf(opts);
      const read = readReportPairs(readTextFile(opts.pred, '--pred'), basename(opts.pred), track, opts.ref ? { content: readTextFile(opts.ref, '--ref'), fileName: basename(opts.ref) } : undefined);
      if (read.problems.length > 0) {
        throw new CxrError('unreadable-file', `${opts.pred}: ${read.problems.length} problem(s), nothing scored:\n  ${read.problems.slice(0, 20).join('\n  ')}${read.problems.length > 20 ? `\n  … and ${read.problems.length - 20} more` : ''}`);
      }
      let results: RrgResults;
      try {
        results = await scoreReports(read.pairs, { metrics, backend, resamples: opts.resamples, seed: opts.seed, emptyPredictions: read.emptyPredictions });
      } catch (error) {
        if (error instanceof Error && error.message.startsWith('scoring service')) throw new CxrError('model-config', error.message);
        throw error;
      } finally {
        await close();
      }
      process.stdout.write(format === 'json' ? `${JSON.stringify(jsonOf(results, track), null, 2)}\n` : tableOf(results, format, metrics));
    });
}
