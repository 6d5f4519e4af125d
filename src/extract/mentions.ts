import { LETTERS, type Letter } from '../core/question.js';
import { NONE_OR_ALL } from './cues.js';

/**
 * What a mention names: an option, a letter or number outside A–D (`invalid`), or "none / all of the above"
 * (when no option says so).
 */
export type Named = Letter | 'invalid' | 'none' | 'all';

/** One place a statement names an option: by its letter, its text, or an ordinal ("the second option"). */
export interface Mention {
  named: Named;
  kind: 'letter' | 'text' | 'ordinal' | 'none-or-all';
  /** Span in the statement, including the option text read together with its letter ("B. Right upper lobe"). */
  start: number;
  end: number;
  /**
   * Counts only with a cue right before it or a commitment after it: lowercase letters ("b" is often not a
   * letter), and option texts that are ordinary words ("Yes", "Small").
   */
  weak: boolean;
  /** Written as a list label at the start of a line ("B. …", "(C) …"). */
  label: boolean;
}

/** Words after which a capital "A" (or a lowercase letter) is the option, not the article "a". */
const LETTER_FOLLOW = new Set(
  'because since as is was seems appears fits fit matches describes best correctly would should could given due per from based it to for here then and or but with over rather instead not vs versus imo tbh lol though although makes looks remains stands wins again too also definitely obviously clearly are has had being which that this on in at if unless so thus therefore hence without plus seem i im i\'m i\'d i\'ll we you they\'re its it\'s fr ngl honestly the my our their these those what when where how why who an o ou y e und oder et или и'.split(' '),
);
/** Words that make the next capital letter a name, not an option ("Kerley B lines", "hepatitis C", "type A"). */
const NOT_AN_OPTION_BEFORE = /(?:\b(?:type|grade|stage|class|group|zone|kerley|vitamin|hepatitis|hep|stanford|debakey|lead|appendix|figure|fig|table|section|point|step|plan|level|phase|image|panel|series|part|segment|category|pattern|subtype|cluster|tier|region|vertebra|protein|factor|complex|hemophilia|haemophilia|influenza|flu|strep|streptococcus|clostridium|plasmodium|team|bed|ward|unit|room|cohort|arm|site|rating|score|lane|line\s+type)\.?\s+|\d\s?°?|°|[A-Za-z]-)$/i;
const LETTER_TOKEN = /(?<![A-Za-z0-9\u00C0-\u024F_])([A-Ja-d])(?![A-Za-z0-9\u00C0-\u024F_])/g;
const ORDINAL_WORDS: Record<string, number> = {
  first: 1, '1st': 1, one: 1, second: 2, '2nd': 2, two: 2, third: 3, '3rd': 3, three: 3, fourth: 4, '4th': 4, four: 4,
  fifth: 5, '5th': 5, five: 5, sixth: 6, '6th': 6, six: 6, last: 4, final: 4, bottom: 4, top: 1, penultimate: 3, 'second-to-last': 3, 'second to last': 3,
};
const ORDINAL_WORD = String.raw`(second[-\s]to[-\s]last|penultimate|first|second|third|fourth|fifth|sixth|1st|2nd|3rd|4th|5th|6th|last|final|top|bottom)`;
const ORDINAL = new RegExp(
  String.raw`\b(?:the\s+)?${ORDINAL_WORD}\s+(?:one|option|choice|(?<!final\s|last\s)answer(?:\s+choice)?|alternative|listed\s+option|item)\b` +
    String.raw`|\b(?:option|choice|answer|alternative)\s*(?:number\s*|no\.?\s*|#\s*)?([1-9]|one|two|three|four|five|six)\b(?![.,]\d)` +
    String.raw`|#([1-9])\b|\bnumber\s+([1-4])\b(?=\s*(?:[.,;:!)—-]|$))` +
    String.raw`|\bthe\s+${ORDINAL_WORD}\b(?=\s*(?:[.,;:!)—-]|$|\s(?:or|and)\s))` +
    String.raw`|(?:^|[\n.!?])[ \t]*(1st|2nd|3rd|4th|last)\b(?=\s*(?:[.,;:!)—-]|$))` +
    String.raw`|\b${ORDINAL_WORD}(?=\s+(?:or|and|\/)\s+(?:the\s+)?${ORDINAL_WORD})`,
  'gid',
);

