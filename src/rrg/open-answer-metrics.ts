import { inPaperOrder } from '../core/question.js';
import type { OpenEndedScores, OpenScoreMeans } from '../core/open-ended.js';
import { bagF1 } from './bag-f1.js';
import { rougeL } from './rouge-l.js';
import { rougeTokens } from './tokenize.js';

/** The three text scores of one open-ended answer against its reference (the correct option's text). */
export interface OpenAnswerScore {
  exactMatch: number;
  tokenF1: number;
  rougeL: number;
}

/**
 * SQuAD's answer normalisation: lower case, punctuation dropped, the articles a/an/the dropped, spaces collapsed —
 * so "The right lower lobe." and "right lower lobe" match exactly, and a model is not penalised for a full stop.
 */
export function normalizeAnswerText(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s]/gu, ' ')
    .replace(/\b(?:a|an|the)\b/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** SQuAD's token F1: overlap of the two bags of normalised tokens; 1 when both are empty, 0 when only one is. */
export function tokenF1(reference: string, answer: string): number {
  const ref = normalizeAnswerText(reference).split(' ').filter(Boolean);
  const hyp = normalizeAnswerText(answer).split(' ').filter(Boolean);
  return bagF1(ref, hyp);
}

/** Exact match, token F1 and ROUGE-L (all on SQuAD-normalised text) of an answer against the correct option's text. */
export function scoreOpenAnswer(reference: string, answer: string): OpenAnswerScore {
  return {
    exactMatch: normalizeAnswerText(reference) === normalizeAnswerText(answer) ? 1 : 0,
    tokenF1: tokenF1(reference, answer),
    // On the normalised texts, as exact match and F1 are: a leading "The" is not a miss in a three-word answer.
    rougeL: rougeL(rougeTokens(normalizeAnswerText(reference)), rougeTokens(normalizeAnswerText(answer))),
  };
}

/** One question of an open run: its task, the correct option's text, and the answer text (null: no answer, an error). */
export interface OpenAnswerItem {
  task: string;
  reference: string;
  answer: string | null;
}

function means(scores: readonly (OpenAnswerScore | null)[]): OpenScoreMeans {
  const n = scores.length;
  const sum = (key: keyof OpenAnswerScore) => scores.reduce((s, x) => s + (x ? x[key] : 0), 0);
  return { n, answered: scores.filter((s) => s !== null).length, exactMatch: n ? sum('exactMatch') / n : 0, tokenF1: n ? sum('tokenF1') / n : 0, rougeL: n ? sum('rougeL') / n : 0 };
}

/** Mean scores of an open run, overall and per task (tasks in the paper's order); a question without an answer scores 0. */
export function scoreOpenAnswers(items: readonly OpenAnswerItem[]): OpenEndedScores {
  const scored = items.map((item) => ({ task: item.task, score: item.answer === null ? null : scoreOpenAnswer(item.reference, item.answer) }));
  const tasks = inPaperOrder(scored.map((s) => s.task));
  return {
    overall: means(scored.map((s) => s.score)),
    byTask: Object.fromEntries(tasks.map((task) => [task, means(scored.filter((s) => s.task === task).map((s) => s.score))])),
  };
}
