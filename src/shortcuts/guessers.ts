import { LETTERS, type Letter, type Question } from '../core/question.js';
import { fnv1a } from '../core/fnv1a.js';
import { optionFeatures, predictFromFeatures, trainTextOnlyOnFeatures } from '../models/baselines/text-only.js';
import { contentTokens, tokens } from '../models/baselines/tokens.js';

/** What a blind guesser sees of a question: its wording and options, never the image or the report. */
export type BlindItem = Pick<Question, 'id' | 'split' | 'studyId' | 'task' | 'text' | 'options' | 'answer'> & {
  /** The study's image paths as written: where ties and folds need a study key that no output secret changes. */
  images?: readonly { path: string }[];
};

/**
 * A key of a question that is the same wherever its set is written: its wording, its study's image paths, and its
 * id — or, for ids generate writes (`<keyed report id>#q<n>`), only the part after `#`, since the report part is
 * keyed by a secret made per output folder. Ties and folds use it so that the audit, and the set the limit keeps,
 * depend on the corpus and seed alone, and `check --shortcuts` on the output measures what generate measured.
 */
export function stableKey(item: BlindItem): string {
  const hash = item.id.lastIndexOf('#');
  return `${item.text}\u0001${item.options.join('\u0001')}\u0001${(item.images ?? []).map((i) => i.path).join('\u0001')}\u0001${hash >= 0 ? item.id.slice(hash) : item.id}`;
}

/** A guesser ready to answer: picks a letter from the question's text alone. */
export type Guess = (item: BlindItem) => Letter;

/**
 * A blind guesser: a rule that answers without the image. Learned guessers are fitted on questions with their
 * keys (the train split, or the other half when cross-fitting); the rest need nothing.
 */
export interface BlindGuesser {
  name: string;
  /** One line for the dataset card: what it exploits. */
  description: string;
  learned: boolean;
  fit(train: readonly BlindItem[]): Guess | Promise<Guess>;
}

/**
 * Picks among tied options uniformly by a hash of the question's {@link stableKey}, so a guesser whose rule says
 * nothing about a question scores chance on it — not whatever letter comes first, which would turn an answer-letter
 * imbalance into a guesser's "skill".
 */
export function pickBest(item: BlindItem, guesser: string, scores: readonly number[]): Letter {
  const best = Math.max(...scores);
  const tied = scores.flatMap((s, i) => (s === best ? [i] : []));
  if (tied.length === 1) return LETTERS[tied[0]!]!;
  return LETTERS[tied[fnv1a(`${guesser}\u0000${stableKey(item)}`) % tied.length]!]!;
}

/** An option's text as the frequency guesser counts it: case, spacing and a closing full stop do not matter. */
export function optionKey(option: string): string {
  return option.toLowerCase().replace(/\s+/g, ' ').replace(/[.\s]+$/, '').trim();
}

const NEGATION = new Set(['no', 'not', 'none', 'absent', 'without', 'negative', 'normal', 'unremarkable', 'clear', 'neither', 'nor']);

/** Surface features of an option's form (not its meaning): an odd-one-out guesser looks for the one that differs. */
const FORM_FEATURES: ((option: string) => string)[] = [
  (o) => (tokens(o).some((t) => NEGATION.has(t)) ? 'denies' : 'asserts'),
  (o) => tokens(o)[0] ?? '',
  (o) => String(Math.min(tokens(o).length, 6)),
  (o) => (/[()]/.test(o) ? 'parenthesis' : 'plain'),
  (o) => (/\d/.test(o) ? 'digit' : 'no digit'),
];

/** Jaccard similarity of two options' word sets. */
function jaccard(a: Set<string>, b: Set<string>): number {
  let shared = 0;
  for (const t of a) if (b.has(t)) shared++;
  const union = a.size + b.size - shared;
  return union === 0 ? 1 : shared / union;
}

/**
 * Odd one out: the option whose form differs from the other three — the only denial, the only one opening with
 * another word, of another length — voted over several surface features; where no feature singles one out, the
 * option least like the others in its words.
 */
export function oddOneOut(item: BlindItem): Letter {
  return pickBest(item, 'odd-one-out', oddness(item));
}

/**
 * The opposite: never the option whose form differs ("the denial is never the key"), one of the other three — a
 * set whose odd-one-out figure is far below chance is answered above chance this way.
 */
export function notOddOneOut(item: BlindItem): Letter {
  return pickBest(item, 'not-odd-one-out', oddness(item).map((x) => -x));
}

