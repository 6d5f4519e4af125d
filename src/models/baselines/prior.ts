import { LETTERS, type Letter, type Question } from '../../core/question.js';
import { baselineAnswer, localFailure, type ModelAdapter } from '../adapter.js';

/** Counts correct-answer letters over training questions. */
export async function answerLetterCounts(train: AsyncIterable<Question> | Iterable<Question>): Promise<Record<Letter, number>> {
  const counts: Record<Letter, number> = { A: 0, B: 0, C: 0, D: 0 };
  for await (const q of train) counts[q.answer]++;
  return counts;
}

/** Baseline: always the answer letter most frequent in the training split (ties go to the earlier letter). */
export function priorBaseline(counts: Record<Letter, number>): ModelAdapter {
  const total = LETTERS.reduce((n, l) => n + counts[l], 0);
  if (total === 0) throw new Error('the prior baseline needs a training split with at least one question');
  const best = LETTERS.reduce((a, b) => (counts[b] > counts[a] ? b : a));
  return {
    spec: { kind: 'baseline', name: 'prior', baseline: true, args: { trainCounts: counts, letter: best } },
    needsImages: false,
    async generate() {
      return baselineAnswer(best, `baseline: most frequent answer letter in train (${counts[best]} of ${total})`);
    },
    classifyError: localFailure,
  };
}
