import { Option, type Command } from 'commander';
import { CxrError, EXIT } from '../../core/errors.js';
import { consistencyTable, runSummaryTable } from '../../report/run-summary-table.js';
import { evaluate } from '../evaluate.js';
import { MODEL_SPEC_FORMS } from '../model-spec.js';
import { wholeNumber } from '../option-parsers.js';
import { progressReporter } from '../progress.js';
import { addJudgeOptions, judgeFailuresLine, type JudgeFlags } from '../judge-options.js';
import { costUsd, parsePricing, type Pricing } from '../../runner/budget.js';
import { parseRequestParam } from '../../core/request-params.js';
import { BUILT_IN_TEMPLATES } from '../../prompt/template.js';
import { openEndedTable } from '../../report/open-ended-table.js';
import { renderTable } from '../../report/text-table.js';
import { addSampleOptions, sampleFromFlags, sampleLine, type SampleFlags } from '../sample-options.js';

const collect = (value: string, previous: string[]) => [...previous, value];

function number(option: string) {
  return (value: string) => {
    const n = Number(value);
    if (!Number.isFinite(n)) throw new CxrError('bad-option', `${option} ${value}: expected a number`);
    return n;
  };
}

function pricing(value: string): Pricing {
  const parsed = parsePricing(value);
  if (!parsed) throw new CxrError('bad-option', `--price ${value}: expected <input>/<output> US dollars per million tokens, e.g. 1.25/10`);
  return parsed;
}

/** Request options (#24): `--param key=<json>`, checked as given so a bad one stops the command before any request. */
const collectParam = (value: string, previous: string[]) => (parseRequestParam(value), [...previous, value]);
const PARAM_HELP = 'request option merged into the chat request body, repeatable: key=<JSON>, e.g. chat_template_kwargs=\'{"enable_thinking":true}\', top_k=20, reasoning_effort=\'"high"\', max_completion_tokens=8192 (recorded in the manifest: other options are another run)';
const MAX_TOKENS_HELP = "maximum completion tokens (default 512, or the preset's; a thinking model spends its reasoning from them too: give it 4096–16384, or its replies are cut and counted truncated)";

interface EvalFlags extends JudgeFlags, SampleFlags {
  param: string[];
  open?: boolean;
  data: string;
  split: string;
  model: string;
  out?: string;
  endpoint: string[];
  apiKeyEnv?: string;
  header: string[];
  query: string[];
  systemPrompt: boolean;
  imageDetail?: 'auto' | 'low' | 'high';
  prompt: string;
  patientContext?: boolean;
  maxImages?: number;
  maxPixels?: number;
  images?: string;
  temperature?: number;
  maxTokens?: number;
  topP?: number;
  seed: number;
  concurrency: number;
  adaptive?: boolean;
  maxAttempts: number;
  timeout: number;
  retryBaseMs: number;
  tokenBudget?: number;
  costBudget?: number;
  price?: Pricing;
  retryErrors?: boolean;
  strict?: boolean;
  limit?: number;
  shuffleCheck?: number;
  batch?: boolean;
  batchPoll: number;
  quiet?: boolean;
}