const NONE_OR_ALL_GLOBAL = new RegExp(NONE_OR_ALL.source, 'gi');
/** Whether a text can hold an ordinal at all: an ordinal word, or a number after a word that names an option. */
const MAYBE_ORDINAL = /(?:first|second|third|fourth|fifth|sixth|\dst|\dnd|\drd|\dth|last|final|top|bottom|penultimate)\b|(?:option|choice|answer|alternative|number)\s*(?:number\s*|no\.?\s*|#\s*)?(?:[1-9]|one|two|three|four|five|six)\b|#[1-9]/i;

/** An option text prepared for matching: lower case, only letters and digits, single spaces. */
function foldWords(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
}

/** Option texts that are everyday words: mentioned constantly in prose, so they count only with a cue. */
function isOrdinaryText(needle: string): boolean {
  return needle.length < 6 || (!needle.includes(' ') && needle.length < 9) || /^\d+(?:\s\w+)?$/.test(needle);
}

/** Prepared option texts of a question (folded once per output). */
export interface PreparedOptions {
  /** The option texts as given. */
  raw: readonly string[] | undefined;
  /** Per option: its folded words, and whether they are everyday words. */
  texts: { letter: Letter; needle: string; words: string[]; ordinary: boolean }[];
  /** Options whose text is itself "none of the above" / "all of the above". */
  saysNone: Letter | null;
  saysAll: Letter | null;
}

/** Prepares the four option texts for matching. */
export function prepareOptions(options: readonly string[] | undefined): PreparedOptions {
  const texts = (options ?? []).slice(0, 4).map((o, i) => {
    const needle = foldWords(o);
    return { letter: LETTERS[i]!, needle, words: needle.split(' '), ordinary: isOrdinaryText(needle) };
  }).filter((t) => t.needle.length >= 2);
  const says = (re: RegExp) => texts.find((t) => re.test(t.needle))?.letter ?? null;
  return { raw: options, texts, saysNone: says(/^none of (?:the )?(?:above|these|them)/), saysAll: says(/^all of (?:the )?above/) };
}

/**
 * The mentions found once per output and shared by its statements (each takes its share by offset): option
 * texts (whole words, case and punctuation ignored, the longest option where two overlap), ordinals ("the
 * second option", "option 3"), and "none / all of the above".
 */
export function findOutputMentions(text: string, options: PreparedOptions): Mention[] {
  const found = textMentions(text, options);
  const taken = (start: number, end: number) => found.some((m) => start < m.end && end > m.start);
  const extra: Mention[] = [];
  for (const m of MAYBE_ORDINAL.test(text) ? text.matchAll(ORDINAL) : []) {
    const word = (m[1] ?? m[5] ?? m[6] ?? m[7] ?? m[8])?.toLowerCase().replace(/[-\s]+/g, (s) => (s.trim() === '' ? ' ' : '-'));
    const digit = (m[2] ?? m[3] ?? m[4])?.toLowerCase();
    const n = word !== undefined ? (ORDINAL_WORDS[word] ?? ORDINAL_WORDS[word.replace(/-/g, ' ')]) : digit !== undefined ? (ORDINAL_WORDS[digit] ?? Number(digit)) : undefined;
    // The sentence-start form matches the character before the ordinal too: the mention starts at the word.
    const start = m[6] !== undefined ? m.indices![6]![0] : m.index;
    if (n === undefined || Number.isNaN(n) || taken(start, m.index + m[0].length)) continue;
    extra.push({ named: n >= 1 && n <= 4 ? LETTERS[n - 1]! : 'invalid', kind: 'ordinal', start, end: m.index + m[0].length, weak: false, label: false });
  }
  for (const m of text.matchAll(NONE_OR_ALL_GLOBAL)) {
    if (taken(m.index, m.index + m[0].length)) continue;
    const said = m[1] ? options.saysNone : m[2] ? options.saysAll : options.saysNone;
    const named: Named = said ?? (m[2] ? 'all' : 'none');
    extra.push({ named, kind: said ? 'text' : 'none-or-all', start: m.index, end: m.index + m[0].length, weak: false, label: false });
  }
  return [...found, ...extra].sort((a, b) => a.start - b.start);
}

/**
 * Every mention of an option in one statement, in order; mentions never overlap. `shared` holds the mentions
 * of the whole output found once ({@link findOutputMentions}) and where the statement starts in it; without
 * it the statement is searched alone. `lineStart` says the statement starts a line (where list labels are).
 */
export function findMentions(unit: string, options: PreparedOptions, lineStart: boolean, shared?: { all: readonly Mention[]; offset: number }): Mention[] {
  const all = shared ?? { all: findOutputMentions(unit, options), offset: 0 };
  const inside = sliceMentions(all.all, all.offset, all.offset + unit.length);
  const texts = inside.filter((m) => m.kind === 'text');
  const letters = letterMentions(unit, lineStart).filter((l) => !inside.some((t) => l.start >= t.start && l.end <= t.end));
  return [...mergeLettersWithText(unit, letters, texts), ...inside.filter((m) => m.kind !== 'text')].sort((a, b) => a.start - b.start);
}

/** The mentions (sorted by start) that lie in [from, to), made relative to `from`. */
function sliceMentions(all: readonly Mention[], from: number, to: number): Mention[] {
  let lo = 0;
  let hi = all.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (all[mid]!.start < from) lo = mid + 1;
    else hi = mid;
  }
  const out: Mention[] = [];
  for (let i = lo; i < all.length && all[i]!.start < to; i++) {
    const m = all[i]!;
    if (m.end <= to) out.push({ ...m, start: m.start - from, end: m.end - from });
  }
  return out;
}

