import { readFileSync } from 'node:fs';
import { parse as parseCsv } from 'csv-parse/sync';
import { CxrError } from '../core/errors.js';
import type { ModelAdapter } from './adapter.js';

/** Predictions made elsewhere, by question id: raw text or a letter, to be extracted and scored like any model's. */
export type ReplayPredictions = Map<string, string>;

function fromValue(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return null;
}

const TEXT_FIELDS = ['model_prediction', 'prediction', 'output', 'response', 'answer'];

/**
 * Reads predictions from a ReXrank JSON (the input records, each with `model_prediction`), a JSONL file (lines
 * `{id, prediction}`; `output`/`model_prediction`/`response` also accepted) or a CSV with columns `id,prediction`.
 * Every problem names the file and the record.
 */
export function readReplayFile(file: string): ReplayPredictions {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new CxrError('unreadable-file', `${file}: cannot read the predictions file`);
  }
  const out: ReplayPredictions = new Map();
  const add = (id: string, value: unknown, where: string) => {
    const prediction = fromValue(value);
    if (prediction === null) throw new CxrError('unreadable-file', `${file}: ${where} has no prediction (expected one of ${TEXT_FIELDS.join(', ')} as text)`);
    if (out.has(id)) throw new CxrError('unreadable-file', `${file}: ${where} repeats id "${id}"`);
    out.set(id, prediction);
  };
  const pick = (record: Record<string, unknown>) => TEXT_FIELDS.map((f) => record[f]).find((v) => v !== undefined);
  if (file.endsWith('.csv')) {
    const rows = parseCsv(text, { columns: true, bom: true, skip_empty_lines: true }) as Record<string, string>[];
    rows.forEach((row, i) => {
      if (row.id === undefined) throw new CxrError('unreadable-file', `${file}: expected a header row with columns id,prediction`);
      add(row.id, pick(row), `row ${i + 2}`);
    });
    return out;
  }
  if (file.endsWith('.jsonl')) {
    text.split('\n').forEach((line, i) => {
      if (line.trim() === '') return;
      let record: Record<string, unknown>;
      try {
        record = JSON.parse(line) as Record<string, unknown>;
      } catch (error) {
        throw new CxrError('unreadable-file', `${file}: line ${i + 1} is not JSON (${(error as Error).message})`);
      }
      const id = fromValue(record.id ?? record.question_id);
      if (id === null) throw new CxrError('unreadable-file', `${file}: line ${i + 1} has no "id"`);
      add(id, pick(record), `line ${i + 1}`);
    });
    return out;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new CxrError('unreadable-file', `${file}: not JSON (${(error as Error).message}); expected a ReXrank prediction JSON, .jsonl or .csv`);
  }
  if (!json || typeof json !== 'object' || Array.isArray(json)) throw new CxrError('unreadable-file', `${file}: expected one JSON object keyed by question id (ReXrank format)`);
  for (const [id, record] of Object.entries(json as Record<string, unknown>)) {
    if (!record || typeof record !== 'object') throw new CxrError('unreadable-file', `${file}: record "${id}" is not an object`);
    add(id, pick(record as Record<string, unknown>), `record "${id}"`);
  }
  return out;
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
