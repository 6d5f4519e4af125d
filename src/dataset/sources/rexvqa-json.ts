import { createReadStream } from 'node:fs';
import { JsonStructureError, streamObjectMembers } from './json-object-stream.js';
import { parseRecordText } from './parse-record-text.js';
import type { SourceRecord } from './source-record.js';

/** Read size for question files: large enough to keep syscalls rare, small enough to keep memory flat. */
const CHUNK_BYTES = 1 << 18;

/**
 * Streams the records of an official ReXVQA `<split>_vqa_data.json` (one object keyed by question).
 * A record whose text is not JSON is yielded with `syntaxError` and the scan goes on; a broken file
 * structure throws {@link JsonStructureError} with line, column and byte offset.
 */
export async function* readRexvqaJson(file: string, split: string): AsyncGenerator<SourceRecord> {
  const stream = createReadStream(file, { highWaterMark: CHUNK_BYTES });
  for await (const member of streamObjectMembers(stream)) {
    const parsed = parseRecordText(member.text, member.hasBareWords);
    const place = { file, split, key: member.key, line: member.line, column: member.column, byteOffset: member.byteOffset };
    if (parsed.ok) {
      yield { ...place, value: parsed.value, bareWordsReplaced: parsed.bareWordsReplaced };
    } else {
      const line = member.line + parsed.line - 1;
      const column = parsed.line === 1 ? member.column + parsed.column - 1 : parsed.column;
      yield { ...place, syntaxError: `${parsed.message} (line ${line}, column ${column})`, bareWordsReplaced: false };
    }
  }
}

export { JsonStructureError };
