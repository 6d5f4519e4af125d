import { inPaperOrder } from '../core/question.js';
import { fnv1a } from '../core/fnv1a.js';
import { wilson, type Estimate } from '../score/intervals.js';
import { BLIND_GUESSERS, type BlindGuesser, type BlindItem, type Guess } from './guessers.js';

/** Right answers of a guesser among n questions, with the accuracy and its Wilson 95% interval. */
export interface AuditCell {
  correct: number;
  n: number;
  accuracy: Estimate;
}

/** One group of questions (a split, or the held-out splits together): overall and per task. */
export interface AuditGroup {
  all: AuditCell;
  tasks: Record<string, AuditCell>;
}

/** How a learned guesser was fitted, so a reader knows no figure is in-sample. */
export type FitScheme = 'train' | 'cross-fit';

export interface GuesserAudit {
  guesser: string;
  description: string;
  learned: boolean;
  /**
   * For learned guessers: fitted on the train split (and, for the train split's own figure, on the other half of
   * train, cross-fitted by study) — or, in a set without train questions, cross-fitted in two halves by study.
   */
  fittedOn: FitScheme | null;
  splits: Record<string, AuditGroup>;
  /** The splits other than train together (valid + test in the official layout): the figure a limit is read on. */
  heldOut: AuditGroup & { splits: string[] };
}

/** What the blind guessers score on a question set. */
export interface ShortcutAudit {
  questions: number;
  /** What a guesser with no information scores: one in four. */
  chance: number;
  interval: 'wilson-95';
  guessers: GuesserAudit[];
}

/** The audit with, per guesser, the ids of the questions it answered right (for the limit to remove from). */
export interface AuditOutcome {
  audit: ShortcutAudit;
  rightBy: Map<string, Set<string>>;
}

const TRAIN = 'train';

/** Per unlearned guesser, whether it answers each question right (a question object is never changed). */
const FIXED_ANSWERS = new WeakMap<BlindGuesser, WeakMap<BlindItem, boolean>>();

/**
 * Which half of a two-fold cross-fit each question falls in: by study, so one film's questions stay together, and by
 * the study's image paths rather than its id, which may be keyed by a secret that differs from one output of the same
 * corpus to the next (see stableKey). Studies that share their paths (a corpus whose image column names a projection,
 * not a file) are told apart by what their questions say, so they still spread over both halves.
 */
function folds(items: readonly BlindItem[]): (item: BlindItem) => number {
  const paths = (item: BlindItem) => (item.images?.length ? item.images.map((i) => i.path).join('\u0001') : null);
  const studiesByPaths = new Map<string, Set<string>>();
  const texts = new Map<string, string[]>();
  for (const item of items) {
    const key = paths(item);
    if (key !== null) studiesByPaths.set(key, (studiesByPaths.get(key) ?? new Set()).add(item.studyId));
    const list = texts.get(item.studyId);
    if (list) list.push(`${item.text}\u0001${item.options.join('\u0001')}`);
    else texts.set(item.studyId, [`${item.text}\u0001${item.options.join('\u0001')}`]);
  }
  const fold = new Map<string, number>();
  return (item) => {
    let f = fold.get(item.studyId);
    if (f === undefined) {
      const key = paths(item);
      const shared = key === null || studiesByPaths.get(key)!.size > 1;
      f = fnv1a(`fold\u0000${key ?? ''}\u0000${shared ? [...texts.get(item.studyId)!].sort().join('\u0002') : ''}`) % 2;
      fold.set(item.studyId, f);
    }
    return f;
  };
}

