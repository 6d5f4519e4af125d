import { closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Command } from 'commander';
import { CxrError, EXIT } from '../../core/errors.js';
import { renderTable } from '../../report/text-table.js';
import { MAX_REPORT_FILE_BYTES, readReportPairs, TRACKS, type Track } from '../../rrg/report-pairs.js';
import { METRICS, scoreReports, type MetricName, type RrgResults } from '../../rrg/score-reports.js';
import { OnnxBackend } from '../../rrg/onnx-backend.js';
import { GreenJudge, MAX_GREEN_JOURNAL_BYTES } from '../../rrg/green-judge.js';
import { firstOfBackends, HttpScoringService, type ModelMetricBackend } from '../../rrg/scoring-service.js';
import { endpointModel } from '../judge-options.js';
import { wholeNumber } from '../option-parsers.js';
import { cappedFileProblem, readCappedTextFile } from '../../rrg/read-capped-file.js';
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

/** The GREEN judge flags of `rrg score`. */
interface GreenFlags {
  green?: string;
  greenEndpoint: string[];
  greenApiKeyEnv?: string;
  greenConcurrency: number;
  greenTimeout: number;
  greenMaxTokens: number;
  greenJournal?: string;
}

async function greenJudgeOf(flags: GreenFlags, pred: string): Promise<GreenJudge | null> {
  if (!flags.green) {
    if (flags.greenEndpoint.length > 0 || flags.greenApiKeyEnv || flags.greenJournal) throw new CxrError('bad-option', '--green-endpoint, --green-api-key-env and --green-journal need --green <spec>');
    return null;
  }
  // Presets are the image-language models of the evaluation, not GREEN's judge.
  if (!flags.green.startsWith('openai:')) throw new CxrError('bad-option', `--green ${flags.green}: GREEN's judge is a language model behind an OpenAI-compatible endpoint: openai:<model id> with --green-endpoint <base URL>`);
  const adapter = await endpointModel('--green', 'GREEN judge', flags.green, flags.greenEndpoint, flags.greenApiKeyEnv);
  const journalFile = flags.greenJournal ?? `${pred}.green-journal.jsonl`;
  const journalName = flags.greenJournal ? '--green-journal' : 'the GREEN journal (default <pred>.green-journal.jsonl)';
  // An existing journal is read back (streamed by line): it must be a regular file, within its limit.
  const existing = statSync(journalFile, { throwIfNoEntry: false });
  const journalProblem = existing && cappedFileProblem(journalFile, existing, { label: journalName, maxBytes: MAX_GREEN_JOURNAL_BYTES, what: 'a GREEN journal' });
  if (journalProblem) throw new CxrError('bad-option', journalProblem);
  // Before anything is scored: a journal that cannot be written would otherwise fail after the other metrics.
  try {
    mkdirSync(dirname(journalFile), { recursive: true });
    closeSync(openSync(journalFile, 'a'));
  } catch (error) {
    throw new CxrError('bad-option', `${journalName} ${journalFile}: cannot be written (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); give --green-journal <file> in a writable folder`);
  }
  return new GreenJudge({ adapter, journalFile, concurrency: flags.greenConcurrency, timeoutMs: flags.greenTimeout * 1000, maxTokens: flags.greenMaxTokens });
}

/**
 * Each model metric from the first source that has it: GREEN from its judge endpoint (--green); BERTScore,
 * SembScore and RaTEScore from their ONNX folders; then the scoring service; else none ("not computed").
 */
