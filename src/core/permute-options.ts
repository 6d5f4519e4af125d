import { LETTERS, type Letter, type Question } from './question.js';
import { keyedSeed, seededRandom } from './seeded-random.js';

/** A question with its options in another order: `order[i]` is the original index of the option now at position i. */
export interface PermutedQuestion {
  question: Question;
  order: number[];
}

/**
 * Reorders a question's options with a permutation fixed by (seed, question id) that never leaves the correct
 * option where it was, and remaps the answer letter — for position-bias checks.
 */
export function permuteOptions(question: Question, seed: number): PermutedQuestion {
  const random = seededRandom(keyedSeed(seed, question.id));
  const correct = LETTERS.indexOf(question.answer);
  for (;;) {
    const order = [0, 1, 2, 3];
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    if (order[correct] === correct) continue; // the gold option must move, or the check learns nothing about it
    const options = order.map((o) => question.options[o]!) as Question['options'];
    const answer = LETTERS[order.indexOf(correct)] as Letter;
    return { question: { ...question, options, answer }, order };
  }
}
