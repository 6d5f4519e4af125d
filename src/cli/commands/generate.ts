import type { Command } from 'commander';
import { CxrError, EXIT } from '../../core/errors.js';
import { renderTable } from '../../report/text-table.js';
import { writeTextAtomically } from '../write-output.js';
import { join } from 'node:path';
import type { ModelGenerator } from '../../generate/model/model-generator.js';
import type { ModelAdapter } from '../../models/adapter.js';
import type { Embedder } from '../../models/embeddings.js';
import { ratio, seconds, wholeNumber } from '../option-parsers.js';

// The generation pipeline, its models and the check layer are loaded when `generate` or `check` runs (as `demo`'s
// work is): together they cost every other command ~0.1 s of start-up.

/** Embeddings for the diversity filter, from `--embeddings <model> --embeddings-endpoint <url>`; null without them. */
async function embedderFrom(opts: { embeddings?: string; embeddingsEndpoint?: string; embeddingsApiKeyEnv?: string }): Promise<Embedder | null> {
  if (!opts.embeddings && !opts.embeddingsEndpoint) return null;
  if (!opts.embeddings || !opts.embeddingsEndpoint) throw new CxrError('bad-option', '--embeddings <model> and --embeddings-endpoint <base URL> go together');
  const { endpointEmbedder } = await import('../../models/embeddings.js');
  return endpointEmbedder({ model: opts.embeddings, baseURL: opts.embeddingsEndpoint, apiKeyEnv: opts.embeddingsApiKeyEnv ?? null });
}

const addEmbeddingOptions = (command: Command) =>
  command
    .option('--diversity-scope <scope>', 'study: near-duplicates among the questions of one report (default); dataset: across the whole set', 'study')
    .option('--embeddings <model>', 'compare questions by embeddings from this model instead of TF-IDF (with --embeddings-endpoint)')
    .option('--embeddings-endpoint <url>', 'OpenAI-compatible base URL serving /v1/embeddings')
    .option('--embeddings-api-key-env <name>', 'environment variable holding its API key');

/** A language model behind an endpoint, from a spec (openai:<model id> with an endpoint, or preset:<name>), named by its flag in errors. */
async function endpointAdapter(spec: string, endpoint: string[], apiKeyEnv: string | undefined, flag: string): Promise<ModelAdapter> {
  const kind = spec.split(':', 1)[0];
  if (kind !== 'openai' && kind !== 'preset') throw new CxrError('bad-option', `${flag} ${spec}: expected openai:<model id> (with an endpoint) or preset:<name>`);
  try {
    const { resolveModel } = await import('../model-spec.js');
    return (await resolveModel(spec, { endpoint, ...(apiKeyEnv ? { apiKeyEnv } : {}), header: [], query: [], systemPrompt: true, imageDetail: null }, 0, () => null)).adapter;
  } catch (error) {
    if (error instanceof CxrError) throw new CxrError(error.code, error.message.replace(/^--model/, flag).replace(/--endpoint/g, flag === '--generator' ? '--endpoint' : `${flag}-endpoint`));
    throw error;
  }
}

/** The three options of an optional model: `<flag> <spec>`, `<flag>-endpoint <url...>`, `<flag>-api-key-env <name>`. */
function addModelOptions(command: Command, flag: string, purpose: string, what: string): Command {
  return command
    .option(`${flag} <spec>`, `${purpose} (openai:<model id> or preset:<name>)`)
    .option(`${flag}-endpoint <url...>`, `OpenAI-compatible base URL(s) of ${what}`)
    .option(`${flag}-api-key-env <name>`, 'environment variable holding its API key');
}

/** An optional model given by `--<flag> <spec> --<flag>-endpoint <url>`, checked to answer; null when not asked for. */
async function optionalModel(spec: string | undefined, endpoint: string[] | undefined, apiKeyEnv: string | undefined, flag: string): Promise<ModelAdapter | null> {
  if (!spec) {
    if (endpoint) throw new CxrError('bad-option', `${flag}-endpoint needs ${flag} <spec>`);
    return null;
  }
  const adapter = await endpointAdapter(spec, endpoint ?? [], apiKeyEnv, flag);
  await adapter.preflight?.(AbortSignal.timeout(30_000));
  return adapter;
}

