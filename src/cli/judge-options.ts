import type { Command } from 'commander';
import { CxrError } from '../core/errors.js';
import type { JudgeManifest } from '../core/manifest.js';
import type { Outcome } from '../core/model-io.js';
import type { AdapterSpec, ModelAdapter } from '../models/adapter.js';
import { EndpointAnswerJudge, type JudgeStats } from '../judge/answer-judge.js';
import { JUDGE_PROMPT_SHA256, OPEN_JUDGE_PROMPT_SHA256, judgePromptFor } from '../judge/judge-prompt.js';
import { resolveModel } from './model-spec.js';

/** The judge flags every command that reads answers takes. */
export interface JudgeFlags {
  judge?: string;
  judgeEndpoint: string[];
  judgeApiKeyEnv?: string;
  judgeConcurrency: number;
  /** Seconds per judge request. */
  judgeTimeout: number;
}

const collect = (value: string, previous: string[]) => [...previous, value];

/** Adds `--judge`, `--judge-endpoint`, `--judge-api-key-env` and `--judge-concurrency` to a command. */
export function addJudgeOptions(command: Command): Command {
  return command
    .option('--judge <spec>', 'ask a language model (openai:<model> with --judge-endpoint, or preset:<name>) about the outputs the rules cannot read; without it extraction is offline and deterministic')
    .option('--judge-endpoint <url>', 'OpenAI-compatible base URL of the judge; repeat to load-balance', collect, [])
    .option('--judge-api-key-env <name>', 'environment variable holding the judge\'s API key')
    .option('--judge-concurrency <n>', 'judge requests in flight at most', (v: string) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1) throw new CxrError('bad-option', `--judge-concurrency ${v}: expected a whole number ≥ 1`);
      return n;
    }, 8)
    .option('--judge-timeout <seconds>', 'per judge request', (v: string) => {
      const n = Number(v);
      if (!Number.isFinite(n) || n <= 0) throw new CxrError('bad-option', `--judge-timeout ${v}: expected a number of seconds > 0`);
      return n;
    }, 60);
}

/**
 * A helper model (an answer judge, GREEN's judge) named on the command line: a language model behind an endpoint,
 * `openai:<model id>` with endpoint URLs or `preset:<name>`. Errors name the option (`flag`).
 */
export async function endpointModel(flag: string, role: string, spec: string, endpoints: string[], apiKeyEnv: string | undefined): Promise<ModelAdapter> {
  const kind = spec.split(':', 1)[0];
  if (kind !== 'openai' && kind !== 'preset') {
    throw new CxrError('bad-option', `${flag} ${spec}: a ${role} is a language model behind an endpoint: openai:<model id> with ${flag}-endpoint <base URL>, or preset:<name>`);
  }
  // A base URL without its scheme ("localhost:8000") parses as a URL of scheme "localhost:"; say so before any request.
  for (const e of endpoints) if (!/^https?:\/\/\S+$/i.test(e)) throw new CxrError('bad-option', `${flag}-endpoint ${e}: not an http(s) URL (expected e.g. http://127.0.0.1:8000/v1)`);
  const endpoint = { endpoint: endpoints, ...(apiKeyEnv ? { apiKeyEnv } : {}), header: [], query: [], systemPrompt: true, imageDetail: null };
  try {
    return (await resolveModel(spec, endpoint, 0, () => null)).adapter;
  } catch (error) {
    // The model's messages name --model, --endpoint and --api-key-env; here they are this helper's flags.
    if (error instanceof CxrError) throw new CxrError(error.code, error.message.replace(/^--model/, flag).replace(/--(endpoint|api-key-env)\b/g, `${flag}-$1`));
    throw error;
  }
}

/** The judge a command's flags ask for (null without `--judge`), journaling to `journalFile`. Only model endpoints can judge. */
export async function judgeFromFlags(flags: JudgeFlags, journalFile: string): Promise<EndpointAnswerJudge | null> {
  if (!flags.judge) {
    if (flags.judgeEndpoint.length > 0 || flags.judgeApiKeyEnv) throw new CxrError('bad-option', '--judge-endpoint and --judge-api-key-env need --judge <spec>');
    return null;
  }
  const adapter = await endpointModel('--judge', 'judge', flags.judge, flags.judgeEndpoint, flags.judgeApiKeyEnv);
  return new EndpointAnswerJudge({ adapter, journalFile, concurrency: flags.judgeConcurrency, timeoutMs: flags.judgeTimeout * 1000 });
}

/** The manifest entry of a judge. */
export function judgeManifest(judge: EndpointAnswerJudge, open = false): JudgeManifest {
  const { prompt, sha256 } = judgePromptFor({ open });
  return { model: judge.spec, params: judge.params, prompt: { name: prompt.name, version: prompt.version, sha256 } };
}

/**
 * The judge a saved run recorded, reading its stored verdicts only (no request is sent): re-scoring a run
 * judged earlier gives the same outcomes offline. Null when the run used no judge or another prompt version.
 */
export function storedJudge(entry: JudgeManifest | undefined, journalFile: string): EndpointAnswerJudge | null {
  if (!entry || (entry.prompt.sha256 !== JUDGE_PROMPT_SHA256 && entry.prompt.sha256 !== OPEN_JUDGE_PROMPT_SHA256)) return null;
  const spec: AdapterSpec = entry.model;
  const adapter: ModelAdapter = {
    spec,
    needsImages: false,
    generate: () => Promise.reject(new Error('offline judge: no request is sent')),
    classifyError: (error) => ({ kind: 'client', message: String(error) }),
  };
  return new EndpointAnswerJudge({ adapter, journalFile, offline: true, params: entry.params });
}

/** One line on what the judge did in this command, for standard error. */
export function judgeStatsLine(judge: EndpointAnswerJudge): string {
  const s = judge.stats;
  return `judge ${judge.model}: ${s.asked} asked now, ${s.cached} from its journal, ${s.failed} failed${s.skipped ? `, ${s.skipped} not asked (judge unavailable)` : ''}\n`;
}

/**
 * What the judge did in a run, for the terminal: how many it read, and the items it could not decide (named, so
 * they can be looked at or retried: rerunning asks the judge again about exactly those).
 */
export function judgeFailuresLine(stats: JudgeStats, outcomes: readonly Outcome[]): string {
  const read = outcomes.filter((o) => o.extraction?.rule === 'judge').length;
  const undecided = outcomes.filter((o) => o.extraction?.judge && (o.extraction.judge.kind === 'failed' || o.extraction.judge.kind === 'unreadable-reply'));
  const none = outcomes.filter((o) => o.extraction?.judge?.kind === 'none').length;
  const lines = [`judge: ${stats.asked} asked now, ${stats.cached} from its journal; read ${read}, said "none" for ${none}`];
  if (undecided.length > 0) {
    const ids = undecided.slice(0, 10).map((o) => `${o.questionId} (${o.extraction!.judge!.kind === 'failed' ? 'judge failed' : 'unreadable reply'})`);
    lines.push(`judge could not decide ${undecided.length} item(s), which stay unparseable: ${ids.join(', ')}${undecided.length > 10 ? ', …' : ''}. Rerun the same command to ask again.`);
  }
  return `${lines.join('\n')}\n`;
}
