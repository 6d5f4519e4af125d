import type { Extraction, JudgeItem, JudgeVerdict } from '../core/extraction.js';
import type { Outcome, Prediction } from '../core/model-io.js';
import type { Question } from '../core/question.js';
import { extractAnswer } from '../extract/extract.js';
import { judgeWanted, withJudgeVerdict } from '../extract/judge-verdict.js';

/** The judge's verdicts for a run's questions, by question id, and the judge model that gave them. */
export interface JudgeVerdicts {
  model: string;
  verdicts: ReadonlyMap<string, JudgeVerdict>;
}

/**
 * The outcome of one question from its latest prediction: `error` when the request failed, `unparseable` when
 * no single answer can be read (never guessed), else `correct` or `wrong`. With judge verdicts, an output the
 * rules could not read takes the judge's letter. Null when the question was not asked yet.
 */
export function outcomeOf(question: Question, prediction: Prediction | undefined, strict: boolean, judged?: JudgeVerdicts, open = false): Outcome | null {
  if (!prediction) return null;
  const base = { questionId: question.id, studyId: question.studyId, task: question.task, category: question.category, subcategory: question.subcategory, expected: question.answer };
  if (prediction.error || !prediction.response) return { ...base, status: 'error', predicted: null, extraction: null };
  let extraction = open ? openAnswerExtraction(prediction.response.text) : extractAnswer(prediction.response.text, question.options, { strict });
  if (judged) extraction = withJudgeVerdict(extraction, judged.verdicts.get(question.id), judged.model);
  if (extraction.letter === null) return { ...base, status: 'unparseable', predicted: null, extraction };
  return { ...base, status: extraction.letter === question.answer ? 'correct' : 'wrong', predicted: extraction.letter, extraction };
}

/**
 * An open-ended answer (`eval --open`, asked without options) as an extraction: no rule reads a letter from it —
 * the model never saw letters — so only the judge maps it to an option; an empty answer is not put to the judge.
 */
export function openAnswerExtraction(text: string): Extraction {
  return { letter: null, rule: text.trim() === '' ? 'empty' : 'open-ended' };
}

/** What to ask the judge about a question's prediction, or null when the rules read it (or there is no output). */
export function judgeItemOf(question: Question, prediction: Prediction | undefined, strict: boolean, open = false): JudgeItem | null {
  const text = prediction?.response?.text;
  if (prediction?.error || typeof text !== 'string') return null;
  if (!judgeWanted(open ? openAnswerExtraction(text) : extractAnswer(text, question.options, { strict }))) return null;
  return { id: question.id, output: text, options: question.options, question: question.text };
}
