/**
 * Makes record text with bare `NaN` / `Infinity` / `None` (written by pandas and Python, not valid JSON)
 * parseable, without losing track of where they were: each becomes a sentinel string that the normaliser
 * turns into null and reports as a repair of that field.
 */

/** Stand-in for a bare NaN/Infinity after parsing. The NUL byte cannot occur in real record text. */
export const NAN_SENTINEL = '\u0000cxrbench:NaN';
/** Stand-in for a bare Python None after parsing. */
export const NONE_SENTINEL = '\u0000cxrbench:None';

const STRING_OR_BARE_WORD = /"(?:[^"\\]|\\[\s\S])*"|-?\bInfinity\b|\bNaN\b|\bNone\b/g;

/** Replaces bare words outside strings by sentinel strings; strings and everything else stay as they are. */
export function replaceBareWords(text: string): string {
  return text.replace(STRING_OR_BARE_WORD, (token) => {
    if (token.startsWith('"')) return token;
    return token === 'None' ? JSON.stringify(NONE_SENTINEL) : JSON.stringify(NAN_SENTINEL);
  });
}