/**
 * What `generate` allows a blind guesser by default: a set that can be passed without the image ranks models by
 * wording, so questions the guessers answer are removed until none scores over 35% (chance 25%) on any split.
 */
export const DEFAULT_MAX_BLIND_ACCURACY = 0.35;

/** A limit of 0 would remove every question a guesser gets right by luck: the share must be above nothing. */
function positiveShare(share: number): number {
  if (share <= 0) throw new CxrError('bad-option', `--max-blind-accuracy ${share}: give a share above 0 (e.g. 0.35; chance is 0.25)`);
  return share;
}

function scopeOf(value: string): 'study' | 'dataset' {
  if (value !== 'study' && value !== 'dataset') throw new CxrError('bad-option', `--diversity-scope ${value}: expected study or dataset`);
  return value;
}

/** The model-backed generator from `--generator openai:<model>|preset:<name>` and its endpoint options. */
async function modelGenerator(opts: { generator: string; endpoint?: string[]; apiKeyEnv?: string; concurrency: number; timeout: number; out: string; batch?: boolean; pollSeconds: number }): Promise<ModelGenerator> {
  const { concurrency, timeout, pollSeconds } = opts;
  const adapter = await endpointAdapter(opts.generator, opts.endpoint ?? [], opts.apiKeyEnv, '--generator');
  await adapter.preflight?.(AbortSignal.timeout(30_000));
  // OpenAI's limits per batch input file: 200 MB and 50,000 requests.
  const batch = opts.batch ? { batch: { dir: join(opts.out, 'batches'), pollSeconds, maxFileBytes: 190 << 20, maxRequests: 50_000 } } : {};
  const { ModelGenerator } = await import('../../generate/model/model-generator.js');
  return new ModelGenerator({ adapter, journalFile: join(opts.out, 'generation-journal.jsonl'), concurrency, timeoutMs: timeout * 1000, ...batch });
}

