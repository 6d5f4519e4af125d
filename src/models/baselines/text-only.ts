import { LETTERS, type Question } from '../../core/question.js';
import { baselineAnswer, localFailure, type ModelAdapter, requireQuestion } from '../adapter.js';
import { contentTokens, fnv1a, tokens } from './tokens.js';

/** What the classifier reads of a question: wording only (and, to train, the key). */
type Wording = Pick<Question, 'text' | 'options' | 'task'>;

/** Hashed feature space of the blind classifier. */
const BUCKETS = 1 << 18;
const NEGATIVE_WORDS = new Set(['no', 'not', 'none', 'absent', 'normal', 'without', 'negative', 'unremarkable', 'clear']);

/**
 * Features of one option of one question, from text only: the option's words and word pairs, its position,
 * its length, whether it negates, how many of its words the question repeats, and question-word × option-word
 * pairs. Hashed, so training on the full 573K-question train split takes a few MB.
 */
function features(question: Wording, index: number): number[] {
  const option = question.options[index]!;
  const optionWords = tokens(option);
  const questionWords = contentTokens(question.text).slice(0, 8);
  const names: string[] = [`pos:${LETTERS[index]}`, `len:${Math.min(optionWords.length, 8)}`, `task:${question.task}|pos:${LETTERS[index]}`];
  const overlap = optionWords.filter((w) => questionWords.includes(w)).length;
  names.push(`overlap:${Math.min(overlap, 3)}`);
  if (optionWords.some((w) => NEGATIVE_WORDS.has(w))) names.push('negates', `task:${question.task}|negates`);
  optionWords.forEach((w, i) => {
    names.push(`o:${w}`);
    if (i > 0) names.push(`ob:${optionWords[i - 1]} ${w}`);
    for (const q of questionWords) names.push(`qo:${q}|${w}`);
  });
  const longest = question.options.reduce((a, b) => (b.length > a.length ? b : a));
  if (option === longest) names.push('longest');
  return names.map((n) => fnv1a(n) % BUCKETS);
}

/** Trained weights of the blind classifier: per-feature log-odds that an option carrying it is correct. */
export interface TextOnlyModel {
  weights: Float64Array;
  trainedOn: number;
}

/** The hashed features of each of a question's four options: what training (each once) and prediction (all) read. */
export function optionFeatures(question: Wording): Uint32Array[] {
  return question.options.map((_, index) => Uint32Array.from(features(question, index)));
}

/** Trains the blind (no image) classifier on questions with their answers: naive Bayes over option features. */
export async function trainTextOnly(train: AsyncIterable<Wording & Pick<Question, 'answer'>> | Iterable<Wording & Pick<Question, 'answer'>>): Promise<TextOnlyModel> {
  const counted = newCounts();
  for await (const q of train) countQuestion(counted, optionFeatures(q), q.answer);
  return modelFrom(counted);
}

/**
 * Trains on features worked out before ({@link optionFeatures}): a caller that fits many times on overlapping
 * questions (the shortcut audit's cross-fitting, round after round) hashes each question once.
 */
export function trainTextOnlyOnFeatures(train: Iterable<{ features: Uint32Array[]; answer: Question['answer'] }>): TextOnlyModel {
  const counted = newCounts();
  for (const q of train) countQuestion(counted, q.features, q.answer);
  return modelFrom(counted);
}

/** Scores the four options from their features, as {@link predictTextOnly} does; the highest wins (the earlier letter on a tie). */
export function predictFromFeatures(model: TextOnlyModel, features: Uint32Array[]): (typeof LETTERS)[number] {
  let best = 0;
  let bestScore = -Infinity;
  for (let i = 0; i < features.length; i++) {
    let score = 0;
    for (const f of features[i]!) score += model.weights[f]!;
    if (score > bestScore) {
      best = i;
      bestScore = score;
    }
  }
  return LETTERS[best]!;
}

interface Counts { correct: Float64Array; incorrect: Float64Array; nCorrect: number; nIncorrect: number }
const newCounts = (): Counts => ({ correct: new Float64Array(BUCKETS), incorrect: new Float64Array(BUCKETS), nCorrect: 0, nIncorrect: 0 });

/**
 * Which features an option has already counted, by a stamp per bucket: each option counts a feature once (presence,
 * not frequency) without building a Set per option — the shortcut audit fits this model many times on 100K+ questions.
 */
const seenStamp = new Uint32Array(BUCKETS);
let stamp = 0;

function countQuestion(c: Counts, features: Uint32Array[], answer: Question['answer']): void {
  for (let index = 0; index < features.length; index++) {
    const isCorrect = LETTERS[index] === answer;
    const counts = isCorrect ? c.correct : c.incorrect;
    if (++stamp === 0xffffffff) {
      seenStamp.fill(0);
      stamp = 1;
    }
    for (const f of features[index]!) {
      if (seenStamp[f] === stamp) continue;
      seenStamp[f] = stamp;
      counts[f]!++;
    }
    if (isCorrect) c.nCorrect++;
    else c.nIncorrect++;
  }
}

function modelFrom({ correct, incorrect, nCorrect, nIncorrect }: Counts): TextOnlyModel {
  const weights = new Float64Array(BUCKETS);
  for (let f = 0; f < BUCKETS; f++) {
    weights[f] = Math.log((correct[f]! + 1) / (nCorrect + 2)) - Math.log((incorrect[f]! + 1) / (nIncorrect + 2));
  }
  return { weights, trainedOn: nCorrect };
}

/** Scores the four options of a question; the highest wins (the earlier letter on a tie). */
export function predictTextOnly(model: TextOnlyModel, question: Wording): { letter: (typeof LETTERS)[number]; scores: number[] } {
  const scores = question.options.map((_, index) => features(question, index).reduce((sum, f) => sum + model.weights[f]!, 0));
  const best = scores.reduce((bestIndex, score, i) => (score > scores[bestIndex]! ? i : bestIndex), 0);
  return { letter: LETTERS[best]!, scores };
}

/** Baseline: how much of the benchmark is answerable without the image, from question and option wording alone. */
export function textOnlyBaseline(model: TextOnlyModel): ModelAdapter {
  return {
    spec: { kind: 'baseline', name: 'text-only', baseline: true, args: { trainedOn: model.trainedOn, classifier: 'naive-bayes-hashed-v1' } },
    needsImages: false,
    async generate(_request, context) {
      const question = requireQuestion(context, 'baseline:text-only');
      const { letter } = predictTextOnly(model, question);
      return baselineAnswer(letter, `baseline: text-only classifier trained on ${model.trainedOn} questions, no image`);
    },
    classifyError: localFailure,
  };
}
