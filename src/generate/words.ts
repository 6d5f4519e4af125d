/** A word of a text with where it stands (UTF-16 offsets into the original text). */
export interface Word {
  text: string;
  lower: string;
  start: number;
  end: number;
}

const WORDS = new Intl.Segmenter('en', { granularity: 'word' });
const SENTENCES = new Intl.Segmenter('en', { granularity: 'sentence' });

/**
 * The words of a text, by ICU's Unicode word boundaries (Intl.Segmenter), keeping punctuation that ends a clause
 * (`,` `;` `:` `.` `(` `)` `?`) as words of their own, since negation scope stops or continues at them.
 */
export function words(text: string): Word[] {
  const out: Word[] = [];
  for (const s of WORDS.segment(text)) {
    const dash = s.segment === '-' && text[s.index - 1] === ' '; // a spaced dash separates clauses; a hyphen joins words
    if (s.isWordLike || /^[,;:.()/?]$/.test(s.segment) || dash) out.push({ text: s.segment, lower: s.segment.toLowerCase(), start: s.index, end: s.index + s.segment.length });
  }
  return out;
}

/**
 * The sentences of a text (ICU sentence boundaries), trimmed, with their offsets. Numbered list items ("1. …")
 * and abbreviations are left to ICU; a sentence that is only a list number is dropped.
 */
export function sentences(text: string): { text: string; start: number }[] {
  const out: { text: string; start: number }[] = [];
  for (const s of SENTENCES.segment(text)) {
    const trimmed = s.segment.trim();
    if (trimmed === '' || /^\d+[.)]?$/.test(trimmed)) continue;
    out.push({ text: trimmed, start: s.index + s.segment.indexOf(trimmed) });
  }
  return out;
}
