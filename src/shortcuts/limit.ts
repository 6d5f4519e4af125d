import { keyedRandom } from '../models/baselines/hash-seed.js';
import { auditShortcuts, type AuditOutcome, type ShortcutAudit } from './audit.js';
import { BLIND_GUESSERS, type BlindGuesser, type BlindItem } from './guessers.js';

/** A question removed because blind guessers answer it, with the reason the card and rejections file give. */
export interface BlindRemoval {
  id: string;
  reason: string;
}

export interface LimitOutcome extends AuditOutcome {
  kept: BlindItem[];
  removed: BlindRemoval[];
  /** Guessers still over the limit after the last round (empty when the limit was reached). */
  over: { guesser: string; split: string; accuracy: number }[];
}

/** Rounds of remove-then-refit before giving up (learned guessers change as train loses questions). */
const MAX_ROUNDS = 60;

const percent = (x: number) => `${(100 * x).toFixed(1)}%`;

/** Every (guesser, split) whose accuracy is over the share. */
export function overLimit(audit: ShortcutAudit, share: number): LimitOutcome['over'] {
  return audit.guessers.flatMap((g) => Object.entries(g.splits).filter(([, s]) => s.all.n > 0 && s.all.correct / s.all.n > share).map(([split, s]) => ({ guesser: g.guesser, split, accuracy: s.all.correct / s.all.n })));
}

/**
 * `--max-blind-accuracy`: removes questions that blind guessers answer until every guesser is at or under the share
 * on every split. Each round takes the guesser furthest over the limit in each split and removes just enough of the
 * questions it gets right to bring it down — first those that most of the over-limit guessers also get right — then
 * refits and measures again, since removing questions moves the others. Only as many as needed go, so the set is
 * not pushed below chance, which would be a shortcut of its own.
 */
export async function limitBlindAccuracy(items: readonly BlindItem[], share: number, guessers: readonly BlindGuesser[] = BLIND_GUESSERS): Promise<LimitOutcome> {
  if (!(share > 0 && share <= 1)) throw new RangeError(`the blind-accuracy limit must be a share in (0, 1], not ${share}`);
  let kept = [...items];
  const removed: BlindRemoval[] = [];
  let outcome = await auditShortcuts(kept, guessers);
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const over = overLimit(outcome.audit, share);
    if (over.length === 0) return { ...outcome, kept, removed, over };
    const gone = new Set<string>();
    for (const split of new Set(over.map((o) => o.split))) {
      const here = over.filter((o) => o.split === split);
      const worst = here.reduce((a, b) => (b.accuracy > a.accuracy ? b : a));
      const members = kept.filter((i) => i.split === split);
      const right = outcome.rightBy.get(worst.guesser)!;
      const correct = members.filter((i) => right.has(i.id));
      // (correct − x) / (n − x) ≤ share  ⇔  x ≥ (correct − share·n) / (1 − share); a share of 1 is never over.
      const needed = Math.min(correct.length, Math.ceil((correct.length - share * members.length) / (1 - share) - 1e-9));
      const alsoRight = (i: BlindItem) => here.filter((o) => outcome.rightBy.get(o.guesser)!.has(i.id)).map((o) => o.guesser);
      const ranked = correct.map((i) => ({ item: i, by: alsoRight(i), tie: keyedRandom(round, i.id) })).sort((a, b) => b.by.length - a.by.length || a.tie - b.tie);
      for (const { item, by } of ranked.slice(0, needed)) {
        gone.add(item.id);
        const figures = by.map((g) => `${g} ${percent(here.find((o) => o.guesser === g)!.accuracy)}`).join(', ');
        removed.push({ id: item.id, reason: `answered without the image by ${by.join(', ')} (on ${split}: ${figures}; limit ${percent(share)})` });
      }
    }
    kept = kept.filter((i) => !gone.has(i.id));
    outcome = await auditShortcuts(kept, guessers);
  }
  return { ...outcome, kept, removed, over: overLimit(outcome.audit, share) };
}
