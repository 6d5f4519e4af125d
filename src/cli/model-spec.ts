import { CxrError } from '../core/errors.js';
import type { Question } from '../core/question.js';
import type { ModelAdapter } from '../models/adapter.js';
import { answerLetterCounts, priorBaseline } from '../models/baselines/prior.js';
import { randomBaseline } from '../models/baselines/random.js';
import { reportOracleBaseline } from '../models/baselines/report-oracle.js';
import { textOnlyBaseline, trainTextOnly } from '../models/baselines/text-only.js';
import { AdapterConfigError, openAICompatibleAdapter } from '../models/openai-compatible.js';
import { PRESETS, type ModelPreset } from '../models/presets.js';
import { parseReplayFile, replayAdapter } from '../models/replay.js';
import { readTextFile } from './read-text-file.js';

/** Endpoint options of `eval`, for the OpenAI-compatible adapter. */
export interface EndpointOptions {
  endpoint: string[];
  apiKeyEnv?: string;
  header: string[];
  query: string[];
  systemPrompt: boolean;
  imageDetail: 'auto' | 'low' | 'high' | null;
}

/** What a model spec resolved to, plus the preset's image cap, if any. */
export interface ResolvedModel {
  adapter: ModelAdapter;
  presetMaxImages: number | null;
  /** The preset named (its request options, token default, retirement), or null. */
  preset?: ModelPreset;
}

export const MODEL_SPEC_FORMS =
  'baseline:random | baseline:prior | baseline:text-only | baseline:report-oracle | replay:<predictions file> | ' +
  `openai:<model id> (with --endpoint) | preset:<${Object.keys(PRESETS).join('|')}>`;

function pairs(values: string[], option: string): Record<string, string> {
  return Object.fromEntries(
    values.map((v) => {
      const at = v.indexOf('=');
      if (at <= 0) throw new CxrError('bad-option', `${option} ${v}: expected name=value`);
      return [v.slice(0, at), v.slice(at + 1)];
    }),
  );
}

/**
 * Turns `--model` into an adapter. Baselines that learn (prior, text-only) train on the dataset's train split,
 * given by `train`. Every configuration problem is found here, before the run starts.
 */
export async function resolveModel(spec: string, endpoint: EndpointOptions, seed: number, train: () => AsyncIterable<Question> | null): Promise<ResolvedModel> {
  const colon = spec.indexOf(':');
  const kind = colon === -1 ? spec : spec.slice(0, colon);
  const arg = colon === -1 ? '' : spec.slice(colon + 1);
  const needTrain = (name: string) => {
    const questions = train();
    if (!questions) throw new CxrError('model-config', `--model baseline:${name} learns from the train split, and this dataset has none`);
    return questions;
  };
  try {
    if (kind === 'baseline') {
      if (arg === 'random') return { adapter: randomBaseline(seed), presetMaxImages: null };
      if (arg === 'prior') return { adapter: priorBaseline(await answerLetterCounts(needTrain(arg))), presetMaxImages: null };
      if (arg === 'text-only') return { adapter: textOnlyBaseline(await trainTextOnly(needTrain(arg))), presetMaxImages: null };
      if (arg === 'report-oracle') return { adapter: reportOracleBaseline(), presetMaxImages: null };
    }
    if (kind === 'replay' && arg) return { adapter: replayAdapter(arg, parseReplayFile(arg, readTextFile(arg, 'the replay file of --model'))), presetMaxImages: null };
    const common = { apiKeyEnv: endpoint.apiKeyEnv ?? null, headers: pairs(endpoint.header, '--header'), query: pairs(endpoint.query, '--query'), imageDetail: endpoint.imageDetail };
    if (kind === 'openai' && arg) {
      if (endpoint.endpoint.length === 0) throw new CxrError('model-config', `--model ${spec} needs --endpoint <base URL> (e.g. http://127.0.0.1:8000/v1 for vLLM)`);
      return { adapter: openAICompatibleAdapter({ name: arg, model: arg, endpoints: endpoint.endpoint, systemPrompt: endpoint.systemPrompt, ...common }), presetMaxImages: null };
    }
    if (kind === 'preset' && PRESETS[arg]) {
      const preset = PRESETS[arg]!;
      const adapter = openAICompatibleAdapter({
        name: preset.name,
        model: preset.model,
        endpoints: endpoint.endpoint.length > 0 ? endpoint.endpoint : [preset.defaultBaseUrl],
        systemPrompt: preset.systemPrompt && endpoint.systemPrompt,
        ...common,
        apiKeyEnv: endpoint.apiKeyEnv ?? preset.apiKeyEnv,
      });
      return { adapter, presetMaxImages: preset.maxImages, preset };
    }
  } catch (error) {
    if (error instanceof AdapterConfigError) throw new CxrError('model-config', `--model ${spec}: ${error.message}`);
    if (error instanceof Error && !(error instanceof CxrError) && kind === 'baseline') throw new CxrError('model-config', `--model ${spec}: ${error.message}`);
    throw error;
  }
  throw new CxrError('model-config', `--model ${spec}: unknown model spec. Expected one of: ${MODEL_SPEC_FORMS}`);
}