function backendOf(opts: { service?: string; onnxBertscore?: string; onnxChexbert?: string; onnxRatescoreNer?: string; onnxRatescoreEncoder?: string }, greenJudge: GreenJudge | null): { backend: ModelMetricBackend | null; close: () => Promise<void> } {
  const service = opts.service ? new HttpScoringService(opts.service) : null;
  const folders = {
    bertscore: onnxFolder(opts.onnxBertscore, '--onnx-bertscore'),
    chexbert: onnxFolder(opts.onnxChexbert, '--onnx-chexbert'),
    ratescoreNer: onnxFolder(opts.onnxRatescoreNer, '--onnx-ratescore-ner'),
    ratescoreEncoder: onnxFolder(opts.onnxRatescoreEncoder, '--onnx-ratescore-encoder'),
  };
  const onnx = Object.values(folders).some((f) => f !== undefined) ? new OnnxBackend(folders) : null;
  const judge: ModelMetricBackend | null = greenJudge ? { name: `GREEN judge ${greenJudge.spec.name}`, greenJudgements: (pairs) => greenJudge.judge(pairs) } : null;
  return { backend: firstOfBackends([judge, onnx, service]), close: async () => onnx?.close() };
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
    green_unreadable: results.green_unreadable,
    green_failed: results.green_failed,
    studies: results.studies.map((s) => ({ id: s.id, ...s.values, ...(s.green ? { green_counts: { matched: s.green.matched, significant: s.green.significant, insignificant: s.green.insignificant } } : {}) })),
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
    if (results.green_unreadable.length) out += `${results.green_unreadable.length} GREEN repl${results.green_unreadable.length === 1 ? 'y has' : 'ies have'} none of GREEN's sections (or a count too large to be one) and scored 0: ${results.green_unreadable.slice(0, 5).join(', ')}${results.green_unreadable.length > 5 ? ', …' : ''}\n`;
    if (results.empty_predictions.length) out += `${results.empty_predictions.length} stud${results.empty_predictions.length === 1 ? 'y has' : 'ies have'} an empty or missing prediction, scored as an empty report: ${results.empty_predictions.slice(0, 5).join(', ')}${results.empty_predictions.length > 5 ? ', …' : ''}\n`;
  }
  return out;
}

