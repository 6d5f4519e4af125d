/** One record as a source file holds it, before normalisation, with its place in the file. */
export interface SourceRecord {
  file: string;
  split: string;
  key: string;
  /** 1-based line (and column, when known) and byte offset where the record starts. */
  line: number;
  column: number;
  byteOffset: number;
  /** The parsed value, or undefined when the record's text is not valid JSON (see `syntaxError`). */
  value?: unknown;
  /** Why the record's text could not be parsed, with its absolute line and column. */
  syntaxError?: string;
  /** The record carries no key of its own (a JSONL line without "id"); `key` is then `line <n>`. */
  keyMissing?: boolean;
  /** The record had bare NaN/Infinity/None that were replaced by sentinels before parsing. */
  bareWordsReplaced: boolean;
}
