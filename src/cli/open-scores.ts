import type { Prediction } from '../core/model-io.js';
import type { OpenEndedScores } from '../core/open-ended.js';
import { LETTERS, type Question } from '../core/question.js';
import { normalizeOutput } from '../extract/normalize.js';
import { scoreOpenAnswer, scoreOpenAnswers, type OpenAnswerItem, type OpenAnswerScore } from '../rrg/open-answer-metrics.js';

/** One open-ended answer with its reference and scores, as `open-answers.jsonl` keeps it. */
export interface OpenAnswerRecord extends OpenAnswerItem {
  questionId: string;
  scores: OpenAnswerScore | null;
}

/**
 * The open-ended answers of a run's questions: the answer text is what the model said after any reasoning block
 * (read as the answer reader reads it), the reference the correct option's text; a failed request has no answer.
 */
export function openAnswers(items: readonly { question: Question; prediction: Prediction | undefined }[]): OpenAnswerRecord[] {
  return items.map(({ question, prediction }) => {
    const reference = question.options[LETTERS.indexOf(question.answer)]!;
    const text = prediction?.response?.text;
    const answer = prediction?.error || typeof text !== 'string' ? null : normalizeOutput(text).answer;
    return { questionId: question.id, task: question.task, reference, answer, scores: answer === null ? null : scoreOpenAnswer(reference, answer) };
  });
}

/** The mean text scores of open-ended answers, overall and per task. */
export function openScoresOf(records: readonly OpenAnswerRecord[]): OpenEndedScores {
  return scoreOpenAnswers(records);
}
