import { LETTERS } from '../../core/question.js';
import { baselineAnswer, localFailure, type ModelAdapter } from '../adapter.js';
import { keyedRandom } from './hash-seed.js';

/** Baseline: a uniformly random letter per question, fixed by the seed (so reruns and resumes agree). */
export function randomBaseline(seed: number): ModelAdapter {
  return {
    spec: { kind: 'baseline', name: 'random', baseline: true, args: { seed } },
    needsImages: false,
    async generate(request) {
      const letter = LETTERS[Math.floor(keyedRandom(seed, request.questionId) * 4)]!;
      return baselineAnswer(letter, `baseline: random letter (seed ${seed})`);
    },
    classifyError: localFailure,
  };
}
