const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;

/**
 * The keys that occur more than once in the top-level object of a JSON text, with how often — `JSON.parse`
 * keeps the last of them without a word, so a file keyed by id could lose records silently. `distinct` is the
 * parsed object's key count: when the text has as many members, nothing is decoded. The text must already have
 * parsed as an object. Strings are skipped quote to quote with `indexOf`, so the scan costs little beside the parse.
 */
export function repeatedTopLevelKeys(text: string, distinct: number): Map<string, number> {
  const keySpans: number[] = []; // start and end (exclusive) of each member's key, in pairs
  let depth = 0;
  let lastString = -1; // start of the last string at depth 1
  let lastStringEnd = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      let end = text.indexOf('"', i + 1);
      while (end > 0 && isEscaped(text, end)) end = text.indexOf('"', end + 1);
      if (end < 0) break;
      if (depth === 1) [lastString, lastStringEnd] = [i, end + 1];
      i = end;
    } else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) depth--;
    else if (c === COLON && depth === 1) keySpans.push(lastString, lastStringEnd);
  }
  const repeated = new Map<string, number>();
  if (keySpans.length / 2 <= distinct) return repeated;
  const counts = new Map<string, number>();
  for (let k = 0; k < keySpans.length; k += 2) {
    const key = JSON.parse(text.slice(keySpans[k], keySpans[k + 1])) as string;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  for (const [key, n] of counts) if (n > 1) repeated.set(key, n);
  return repeated;
}

/** True when the quote at `at` is escaped (an odd number of backslashes before it). */
function isEscaped(text: string, at: number): boolean {
  let n = 0;
  for (let j = at - 1; j >= 0 && text.charCodeAt(j) === BACKSLASH; j--) n++;
  return n % 2 === 1;
}
