import type { Extraction, JudgeItem, JudgeVerdict } from '../core/extraction.js';
import type { ModelResponse, Outcome, Prediction } from '../core/model-io.js';
import type { Question } from '../core/question.js';
import { extractAnswer } from '../extract/extract.js';
import { judgeWanted, withJudgeVerdict } from '../extract/judge-verdict.js';

/** The judge's verdicts for a run's questions, by question id, and the judge model that gave them. */
export interface JudgeVerdicts {
  model: string;
  verdicts: ReadonlyMap<string, JudgeVerdict>;
}

/** Reads a response's answer: its text, or, when that is empty, the conclusion of the reasoning returned beside it. */
function readResponse(response: ModelResponse, options: readonly string[], strict: boolean): Extraction {
  return extractAnswer(response.text, options, { strict, ...(response.reasoning ? { reasoning: response.reasoning } : {}) });
}

/**
 * The outcome of one question from its latest prediction: `error` when the request failed; when no single
 * answer can be read (never guessed), `truncated` if the reply was cut at the token limit, else `unparseable`;
 * otherwise `correct` or `wrong`. With judge verdicts, an output the rules could not read takes the judge's
 * letter. Null when the question was not asked yet.
 */
export function outcomeOf(question: Question, prediction: Prediction | undefined, strict: boolean, judged?: JudgeVerdicts, open = false): Outcome | null {
  if (!prediction) return null;
  const response = prediction.response;
  const reasoningTokens = response?.usage?.reasoningTokens;
  const base = { questionId: question.id, studyId: question.studyId, task: question.task, category: question.category, subcategory: question.subcategory, expected: question.answer, ...(reasoningTokens !== undefined ? { reasoningTokens } : {}) };
  if (prediction.error || !response) return { ...base, status: 'error', predicted: null, extraction: null };
  let extraction = open ? openAnswerExtraction(response.text) : readResponse(response, question.options, strict);
  if (judged) extraction = withJudgeVerdict(extraction, judged.verdicts.get(question.id), judged.model);
  if (extraction.letter === null) return { ...base, status: response.finishReason === 'length' ? 'truncated' : 'unparseable', predicted: null, extraction };
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
  const response = prediction?.response;
  if (prediction?.error || typeof response?.text !== 'string') return null;
  if (!judgeWanted(open ? openAnswerExtraction(response.text) : readResponse(response, question.options, strict))) return null;
  // An empty answer beside a reasoning no rule reads: the judge reads the reasoning.
  const output = response.text.trim() === '' && response.reasoning ? response.reasoning : response.text;
  return { id: question.id, output, options: question.options, question: question.text, ...(open ? { open: true } : {}) };
}
