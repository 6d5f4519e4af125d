import type { Outcome, Prediction } from '../core/model-io.js';
import type { Question } from '../core/question.js';
import { extractAnswer } from '../extract/extract.js';

/**
 * The outcome of one question from its latest prediction: `error` when the request failed, `unparseable` when
 * no single answer can be read (never guessed), else `correct` or `wrong`. Null when the question was not asked yet.
 */
export function outcomeOf(question: Question, prediction: Prediction | undefined, strict: boolean): Outcome | null {
  if (!prediction) return null;
  const base = { questionId: question.id, studyId: question.studyId, task: question.task, category: question.category, subcategory: question.subcategory, expected: question.answer };
  if (prediction.error || !prediction.response) return { ...base, status: 'error', predicted: null, extraction: null };
  const extraction = extractAnswer(prediction.response.text, question.options, { strict });
  if (extraction.letter === null) return { ...base, status: 'unparseable', predicted: null, extraction };
  return { ...base, status: extraction.letter === question.answer ? 'correct' : 'wrong', predicted: extraction.letter, extraction };
}
