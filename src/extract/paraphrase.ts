import { LETTERS, type Letter } from '../core/question.js';

/**
 * The last resort of a reader when an output commits in no statement: it describes one finding in its own
 * words ("calcification of the aortic knob" for "Aortic knob calcification", "the lungs are overinflated" for
 * "Lungs are hyperinflated"). Each option is reduced to its DISTINCTIVE words — those no other option has —
 * and the output's words, outside negated clauses, are compared with them. Only an output that picks out one
 * option and touches no other is read; anything else stays unread.
 */

const STOPWORDS = new Set(
  'a an the of in on at to for with and or is are was were be been being by from as into onto than this that these those it its there here yes no not only both either due also very'.split(' '),
);
/** Radiology's interchangeable prefixes: over-/hyper- and under-/hypo- before the same root. */
const PREFIX_SYNONYMS: [RegExp, string][] = [
  [/^over(?=(?:inflat|expan|aerat|distend|distens|lucen|penetrat))/, 'hyper'],
  [/^under(?=(?:inflat|expan|aerat|penetrat))/, 'hypo'],
];
/** Words of a clause after which a finding is denied ("no …", "without …", "rather than …"). */
const NEGATION = /\b(?:no|not|without|absent|absence|rather\s+than|instead\s+of|excluding|excludes?|rules?\s+out|ruled\s+out|negative\s+for|free\s+of|unlikely|neither|nor)\b/i;

/** A crude, predictable stem: lower case, plural dropped, cut to six letters (calcification ~ calcified). */
export function stem(word: string): string {
  let w = word.toLowerCase().normalize('NFD').replace(/\p{M}/gu, '');
  for (const [re, to] of PREFIX_SYNONYMS) w = w.replace(re, to);
  if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) w = w.slice(0, -1);
  return w.length > 6 ? w.slice(0, 6) : w;
}

function contentStems(text: string): string[] {
  return (text.match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => !STOPWORDS.has(w.toLowerCase()) && !/^\d+$/.test(w)).map(stem);
}

/** The stems an output affirms: every content word outside the part of its clause that a negation governs. */
function affirmedStems(text: string): Set<string> {
  const out = new Set<string>();
  for (const clause of text.split(/[.;!?\n,()—–:]+/)) {
    const negation = NEGATION.exec(clause);
    for (const s of contentStems(negation ? clause.slice(0, negation.index) : clause)) out.add(s);
  }
  return out;
}

/**
 * The one option an output describes in its own words, or null. Read when exactly one option has all of its
 * distinctive words affirmed; or when exactly one option has any affirmed — at least half of them (or two) —
 * and at least half of all its words are affirmed (so "the heart is enlarged" is not "Normal heart size").
 */
export function describedOption(text: string, options: readonly string[] | undefined): Letter | null {
  if (!options || options.length < 2) return null;
  const stems = options.map((o) => new Set(contentStems(o)));
  const distinctive = stems.map((own, i) => [...own].filter((s) => !stems.some((other, j) => j !== i && other.has(s))));
  const affirmed = affirmedStems(text);
  const scores = distinctive.map((words, i) => {
    const matched = words.filter((w) => affirmed.has(w)).length;
    const all = [...stems[i]!];
    return { matched, share: words.length === 0 ? 0 : matched / words.length, coverage: all.length === 0 ? 0 : all.filter((w) => affirmed.has(w)).length / all.length };
  });
  const complete = scores.map((s, i) => (s.share === 1 ? i : -1)).filter((i) => i !== -1);
  if (complete.length === 1) return LETTERS[complete[0]!] ?? null;
  const touched = scores.map((s, i) => (s.matched > 0 ? i : -1)).filter((i) => i !== -1);
  if (touched.length === 1) {
    const s = scores[touched[0]!]!;
    if ((s.share >= 0.5 || s.matched >= 2) && s.coverage >= 0.5) return LETTERS[touched[0]!] ?? null;
  }
  return null;
}