/** How odd each option's form is among the four: votes over surface features, else how unlike the others its words are. */
function oddness(item: BlindItem): number[] {
  const votes = [0, 0, 0, 0];
  for (const feature of FORM_FEATURES) {
    const values = item.options.map(feature);
    const counts = new Map<string, number>();
    for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
    // A 3–1 split names an odd one; 2–2 or four different values name none.
    if (counts.size === 2 && [...counts.values()].includes(3)) values.forEach((v, i) => counts.get(v) === 1 && votes[i]!++);
  }
  if (votes.some((v) => v > 0)) return votes;
  const words = item.options.map((o) => new Set(tokens(o)));
  return words.map((w, i) => -words.reduce((sum, other, j) => (j === i ? sum : sum + jaccard(w, other)), 0));
}

/** Each question's text-only features, hashed once however often the audit fits and refits (an item is not changed). */
const FEATURES = new WeakMap<BlindItem, Uint32Array[]>();
function featuresOf(item: BlindItem): Uint32Array[] {
  let f = FEATURES.get(item);
  if (!f) FEATURES.set(item, (f = optionFeatures(item)));
  return f;
}

/** Each question's option keys, normalised once. */
const KEYS = new WeakMap<BlindItem, string[]>();
function keysOf(item: BlindItem): string[] {
  let k = KEYS.get(item);
  if (!k) KEYS.set(item, (k = item.options.map(optionKey)));
  return k;
}

/** The built-in blind guessers, in the order the card lists them. */
export const BLIND_GUESSERS: readonly BlindGuesser[] = [
  {
    name: 'answer-letter',
    description: 'always the answer letter most often correct in the fitting questions',
    learned: true,
    fit(train) {
      const counts = [0, 0, 0, 0];
      for (const q of train) counts[LETTERS.indexOf(q.answer)]!++;
      return (item) => pickBest(item, 'answer-letter', counts);
    },
  },
  {
    name: 'option-frequency',
    description: 'the option whose text was most often the key in the fitting questions (share key / shown, smoothed)',
    learned: true,
    fit(train) {
      const shown = new Map<string, number>();
      const keyed = new Map<string, number>();
      for (const q of train) {
        keysOf(q).forEach((k, i) => {
          shown.set(k, (shown.get(k) ?? 0) + 1);
          if (LETTERS[i] === q.answer) keyed.set(k, (keyed.get(k) ?? 0) + 1);
        });
      }
      // Smoothed towards chance (1 in 4), so a text seen once as the key does not outrank one seen 50 times at 60%.
      const rate = (k: string) => ((keyed.get(k) ?? 0) + 1) / ((shown.get(k) ?? 0) + 4);
      return (item) => pickBest(item, 'option-frequency', keysOf(item).map(rate));
    },
  },
  {
    name: 'odd-one-out',
    description: 'the option whose form differs from the other three (the only denial, another first word or length), else the one least like the others',
    learned: false,
    fit: () => oddOneOut,
  },
  {
    name: 'not-odd-one-out',
    description: 'never the option whose form differs (e.g. never the denial): one of the other three',
    learned: false,
    fit: () => notOddOneOut,
  },
  {
    name: 'longest-option',
    description: 'the longest option',
    learned: false,
    fit: () => (item) => pickBest(item, 'longest-option', item.options.map((o) => o.trim().length)),
  },
  {
    name: 'shortest-option',
    description: 'the shortest option (a longest-option figure far below chance means this one is far above)',
    learned: false,
    fit: () => (item) => pickBest(item, 'shortest-option', item.options.map((o) => -o.trim().length)),
  },
  {
    name: 'word-overlap',
    description: 'the option sharing the most content words with the question',
    learned: false,
    fit: () => (item) => {
      const stem = new Set(contentTokens(item.text));
      return pickBest(item, 'word-overlap', item.options.map((o) => new Set(contentTokens(o)).size === 0 ? 0 : [...new Set(contentTokens(o))].filter((t) => stem.has(t)).length));
    },
  },
  {
    name: 'text-only',
    description: "cxrbench's text-only classifier (naive Bayes over option words, question–option word pairs, position, length, negation)",
    learned: true,
    fit(train) {
      const model = trainTextOnlyOnFeatures(train.map((q) => ({ features: featuresOf(q), answer: q.answer })));
      return (item) => predictFromFeatures(model, featuresOf(item));
    },
  },
];
