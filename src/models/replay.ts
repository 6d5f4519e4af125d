import { CxrError } from '../core/errors.js';
import { formatOfFileName, parsePredictions, repeatedIdsMessage } from '../core/prediction-file.js';
import type { ModelAdapter } from './adapter.js';

/** Predictions made elsewhere, by question id: raw text or a letter, to be extracted and scored like any model's. */
export type ReplayPredictions = Map<string, string>;

/**
 * Reads predictions from a ReXrank JSON (the input records, each with `model_prediction`), a JSONL file (lines
 * `{id, prediction}`; `output`/`model_prediction`/`response` also accepted) or a CSV with columns `id,prediction`,
 * given the file's text (the caller reads it, within its size limits). Repeated ids are refused, naming them;
 * otherwise the first problem found is reported, naming the file and the record.
 */
export function parseReplayFile(file: string, text: string): ReplayPredictions {
  const { predictions, problems } = parsePredictions(text, formatOfFileName(file));
  const repeated = repeatedIdsMessage(problems);
  if (repeated) throw new CxrError('unreadable-file', `${file}: ${repeated}`);
  if (problems.length > 0) throw new CxrError('unreadable-file', `${file}: ${problems[0]!.message}${problems.length > 1 ? ` (and ${problems.length - 1} more problem(s))` : ''}`);
  return predictions;
}

/** An adapter that answers each question with the stored prediction; a question without one ends in error. */
export function replayAdapter(file: string, predictions: ReplayPredictions): ModelAdapter {
  return {
    spec: { kind: 'replay', name: `replay:${file.split('/').pop()}`, baseline: false, args: { file, count: predictions.size } },
    needsImages: false,
    async generate(request) {
      const text = predictions.get(request.questionId);
      if (text === undefined) throw new Error(`no prediction for question "${request.questionId}" in ${file}`);
      return { text };
    },
    classifyError: (error) => ({ kind: 'client', message: error instanceof Error ? error.message : String(error) }),
  };
}