/** `cxrbench generate <corpus>`: report corpus → checked, PHI-screened ReXVQA-format question set with a dataset card. */
export function registerGenerate(program: Command): void {
  const command = program
    .command('generate <corpus>')
    .description('make a ReXVQA-format question set from a corpus (cxrbench corpus import): generate → check → PHI screen → official layout + dataset card')
    .requiredOption('--out <dir>', 'output folder (metadata/<split>_vqa_data.json, dataset-card.md/.json, rejections, review sample)')
    .option('--generator <spec>', 'offline (template rules, no network; the default), or a model: openai:<model id> with --endpoint, or preset:<name>', 'offline')
    .option('--endpoint <url...>', 'OpenAI-compatible base URL(s) of the generator model (vLLM, SGLang, Ollama, OpenAI, …)')
    .option('--api-key-env <name>', 'environment variable holding the endpoint\'s API key')
    .option('--concurrency <n>', 'model requests in flight (adaptive: lowered on 429s)', wholeNumber('--concurrency', 1), 8)
    .option('--timeout <seconds>', 'per request', seconds('--timeout'), 120)
    .option('--batch', "send the model's requests through the provider's batch API (two rounds: bullets, then questions; resumable)")
    .option('--poll-seconds <n>', 'with --batch: seconds between status checks', seconds('--poll-seconds', true), 30)
    .option('--seed <n>', 'seed for options order, splits and the review sample', wholeNumber('--seed'), 0)
    .option('--similarity <x>', 'drop a question more similar than this (TF-IDF cosine) to a kept one', ratio('--similarity'), 0.9)
    .option('--review-rate <x>', 'share of kept questions in the expert-review sample', ratio('--review-rate'), 0.1)
    .option('--splits <train,valid,test>', 'split shares, by patient', '0.8,0.1,0.1')
    .option('--max-blind-accuracy <share>', 'remove questions blind guessers answer until each guesser is at or under this share on every split (chance is 0.25; 1 keeps every question and only measures)', ratio('--max-blind-accuracy'), DEFAULT_MAX_BLIND_ACCURACY);
  addModelOptions(command, '--content-judge', 'also ask a model c1–c3 about every question', 'the content judge');
  addModelOptions(command, '--phi-model', 'also ask a model for identifiers the rules missed', 'the PHI model');
  addEmbeddingOptions(command)
    .action(async (corpus: string, opts: { out: string; generator: string; endpoint?: string[]; apiKeyEnv?: string; concurrency: number; timeout: number; seed: number; similarity: number; reviewRate: number; splits: string; batch?: boolean; pollSeconds: number; diversityScope: string; embeddings?: string; embeddingsEndpoint?: string; embeddingsApiKeyEnv?: string; contentJudge?: string; contentJudgeEndpoint?: string[]; contentJudgeApiKeyEnv?: string; phiModel?: string; phiModelEndpoint?: string[]; phiModelApiKeyEnv?: string; maxBlindAccuracy: number }) => {
      const [{ QuestionJudge }, { PhiModel }, { generateQuestionSet }] = await Promise.all([import('../../generate/check/question-judge.js'), import('../../generate/model/phi-model.js'), import('../../generate/pipeline.js')]);
      const embedder = await embedderFrom(opts);
      const diversityScope = scopeOf(opts.diversityScope);
      const judgeModel = await optionalModel(opts.contentJudge, opts.contentJudgeEndpoint, opts.contentJudgeApiKeyEnv, '--content-judge');
      const contentJudge = judgeModel ? new QuestionJudge({ adapter: judgeModel, journalFile: join(opts.out, 'judge-journal.jsonl') }) : null;
      const phiAdapter = await optionalModel(opts.phiModel, opts.phiModelEndpoint, opts.phiModelApiKeyEnv, '--phi-model');
      // The PHI model's journal quotes identifiers, so it lives beside the output folder, never inside it.
      const phiModel = phiAdapter ? new PhiModel({ adapter: phiAdapter, journalFile: `${opts.out.replace(/[\\/]+$/, '')}.phi-journal.jsonl` }) : null;
      if (opts.batch && opts.generator === 'offline') throw new CxrError('bad-option', '--batch sends a model\'s requests: give --generator openai:<model> (or preset:<name>) too');
      const generator = opts.generator === 'offline' ? undefined : await modelGenerator(opts);
      const shares = opts.splits.split(',').map(Number);
      if (shares.length !== 3 || shares.some((x) => !Number.isFinite(x) || x < 0) || shares.reduce((a, b) => a + b, 0) <= 0) throw new CxrError('bad-option', `--splits ${opts.splits}: expected three non-negative shares, e.g. 0.8,0.1,0.1`);
      const seed = opts.seed;
      // Ctrl-C stops asking; what was answered is journaled and a rerun resumes from it.
      const stop = new AbortController();
      const onSignal = () => stop.abort();
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      const card = await generateQuestionSet({ corpus, out: opts.out, seed, similarity: opts.similarity, reviewRate: opts.reviewRate, splits: { train: shares[0]!, valid: shares[1]!, test: shares[2]! }, signal: stop.signal, ...(generator ? { generator } : {}), diversityScope, ...(embedder ? { embedder } : {}), ...(contentJudge ? { contentJudge } : {}), ...(phiModel ? { phiModel } : {}), maxBlindAccuracy: positiveShare(opts.maxBlindAccuracy) }).finally(() => {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      });
      process.stdout.write(card.markdown);
      process.stdout.write(`\nwritten to ${opts.out}\n`);
    });
}

