import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Question } from '../../core/question.js';
import { toOfficialRecord } from '../../core/official-record.js';
import { parseRecordText } from './parse-record-text.js';
import type { SourceRecord } from './source-record.js';
import { writeFileAtomically } from './atomic-write.js';

/** The field that carries the question key on each JSONL line (the key of the official JSON object). */
export const JSONL_KEY_FIELD = 'id';

/**
 * Streams the records of a JSONL question file: one official record per line, plus its key in `id`.
 * Blank lines are skipped. A line that is not JSON is yielded with `syntaxError`.
 */
export async function* readJsonl(file: string, split: string): AsyncGenerator<SourceRecord> {
  const lines = createInterface({ input: createReadStream(file, { highWaterMark: 1 << 20 }), crlfDelay: Infinity });
  let lineNumber = 0;
  let byteOffset = 0;
  for await (const text of lines) {
    lineNumber++;
    const start = byteOffset;
    byteOffset += Buffer.byteLength(text) + 1;
    if (text.trim() === '') continue;
    const place = { file, split, line: lineNumber, column: 1, byteOffset: start };
    const parsed = parseRecordText(text, /[A-Z_]/.test(text));
    if (!parsed.ok) {
      yield { ...place, key: `line ${lineNumber}`, syntaxError: `${parsed.message} (line ${lineNumber}, column ${parsed.column})`, bareWordsReplaced: false };
      continue;
    }
    const value = parsed.value;
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const { [JSONL_KEY_FIELD]: id, ...record } = value as Record<string, unknown>;
      if (typeof id === 'string' || typeof id === 'number') {
        yield { ...place, key: String(id), value: record, bareWordsReplaced: parsed.bareWordsReplaced };
        continue;
      }
      yield { ...place, key: `line ${lineNumber}`, keyMissing: true, value: record, bareWordsReplaced: parsed.bareWordsReplaced };
      continue;
    }
    yield { ...place, key: `line ${lineNumber}`, value, bareWordsReplaced: parsed.bareWordsReplaced };
  }
}

/** Serialises one question as a JSONL line (no trailing newline): its key in `id`, then the official record. */
export function toJsonlLine(question: Question): string {
  return JSON.stringify({ [JSONL_KEY_FIELD]: question.id, ...toOfficialRecord(question) });
}

/** Writes questions as JSONL, atomically: the file appears complete or not at all. */
export async function writeJsonl(questions: AsyncIterable<Question> | Iterable<Question>, file: string): Promise<number> {
  return writeFileAtomically(file, async function* () {
    for await (const q of questions) yield `${toJsonlLine(q)}\n`;
  });
}
