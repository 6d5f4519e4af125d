import { replaceBareWords } from '../bare-words.js';

/** The parsed value of one record's JSON text, or where and why the text is not JSON. */
export type ParsedText = { ok: true; value: unknown; bareWordsReplaced: boolean } | { ok: false; message: string; line: number; column: number };

/**
 * Parses one record's text with the native JSON parser, first replacing bare NaN/None when the scanner saw
 * any. On failure, returns the position inside the text (1-based line and column) so callers can make it
 * absolute in the file.
 */
export function parseRecordText(text: string, mayHaveBareWords: boolean): ParsedText {
  const prepared = mayHaveBareWords ? replaceBareWords(text) : text;
  try {
    return { ok: true, value: JSON.parse(prepared), bareWordsReplaced: prepared !== text };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const position = /position (\d+)/.exec(message);
    // Positions refer to `prepared`; sentinels only lengthen text after bare words, which is rare next to an error.
    const offset = position ? Math.min(Number(position[1]), text.length) : 0;
    const before = text.slice(0, offset);
    const line = before.split('\n').length;
    const column = offset - before.lastIndexOf('\n');
    return { ok: false, message: message.replace(/^JSON\.parse: /, ''), line, column };
  }
}
