import { parse as parseCsv } from 'csv-parse/sync';
import { describeBinary } from './binary-signature.js';
import { repeatedTopLevelKeys } from './repeated-json-keys.js';

/** Formats of a predictions file: ReXrank JSON (`{id: {…, model_prediction}}`), JSONL lines `{id, prediction}`, CSV `id,prediction`. */
export type PredictionFormat = 'rexrank-json' | 'jsonl' | 'csv';

/** One problem of a predictions file, naming where it is. */
export interface PredictionFileProblem {
  code: 'not-parseable' | 'no-id' | 'no-prediction' | 'duplicate-id';
  /** "line 3", "row 4", "record \"q1\"", or "file". */
  where: string;
  id?: string;
  message: string;
}

/** Predictions by question id (raw model text or a letter), and every problem found. */
export interface ParsedPredictions {
  predictions: Map<string, string>;
  problems: PredictionFileProblem[];
  /**
   * Ids whose record says the reply was cut at the token limit (`"finish_reason": "length"`, as `cxrbench eval`
   * writes in its ReXrank file): an answer that cannot be read there is counted truncated, not unparseable.
   */
  cutShort: Set<string>;
}

/** Fields that may hold the prediction, in order of preference. */
export const PREDICTION_FIELDS = ['model_prediction', 'prediction', 'output', 'response', 'answer'] as const;

/** The format a file name suggests (`.csv`, `.jsonl`, anything else is ReXrank JSON). */
export function formatOfFileName(name: string): PredictionFormat {
  const lower = name.toLowerCase();
  if (lower.endsWith('.csv')) return 'csv';
  if (lower.endsWith('.jsonl') || lower.endsWith('.ndjson')) return 'jsonl';
  return 'rexrank-json';
}

/**
 * One line naming the ids a file repeats — the first few and how many — or null when none repeats: a command
 * that reads a predictions file refuses it then, rather than keeping one of the answers unseen.
 */
export function repeatedIdsMessage(problems: readonly PredictionFileProblem[]): string | null {
  const ids = [...new Set(problems.filter((p) => p.code === 'duplicate-id').map((p) => p.id ?? p.where))];
  if (ids.length === 0) return null;
  const shown = ids.slice(0, 5).map((id) => `"${id}"`).join(', ');
  return `${ids.length} id(s) appear more than once (${shown}${ids.length > 5 ? `, and ${ids.length - 5} more` : ''}); give each id once`;
}

function asText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return null;
}

/**
 * Reads a predictions file's text. Never throws: every problem (unparseable lines, missing ids or predictions,
 * repeated ids, also as repeated keys of a JSON object) is listed, so an uploader sees them all at once. The
 * first prediction of a repeated id is kept (of a JSON object's, the last: JSON.parse's choice).
 */
export function parsePredictions(content: string, format: PredictionFormat): ParsedPredictions {
  // Files saved on Windows or by Excel start with a byte-order mark and end lines with CRLF: both are accepted.
  const text = content.charCodeAt(0) === 0xfeff ? content.slice(1) : content;
  const predictions = new Map<string, string>();
  const problems: PredictionFileProblem[] = [];
  const cutShort = new Set<string>();
  const binary = describeBinary(text);
  if (binary) {
    problems.push({ code: 'not-parseable', where: 'file', message: `this looks like ${binary}; expected ReXrank JSON, JSONL or CSV predictions (text)` });
    return { predictions, problems, cutShort };
  }
  const pick = (record: Record<string, unknown>) => PREDICTION_FIELDS.map((f) => record[f]).find((v) => v !== undefined);
  const add = (id: string, value: unknown, where: string, finishReason?: unknown) => {
    const prediction = asText(value);
    if (prediction === null) problems.push({ code: 'no-prediction', where, id, message: `${where} has no prediction (expected one of ${PREDICTION_FIELDS.join(', ')} as text)` });
    else if (predictions.has(id)) problems.push({ code: 'duplicate-id', where, id, message: `${where} repeats id "${id}"` });
    else {
      predictions.set(id, prediction);
      if (finishReason === 'length') cutShort.add(id);
    }
  };

  if (format === 'csv') {
    let rows: Record<string, string>[];
    try {
      rows = parseCsv(text, { columns: true, bom: true, skip_empty_lines: true }) as Record<string, string>[];
    } catch (error) {
      problems.push({ code: 'not-parseable', where: 'file', message: `not a CSV file (${(error as Error).message})` });
      return { predictions, problems, cutShort };
    }
    rows.forEach((row, i) => {
      const where = `row ${i + 2}`;
      if (row.id === undefined || row.id === '') problems.push({ code: 'no-id', where, message: `${where} has no id (expected a header row with columns id,prediction)` });
      else add(row.id, pick(row), where);
    });
    return { predictions, problems, cutShort };
  }

  if (format === 'jsonl') {
    text.split('\n').forEach((raw, i) => {
      const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
      if (line.trim() === '') return;
      const where = `line ${i + 1}`;
      let record: unknown;
      try {
        record = JSON.parse(line);
      } catch (error) {
        problems.push({ code: 'not-parseable', where, message: `${where} is not JSON (${(error as Error).message})` });
        return;
      }
      if (!record || typeof record !== 'object' || Array.isArray(record)) {
        problems.push({ code: 'not-parseable', where, message: `${where} is not a JSON object` });
        return;
      }
      const r = record as Record<string, unknown>;
      const id = asText(r.id ?? r.question_id);
      if (id === null) problems.push({ code: 'no-id', where, message: `${where} has no "id"` });
      else add(id, pick(r), where, r.finish_reason);
    });
    return { predictions, problems, cutShort };
  }

  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    problems.push({ code: 'not-parseable', where: 'file', message: `not JSON (${(error as Error).message}); expected a ReXrank prediction JSON, .jsonl or .csv` });
    return { predictions, problems, cutShort };
  }
  if (!json || typeof json !== 'object' || Array.isArray(json)) {
    problems.push({ code: 'not-parseable', where: 'file', message: 'expected one JSON object keyed by question id (ReXrank format)' });
    return { predictions, problems, cutShort };
  }
  // JSON.parse keeps the last record of a repeated id: the repeats are found in the text and listed.
  for (const [id, times] of repeatedTopLevelKeys(text, Object.keys(json).length)) {
    problems.push({ code: 'duplicate-id', where: `record "${id}"`, id, message: `record "${id}" appears ${times} times (JSON keeps only the last)` });
  }
  for (const [id, record] of Object.entries(json as Record<string, unknown>)) {
    const where = `record "${id}"`;
    if (!record || typeof record !== 'object') problems.push({ code: 'not-parseable', where, id, message: `${where} is not an object` });
    else add(id, pick(record as Record<string, unknown>), where, (record as Record<string, unknown>).finish_reason);
  }
  return { predictions, problems, cutShort };
}