/** Every question answered by this guesser, fitted so that no question is answered by a rule fitted on it. */
async function answerAll(guesser: BlindGuesser, items: readonly BlindItem[], plan?: FitPlan): Promise<{ right: Set<string>; fittedOn: FitScheme | null }> {
  const right = new Set<string>();
  const answer = (guess: Guess, among: readonly BlindItem[]) => {
    for (const item of among) if (guess(item) === item.answer) right.add(item.id);
  };
  if (!guesser.learned) {
    // Its answer to a question depends on that question alone: worked out once, kept over the limit's rounds.
    let known = FIXED_ANSWERS.get(guesser);
    if (!known) FIXED_ANSWERS.set(guesser, (known = new WeakMap()));
    let guess: Guess | null = null;
    for (const item of items) {
      let ok = known.get(item);
      if (ok === undefined) {
        guess ??= await guesser.fit([]);
        known.set(item, (ok = guess(item) === item.answer));
      }
      if (ok) right.add(item.id);
    }
    return { right, fittedOn: null };
  }
  const { train, heldOut, halves } = plan ?? fitPlan(items);
  const crossFit = async () => {
    for (const fold of [0, 1] as const) answer(await guesser.fit(halves[1 - fold]!), halves[fold]!);
  };
  if (train.length === 0) {
    await crossFit();
    return { right, fittedOn: 'cross-fit' };
  }
  answer(await guesser.fit(train), heldOut);
  await crossFit();
  return { right, fittedOn: 'train' };
}

/** How learned guessers are fitted on a set: on train for the other splits, and train's (or, without one, the set's) two halves. */
interface FitPlan { train: BlindItem[]; heldOut: BlindItem[]; halves: [BlindItem[], BlindItem[]] }

/** The fitting plan of a set, worked out once for all the learned guessers. */
function fitPlan(items: readonly BlindItem[]): FitPlan {
  const train = items.filter((i) => i.split === TRAIN);
  const pool = train.length === 0 ? items : train;
  const half = folds(pool);
  const halves: [BlindItem[], BlindItem[]] = [[], []];
  for (const item of pool) halves[half(item)]!.push(item);
  return { train, heldOut: items.filter((i) => i.split !== TRAIN), halves };
}

function cell(correct: number, n: number): AuditCell {
  return { correct, n, accuracy: wilson(correct, n) };
}

function group(items: readonly BlindItem[], right: Set<string>): AuditGroup {
  const tasks = new Map<string, [number, number]>();
  let correct = 0;
  for (const item of items) {
    const t = tasks.get(item.task) ?? [0, 0];
    const ok = right.has(item.id) ? 1 : 0;
    tasks.set(item.task, [t[0] + ok, t[1] + 1]);
    correct += ok;
  }
  return { all: cell(correct, items.length), tasks: Object.fromEntries(inPaperOrder([...tasks.keys()]).map((t) => [t, cell(...tasks.get(t)!)])) };
}

/** The splits in the order a reader expects: train, valid, test, then any others by name. */
export function splitOrder(names: Iterable<string>): string[] {
  const known = ['train', 'valid', 'test'];
  const all = [...new Set(names)];
  return [...known.filter((s) => all.includes(s)), ...all.filter((s) => !known.includes(s)).sort()];
}

/**
 * Runs every blind guesser over a question set: accuracy with its Wilson 95% interval per split and task, and over
 * the held-out splits together. Learned guessers never answer a question they were fitted on.
 */
export async function auditShortcuts(items: readonly BlindItem[], guessers: readonly BlindGuesser[] = BLIND_GUESSERS): Promise<AuditOutcome> {
  const splits = splitOrder(items.map((i) => i.split));
  const heldOutSplits = splits.filter((s) => s !== TRAIN);
  const bySplit = new Map(splits.map((s) => [s, items.filter((i) => i.split === s)]));
  const heldOut = items.filter((i) => i.split !== TRAIN);
  const rightBy = new Map<string, Set<string>>();
  const results: GuesserAudit[] = [];
  let plan: FitPlan | undefined;
  for (const guesser of guessers) {
    const { right, fittedOn } = await answerAll(guesser, items, guesser.learned ? (plan ??= fitPlan(items)) : undefined);
    rightBy.set(guesser.name, right);
    results.push({
      guesser: guesser.name,
      description: guesser.description,
      learned: guesser.learned,
      fittedOn,
      splits: Object.fromEntries(splits.map((s) => [s, group(bySplit.get(s)!, right)])),
      heldOut: { splits: heldOutSplits, ...group(heldOut, right) },
    });
  }
  return { audit: { questions: items.length, chance: 0.25, interval: 'wilson-95', guessers: results }, rightBy };
}