/** `cxrbench eval`: run a model (or baseline) on a split, resumably, and print accuracy per task. */
export function registerEval(program: Command): void {
  const command = program
    .command('eval')
    .description('evaluate a model on a dataset split; rerun the same command to resume')
    .requiredOption('--data <dir>', 'dataset (official ReXVQA folder, JSONL folder or file)')
    .option('--split <name>', 'split to evaluate', 'test')
    .requiredOption('--model <spec>', MODEL_SPEC_FORMS)
    .option('--out <dir>', 'run folder (default runs/<dataset>-<split>-<model>)')
    .option('--endpoint <url>', 'OpenAI-compatible base URL; repeat to load-balance over a fleet', collect, [])
    .option('--api-key-env <name>', 'environment variable holding the API key (the key itself is never recorded)')
    .option('--header <name=value>', 'extra HTTP header; value env:NAME reads the environment', collect, [])
    .option('--query <name=value>', 'extra query parameter (e.g. api-version=2024-10-21 for Azure)', collect, [])
    .option('--no-system-prompt', 'put the system text at the start of the user turn (models without a system role)')
    .addOption(new Option('--image-detail <level>', 'image detail hint for the endpoint').choices(['auto', 'low', 'high']))
    .option('--prompt <name|file>', `prompt template: ${BUILT_IN_TEMPLATES.join(', ')} (see docs/evaluation.md), or a template file`, 'rexvqa-json')
    .option('--patient-context', 'add age, sex and indication to the prompt')
    .option('--max-images <n>', 'send at most n views per question (frontal first); recorded in the manifest', wholeNumber('--max-images'))
    .option('--max-pixels <n>', 'resize images so the longest side is at most n pixels', wholeNumber('--max-pixels'))
    .option('--images <root>', 'image root (default: paths relative to the question file)')
    .option('--temperature <t>', "sampling temperature (default 0, or the preset's)", number('--temperature'))
    .option('--max-tokens <n>', MAX_TOKENS_HELP, wholeNumber('--max-tokens'))
    .option('--top-p <p>', 'nucleus sampling', number('--top-p'))
    .option('--seed <n>', 'seed for sampling and baselines', wholeNumber('--seed'), 0)
    .option('--concurrency <n>', 'requests in flight at most', wholeNumber('--concurrency'), 8)
    .option('--adaptive', 'lower concurrency on 429s and rising latency, recover gradually')
    .option('--max-attempts <n>', 'attempts per question (429, 5xx, network errors, timeouts are retried)', wholeNumber('--max-attempts'), 5)
    .option('--timeout <seconds>', 'per-request timeout', number('--timeout'), 120)
    .option('--retry-base-ms <ms>', 'first retry delay (doubles, with jitter; Retry-After wins)', wholeNumber('--retry-base-ms'), 1000)
    .option('--token-budget <n>', 'stop cleanly once this many tokens were used', wholeNumber('--token-budget'))
    .option('--cost-budget <usd>', 'stop cleanly once the estimated cost reaches this many US dollars (needs --price)', number('--cost-budget'))
    .option('--price <in/out>', 'US dollars per million input/output tokens, e.g. 1.25/10: the summary shows the estimated cost', pricing)
    .option('--retry-errors', 'ask again the questions that ended in error')
    .option('--strict', 'strict extraction: JSON and <answer> tags only')
    .option('--limit <n>', 'only the first n questions of the split', wholeNumber('--limit'))
    .option('--shuffle-check <n>', 're-ask n answered questions with options permuted; report answer consistency per task', wholeNumber('--shuffle-check'))
    .option('--batch', "send the requests through the provider's batch API (write, submit, poll, collect); rerun to resume")
    .option('--batch-poll <seconds>', 'seconds between batch status polls', number('--batch-poll'), 30)
    .option('--quiet', 'no progress output')
    .option('--param <key=json>', PARAM_HELP, collectParam, []);
  addSampleOptions(command).option('--open', 'open-ended: ask without the options (template rexvqa-open); scored by exact match, token F1 and ROUGE-L against the correct option\'s text, and with --judge mapped to an option');
  addJudgeOptions(command)
    .action(async (flags: EvalFlags) => {
      const sample = sampleFromFlags(flags);
      if (flags.concurrency < 1) throw new CxrError('bad-option', '--concurrency must be at least 1');
      if (flags.maxAttempts < 1) throw new CxrError('bad-option', '--max-attempts must be at least 1');
      const progress = progressReporter(flags.quiet === true);
      const stop = new AbortController();
      const onSignal = () => {
        process.stderr.write('\ncxrbench: stopping — in-flight requests are dropped and will be asked again on resume\n');
        stop.abort();
      };
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      try {
        const evaluation = await evaluate({
          data: flags.data, split: flags.split, model: flags.model, ...(flags.out ? { out: flags.out } : {}),
          endpoint: flags.endpoint, ...(flags.apiKeyEnv ? { apiKeyEnv: flags.apiKeyEnv } : {}), header: flags.header, query: flags.query,
          systemPrompt: flags.systemPrompt, imageDetail: flags.imageDetail ?? null,
          prompt: flags.prompt, patientContext: flags.patientContext === true, maxImages: flags.maxImages ?? null, maxPixels: flags.maxPixels ?? null,
          ...(flags.images ? { images: flags.images } : {}),
          temperature: flags.temperature ?? null, maxTokens: flags.maxTokens ?? null, requestParams: flags.param, ...(flags.topP !== undefined ? { topP: flags.topP } : {}), seed: flags.seed,
          concurrency: flags.concurrency, adaptive: flags.adaptive === true, maxAttempts: flags.maxAttempts, timeoutMs: flags.timeout * 1000,
          retryBaseMs: flags.retryBaseMs, tokenBudget: flags.tokenBudget ?? null, costBudgetUsd: flags.costBudget ?? null, pricing: flags.price ?? null, retryErrors: flags.retryErrors === true, strict: flags.strict === true,
          limit: flags.limit ?? null, ...(sample ? { sample } : {}), ...(flags.open ? { open: true } : {}), judge: flags, ...(flags.shuffleCheck ? { shuffleCheck: flags.shuffleCheck } : {}), ...(flags.batch ? { batchPollSeconds: flags.batchPoll } : {}), onProgress: progress.onProgress, signal: stop.signal,
        });
        progress.stop();
        const { summary, result, manifest } = evaluation;
        const label = `${manifest.adapter.baseline ? '[baseline] ' : ''}${manifest.adapter.name} on ${manifest.dataset.name}/${manifest.dataset.split}`;
        const summaryText = runSummaryTable(summary, label, manifest.extractor.judge?.model.name ?? null);
        if (evaluation.openEnded) process.stdout.write(renderTable(openEndedTable(evaluation.openEnded, evaluation.judge ? summary : null, `${label} — open-ended (no options), scored against the correct option's text`), 'table'));
        // Without a judge an open run maps no answer to an option: its accuracy table would say nothing, only whether it finished.
        process.stdout.write(evaluation.openEnded && !evaluation.judge ? `${summaryText.trimEnd().split('\n').at(-1)}\n` : summaryText);
        if (manifest.sample) process.stdout.write(sampleLine(manifest.sample));
        if (evaluation.judge) process.stdout.write(judgeFailuresLine(evaluation.judge, result.outcomes));
        if (evaluation.shuffleCheck) process.stdout.write(consistencyTable(evaluation.shuffleCheck));
        if (result.stoppedBy === 'budget') process.stdout.write('stopped: the budget was reached\n');
        if (flags.price) process.stdout.write(`tokens: ${result.tokens.prompt} prompt + ${result.tokens.completion} completion ≈ $${costUsd(result.tokens, flags.price).toFixed(2)} at $${flags.price.inputPerMillion}/$${flags.price.outputPerMillion} per million\n`);
        if (result.corruptJournalLines > 0) process.stdout.write(`note: ${result.corruptJournalLines} unreadable journal line(s) were skipped; their questions were asked again\n`);
        const errors = Object.entries(result.errorsByKind);
        if (summary.complete && errors.length > 0) {
          const kinds = errors.sort((a, b) => b[1] - a[1]).map(([kind, n]) => `${kind} ${n}`).join(', ');
          process.stdout.write(`FINISHED WITH ERRORS: ${summary.overall.error} of ${summary.selected} question(s) ended in error after their retries (${kinds}); they count as wrong. Rerun the same command with --retry-errors to ask them again.\n`);
        }
        process.stdout.write(`run folder: ${evaluation.outDir}\n`);
        process.exitCode = !summary.complete ? EXIT.incomplete : summary.overall.error > 0 ? EXIT.withErrors : EXIT.ok;
      } finally {
        progress.stop();
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    });
}