/** `cxrbench check <dir>`: the check layer on a question set in the official layout (as `generate` runs it). */
export function registerCheck(program: Command): void {
  const command = program
    .command('check <dataset>')
    .description('run the validators on a ReXVQA-format question set: v1–v4 structural, c1–c3 content (against each record\'s report), PHI screen, diversity; exit 1 when any question fails')
    .option('--similarity <x>', 'near-duplicate threshold (TF-IDF cosine)', ratio('--similarity'), 0.9)
    .option('--out <file>', 'write every rejection (JSONL: question, validator, reason)')
    .option('--shortcuts', 'also run the blind guessers (shortcut audit): accuracy per split and task without the image')
    .option('--max-blind-accuracy <share>', 'with --shortcuts: exit 1 when a guesser is over this share on a split, and list the questions that would have to go', ratio('--max-blind-accuracy'))
    .option('--shortcuts-out <file>', 'with --shortcuts: write the audit as JSON');
  addEmbeddingOptions(command)
    .action(async (dataset: string, opts: { similarity: number; out?: string; diversityScope: string; embeddings?: string; embeddingsEndpoint?: string; embeddingsApiKeyEnv?: string; shortcuts?: boolean; maxBlindAccuracy?: number; shortcutsOut?: string }) => {
      if (!opts.shortcuts && (opts.maxBlindAccuracy !== undefined || opts.shortcutsOut)) throw new CxrError('bad-option', '--max-blind-accuracy and --shortcuts-out go with --shortcuts');
      const { checkQuestionSet } = await import('../../generate/check/check-question-set.js');
      const result = await checkQuestionSet(dataset, opts.similarity, await embedderFrom(opts), scopeOf(opts.diversityScope));
      process.stdout.write(renderTable({ headers: ['validator', 'checked', 'passed', 'pass rate'], rows: result.validators.map((v) => [v.validator, String(v.checked), String(v.passed), v.checked === 0 ? '—' : `${((100 * v.passed) / v.checked).toFixed(1)}%`]), numeric: [false, true, true, true] }, 'table'));
      const byRule = new Map<string, number>();
      for (const r of result.rejections) byRule.set(`${r.validator}: ${r.reason.split(':')[0]}`, (byRule.get(`${r.validator}: ${r.reason.split(':')[0]}`) ?? 0) + 1);
      for (const [rule, n] of [...byRule].sort((a, b) => b[1] - a[1])) process.stdout.write(`  ${n} × ${rule}\n`);
      const failed = new Set(result.rejections.map((r) => r.questionId)).size;
      process.stdout.write(`${result.questions} question(s), ${failed} fail at least one validator\n`);
      if (opts.out) {
        await writeTextAtomically(opts.out, result.rejections.map((r) => JSON.stringify(r)).join('\n') + (result.rejections.length ? '\n' : ''));
        process.stdout.write(`rejections written to ${opts.out}\n`);
      }
      if (failed > 0) process.exitCode = EXIT.findings;
      if (opts.shortcuts && await printShortcutAudit(dataset, opts.maxBlindAccuracy === undefined ? null : positiveShare(opts.maxBlindAccuracy), opts.shortcutsOut)) process.exitCode = EXIT.findings;
    });
}

/** `check --shortcuts`: prints the audit (as the card shows it); true when a guesser is over the limit. */
async function printShortcutAudit(dataset: string, share: number | null, out: string | undefined): Promise<boolean> {
  const [{ auditQuestionSet }, { shortcutAuditMarkdown }] = await Promise.all([import('../../shortcuts/audit-set.js'), import('../../shortcuts/audit-card.js')]);
  const { audit, limit, wouldRemove } = await auditQuestionSet(dataset, share);
  process.stdout.write(`\n${shortcutAuditMarkdown(audit, null)}`);
  if (limit) {
    const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
    process.stdout.write(limit.over.length === 0
      ? `\nEvery guesser is at or under ${pct(limit.share)} on every split.\n`
      : `\nOver the limit of ${pct(limit.share)}: ${limit.over.map((o) => `${o.guesser} on ${o.split} ${pct(o.accuracy)}`).join('; ')}. ${wouldRemove.length} question(s) would have to go to bring every guesser under it${out ? ` (listed in ${out})` : ''}; \`cxrbench generate --max-blind-accuracy\` removes them from a set it makes.\n`);
  }
  if (out) {
    await writeTextAtomically(out, `${JSON.stringify({ ...audit, limit, wouldRemove }, null, 2)}\n`);
    process.stdout.write(`shortcut audit written to ${out}\n`);
  }
  return (limit?.over.length ?? 0) > 0;
}
