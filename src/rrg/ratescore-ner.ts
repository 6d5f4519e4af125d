/**
 * How RaTEScore turns RaTE-NER's per-token labels into entities, and cuts a report into the sentences it tags:
 * the rules of MAGIC-AI4Med/RaTEScore (RaTEScore/utils.py `post_process` and `sentence_split`), in our own code.
 */

/** A run of tokens tagged as one entity: token positions (inclusive) and the type from its label. */
export interface TokenSpan {
  start: number;
  end: number;
  type: string;
}

const isB = (label: string | undefined) => label?.startsWith('B-') ?? false;
const isI = (label: string | undefined) => label?.startsWith('I-') ?? false;
const isO = (label: string | undefined) => label?.startsWith('O') ?? false;

/**
 * Entity spans from the labels of one tokenized sentence, exactly as RaTEScore's post_process groups them — its
 * quirks included, because they are part of what the metric measures:
 * - a token decides by its own label and the next position's label (the special token at the end counts as "next");
 *   the last position is never a token of its own, and positions marked `skip` (the special tokens) are passed over;
 * - B followed by I opens an entity (type from the B label); B followed by B or O is a one-token entity;
 * - I followed by B or O closes the open entity at that token (an I with nothing open is dropped; after I→B the
 *   open start moves to the I token, which the B then replaces);
 * - I followed by I continues; a B or I whose next label is anything else changes nothing;
 * - an entity still open at the end closes at the position before the last — only when no earlier rule left an end
 *   position set (B→B and I→B leave it set), so such an entity is then dropped.
 */
export function bioSpans(labels: readonly string[], skip: readonly boolean[]): TokenSpan[] {
  const spans: TokenSpan[] = [];
  let start: number | null = null;
  let end: number | null = null;
  let type: string | null = null;
  for (let i = 0; i < labels.length - 1; i++) {
    const label = labels[i]!;
    if (skip[i] || label === 'O') continue;
    const next = labels[i + 1];
    if (isB(label) && isI(next)) {
      start = i;
      type = label.slice(2);
    } else if (isB(label) && isB(next)) {
      start = end = i;
      spans.push({ start: i, end: i, type: label.slice(2) });
      type = label.slice(2);
    } else if (isB(label) && isO(next)) {
      spans.push({ start: i, end: i, type: label.slice(2) });
      start = end = type = null;
    } else if (isI(label) && isB(next)) {
      end = i;
      if (start !== null) spans.push({ start, end, type: type! });
      start = i;
      type = label.slice(2);
    } else if (isI(label) && isO(next)) {
      end = i;
      if (start !== null) spans.push({ start, end, type: type! });
      start = end = type = null;
    }
  }
  if (start !== null && end === null) spans.push({ start, end: labels.length - 2, type: type! });
  return spans;
}

/**
 * A report cut into the sentences RaTE-NER tags one at a time, dropping those RaTEScore drops (no word, or fewer
 * than 3 characters once trimmed). RaTEScore cuts with medspacy's PyRuSH rules, which are not part of its
 * repository; here a sentence ends at `.`, `!` or `?` followed by white space, and at a line break. The two can cut
 * differently (abbreviations, lists), and the NER model then sees different context (docs/rrg.md).
 */
export function rateSentences(text: string): string[] {
  return text.split(/(?<=[.!?])\s+|\n+/).map((s) => s.trim()).filter((s) => s.length >= 3);
}
