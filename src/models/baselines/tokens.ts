/** Words too common to tell options apart. */
const STOPWORDS = new Set(
  'a an the of in on at to and or is are was were be been with without for from by as this that these those there it its which what where who whom whose how does do did no not any some both either neither than then into onto over under per seen noted visible present study image images film radiograph chest x ray'.split(' '),
);

/** Lowercase word tokens (letters and digits), with a plural "s" folded. */
export function tokens(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).map((t) => (t.length > 3 && t.endsWith('s') && !t.endsWith('ss') ? t.slice(0, -1) : t));
}

/** Tokens that carry content (no stopwords). */
export function contentTokens(text: string): string[] {
  return tokens(text).filter((t) => !STOPWORDS.has(t));
}

export { fnv1a } from '../../core/fnv1a.js';