/** `cxrbench rrg score`: ReXrank's report-generation metrics on a predictions file (docs/rrg.md). */
export function registerRrg(program: Command): void {
  const rrg = program.command('rrg').description('radiology report generation: ReXrank V1.0 metrics');
  rrg.command('score')
    .description('score generated reports: BLEU-2 and ROUGE-L here; BERTScore, SembScore, RadGraph, GREEN, RaTEScore through a scoring service (BERTScore, SembScore and RaTEScore also from local ONNX models, GREEN from its judge behind an endpoint); RadCliQ-v1 from them')
    .requiredOption('--pred <file>', "predictions: ReXrank's RRG JSON (keyed by study, with model_prediction and the reference sections) or JSONL {id, prediction, reference}")
    .option('--ref <file>', "references in a separate ReXrank JSON (then --pred needs only model_prediction; ids must match)")
    .option('--track <track>', 'findings | findings-impression (the reference text of the track)', 'findings-impression')
    .option('--metrics <list>', 'comma-separated (--green adds green to the default)', DEFAULT_METRICS)
    .option('--service <url>', 'a scoring service for the model-based metrics (protocol in docs/rrg.md)')
    .option('--onnx-bertscore <dir>', 'BERTScore from a local ONNX export (model.onnx + tokenizer.json), run here on the CPU; wins over --service')
    .option('--onnx-chexbert <dir>', 'SembScore from a local ONNX export of CheXbert (model.onnx + tokenizer.json), run here on the CPU; wins over --service')
    .option('--onnx-ratescore-ner <dir>', "RaTEScore's RaTE-NER token classifier as a local ONNX export (model.onnx + tokenizer.json + config.json); with --onnx-ratescore-encoder, wins over --service")
    .option('--onnx-ratescore-encoder <dir>', "RaTEScore's entity encoder (BioLORD-2023-C) as a local ONNX export (model.onnx + tokenizer.json); with --onnx-ratescore-ner")
    .option('--green <spec>', 'GREEN from its judge behind an OpenAI-compatible endpoint: openai:<model id> with --green-endpoint (StanfordAIMI/GREEN-RadLlama2-7b served by vLLM, say); the replies are read here. Wins over --service')
    .option('--green-endpoint <url>', 'base URL of the GREEN judge; repeat to load-balance', (v: string, prev: string[]) => [...prev, v], [] as string[])
    .option('--green-api-key-env <name>', "environment variable holding the GREEN judge's API key")
    .option('--green-concurrency <n>', 'GREEN judge requests in flight at most', wholeNumber('--green-concurrency', 1, 1024), 8)
    .option('--green-timeout <seconds>', 'per GREEN judge request', wholeNumber('--green-timeout', 1, 86_400), 300)
    .option('--green-max-tokens <n>', 'new tokens per GREEN reply at most', wholeNumber('--green-max-tokens', 64, 32_768), 2048)
    .option('--green-journal <file>', "the GREEN judge's replies, kept so a rerun asks nothing twice (default: <pred>.green-journal.jsonl)")
    .option('--resamples <n>', 'bootstrap resamples', wholeNumber('--resamples', 100, 100_000), 1000)
    .option('--seed <n>', 'bootstrap seed', wholeNumber('--seed', 0, 2 ** 31 - 1), 0)
    .option('--format <format>', 'table | md | csv | json', 'table')
    .action(async (opts: { pred: string; ref?: string; track: string; metrics: string; service?: string; onnxBertscore?: string; onnxChexbert?: string; onnxRatescoreNer?: string; onnxRatescoreEncoder?: string; resamples: number; seed: number; format: string } & GreenFlags, command: Command) => {
      const format = parseFormat(opts.format, ['table', 'md', 'csv', 'json'] as const);
      const track = parseFormat(opts.track, TRACKS, '--track');
      let metrics = parseMetrics(opts.metrics);
      if (opts.green && !metrics.includes('green')) {
        // Asking for the judge is asking for GREEN; an explicit list without it is a contradiction worth stopping on.
        if (command.getOptionValueSource('metrics') !== 'default') throw new CxrError('bad-option', `--green ${opts.green} is given but --metrics ${opts.metrics} does not include green`);
        metrics = [...metrics, 'green'];
      }
      if (opts.service !== undefined && !/^https?:\/\/\S+$/.test(opts.service)) throw new CxrError('bad-option', `--service ${opts.service}: expected an http(s) URL`);
      // The inputs first: a file refused (too large, a device, a report too long) leaves nothing behind, not even a GREEN journal.
      const reportFile = (label: string, path: string) => readCappedTextFile(path, { label, maxBytes: MAX_REPORT_FILE_BYTES, what: 'a predictions or references file' });
      const read = readReportPairs(reportFile('--pred', opts.pred), basename(opts.pred), track, opts.ref ? { content: reportFile('--ref', opts.ref), fileName: basename(opts.ref) } : undefined);
      if (read.problems.length > 0) {
        throw new CxrError('unreadable-file', `${opts.pred}: ${read.problems.length} problem(s), nothing scored:\n  ${read.problems.slice(0, 20).join('\n  ')}${read.problems.length > 20 ? `\n  … and ${read.problems.length - 20} more` : ''}`);
      }
      const greenJudge = await greenJudgeOf(opts, opts.pred);
      const { backend, close } = backendOf(opts, greenJudge);
      let results: RrgResults;
      try {
        results = await scoreReports(read.pairs, { metrics, backend, resamples: opts.resamples, seed: opts.seed, emptyPredictions: read.emptyPredictions });
      } catch (error) {
        if (error instanceof Error && error.message.startsWith('scoring service')) throw new CxrError('model-config', error.message);
        throw error;
      } finally {
        await close();
      }
      if (greenJudge) {
        const s = greenJudge.stats;
        process.stderr.write(`GREEN judge ${greenJudge.spec.name}: ${s.asked} asked now, ${s.cached} from its journal (${greenJudge.journalFile}), ${s.failed} failed${s.skipped ? `, ${s.skipped} not asked (judge unavailable)` : ''}\n`);
      }
      process.stdout.write(format === 'json' ? `${JSON.stringify(jsonOf(results, track), null, 2)}\n` : tableOf(results, format, metrics));
      // Scored, but not every study has its GREEN: say so in the exit code too, as an evaluation with failed requests does.
      if (results.green_failed.length > 0) process.exitCode = EXIT.withErrors;
    });
}