/** More letter tokens than this in one statement is a list or a loop; reading stops there. */
export const MAX_LETTERS = 48;

function letterMentions(unit: string, lineStart: boolean): Mention[] {
  const out: Mention[] = [];
  for (const m of unit.matchAll(LETTER_TOKEN)) {
    if (out.length > MAX_LETTERS) break;
    const raw = m[1]!;
    const start = m.index;
    const after = unit.slice(start + 1, start + 40);
    const before = unit.slice(Math.max(0, start - 24), start);
    if (/^[-‐–]\s?[\p{L}\p{N}]/u.test(after) && !/^[-–]\s/.test(after)) continue; // "B-lines", "A-P", "D-dimer"
    if (/^['’][a-z]/.test(after) || /^\.[a-z]\./i.test(after)) continue; // "a.m.", possessives
    if (/[A-Za-z]['’]$/.test(before)) continue; // contractions: "I'd", "we'd"
    if (NOT_AN_OPTION_BEFORE.test(before)) continue;
    const slashed = /([A-Za-z0-9]+)\/$/.exec(before)?.[1];
    if (slashed !== undefined && !/^[A-Da-d]$/.test(slashed)) continue; // "N/A", "w/o" — but "B/C" joins two options
    const lower = raw === raw.toLowerCase();
    const upper = !lower;
    if (upper && raw > 'D' && !/^[\s*_)\]"'”’.:!,]*$|^[\s*_)\]"'”’]*[.:!,)(]/.test(after)) continue; // E–J only as a letter on its own
    if (lower && (/^\/[a-z]/i.test(after) || /[A-Za-z0-9]\/$/.test(before))) continue; // "b/l", "c/w", "d/t", "w/ a" is handled by cues
    if (lower && /^\.\s*\d/.test(after)) continue; // "c. 5 cm" (circa)
    const nextWord = /^\s+[*_"'“]*([\p{L}'’]+)/u.exec(after)?.[1];
    if ((raw === 'A' || raw === 'a') && nextWord && !LETTER_FOLLOW.has(nextWord.toLowerCase()) && /^\s+[*_"'“]*\p{L}/u.test(after)) {
      // "A small effusion", "a large one": the article — unless it reads as a label ("A. …", "A) …" handled above).
      if (!(upper && /^\p{Lu}{2,}/u.test(nextWord) && !/^\p{Lu}+$/u.test(nextWord))) {
        out.push({ named: 'A', kind: 'letter', start, end: start + 1, weak: true, label: false, article: true } as Mention & { article: true });
        continue;
      }
    }
    const bracketed = /[(\[]\s*$/.test(before) && /^\s*[)\]]/.test(after);
    // A list label ("B. …", "(C) …") at the start of a line — not "(A) and (B) …", which names two options.
    const label = lineStart && unit.slice(0, start).trim().replace(/[*_#>(\[\s-]/g, '') === '' && /^[).:\]]/.test(after) && !/^[).:\]*_\s]*(?:and|or|&|\/|,)\s/i.test(after);
    out.push({ named: raw > 'D' && upper ? 'invalid' : (raw.toUpperCase() as Letter), kind: 'letter', start, end: start + 1, weak: lower && !bracketed && !label, label });
  }
  return out;
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/** Whether the character at `i` is a letter or digit (ASCII answered without a regex: it is most of the text). */
function isWordChar(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  if (Number.isNaN(c)) return false;
  if (c < 128) return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57);
  return LETTER_OR_DIGIT.test(text[i]!);
}

/**
 * Where an option's words occur in order in `lower` (the text in lower case), anything but letters and digits
 * between them, as whole words. A plain scan: a compiled pattern per option cost milliseconds per output,
 * because every question has its own options.
 */
function findWords(lower: string, words: readonly string[]): [number, number][] {
  const found: [number, number][] = [];
  const first = words[0]!;
  for (let at = lower.indexOf(first); at !== -1; at = lower.indexOf(first, at + 1)) {
    if (isWordChar(lower, at - 1)) continue;
    let pos = at + first.length;
    let ok = true;
    for (let w = 1; w < words.length && ok; w++) {
      const gapStart = pos;
      while (pos < lower.length && !isWordChar(lower, pos)) pos++;
      ok = pos > gapStart && lower.startsWith(words[w]!, pos);
      pos += words[w]!.length;
    }
    if (ok && !isWordChar(lower, pos)) found.push([at, pos]);
  }
  return found;
}

/** Option texts named in a text (whole words, case and punctuation ignored), longest first where they overlap. */
function textMentions(text: string, options: PreparedOptions): Mention[] {
  if (options.texts.length === 0) return [];
  const lower = text.toLowerCase();
  // Lower-casing keeps the length for the scripts options are written in; where it does not, offsets would drift.
  if (lower.length !== text.length) return [];
  const found: Mention[] = [];
  for (const { letter, words, ordinary } of options.texts) {
    for (const [start, end] of findWords(lower, words)) found.push({ named: letter, kind: 'text', start, end, weak: ordinary, label: false });
  }
  found.sort((a, b) => b.end - b.start - (a.end - a.start));
  const kept: Mention[] = [];
  for (const m of found) if (!kept.some((k) => m.start < k.end && m.end > k.start)) kept.push(m);
  return kept.sort((a, b) => a.start - b.start);
}

/**
 * Reads a letter and its own option text as one mention ("B. Right upper lobe", "aspergilloma (C)"), so the
 * words of the option are not mistaken for what is said about it. A letter followed by ANOTHER option's text
 * ("A left pleural effusion") after the article is the article: it is dropped.
 */
function mergeLettersWithText(unit: string, letters: Mention[], texts: Mention[]): Mention[] {
  const out: Mention[] = [];
  const usedTexts = new Set<Mention>();
  for (const l of letters) {
    const article = (l as Mention & { article?: boolean }).article === true;
    const textAfter = texts.find((t) => t.start > l.end && t.start - l.end <= 6 && /^[\s.):\]*_\-–—=:>,]*$/.test(unit.slice(l.end, t.start)));
    if (textAfter && textAfter.named === l.named) {
      usedTexts.add(textAfter);
      out.push({ named: l.named, kind: 'letter', start: l.start, end: textAfter.end, weak: l.weak && !l.label && !article, label: l.label });
      continue;
    }
    if (article) continue;
    if (textAfter && /^[.):\]\s*_\-–—]*$/.test(unit.slice(l.end, textAfter.start)) && /[.):\]\-–—]/.test(unit.slice(l.end, textAfter.start))) {
      // "A. Right upper lobe" where A is another option: the letter and the words contradict each other.
      usedTexts.add(textAfter);
      out.push({ named: 'invalid', kind: 'letter', start: l.start, end: textAfter.end, weak: false, label: l.label });
      continue;
    }
    const textBefore = texts.find((t) => t.named === l.named && t.end <= l.start && l.start - t.end <= 4 && /^[\s*_]*[(\[]?\s*$/.test(unit.slice(t.end, l.start)));
    if (textBefore) {
      usedTexts.add(textBefore);
      const close = /^\s*[)\]]/.exec(unit.slice(l.end, l.end + 4));
      out.push({ ...l, start: textBefore.start, end: close ? l.end + close[0].length : l.end, weak: false });
      continue;
    }
    out.push(l);
  }
  for (const t of texts) if (!usedTexts.has(t)) out.push(t);
  return out;
}
