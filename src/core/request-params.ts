import { CxrError } from './errors.js';

/**
 * Request options sent as given in the chat request body (`eval --param key=<json>`, or a preset's): the
 * fields servers add to the OpenAI shape — `chat_template_kwargs` (vLLM, SGLang), `top_k`, `min_p`,
 * `repetition_penalty`, `reasoning_effort`, `max_completion_tokens`… Keys are sorted, so the same options
 * given in another order are the same run.
 */
export type RequestParams = Record<string, unknown>;

/**
 * Body fields cxrbench sets itself, and what sets them instead. A `--param` for one of them is refused: two
 * ways to say one thing would leave the manifest unsure which one was sent.
 */
const FIELDS_WITH_A_FLAG: Record<string, string> = {
  model: 'use --model',
  messages: 'the prompt builds them: use --prompt',
  temperature: 'use --temperature',
  max_tokens: 'use --max-tokens (or --param max_completion_tokens=<n> for endpoints that refuse max_tokens)',
  top_p: 'use --top-p',
  seed: 'use --seed',
  stream: 'cxrbench reads one whole reply per request',
  n: 'cxrbench reads one reply per request',
};

/** Parses one `--param key=<json>`; a bad one is a `bad-option` error naming it and saying how to write it. */
export function parseRequestParam(text: string): [string, unknown] {
  const at = text.indexOf('=');
  if (at <= 0) throw new CxrError('bad-option', `--param ${text}: expected key=<JSON value>, e.g. --param top_k=20 or --param chat_template_kwargs='{"enable_thinking":true}'`);
  const key = text.slice(0, at).trim();
  const why = FIELDS_WITH_A_FLAG[key];
  if (why !== undefined) throw new CxrError('bad-option', `--param ${key}: cxrbench sets "${key}" itself; ${why}`);
  try {
    return [key, JSON.parse(text.slice(at + 1))];
  } catch (error) {
    throw new CxrError('bad-option', `--param ${text}: the value is not JSON (${(error as Error).message}); write strings in quotes, e.g. --param reasoning_effort='"high"'`);
  }
}

/** A preset's options overlaid with the `--param`s given (a later one wins), keys sorted. */
export function mergeRequestParams(base: RequestParams, given: readonly string[]): RequestParams {
  const merged: RequestParams = { ...base };
  for (const text of given) {
    const [key, value] = parseRequestParam(text);
    merged[key] = value;
  }
  return Object.fromEntries(Object.entries(merged).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
