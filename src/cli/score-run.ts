import type { Outcome, Prediction } from '../core/model-io.js';
import type { Question } from '../core/question.js';
import type { EndpointAnswerJudge } from '../judge/answer-judge.js';
import { selectImages } from '../prompt/build-prompt.js';
import { scoreOutcomes, type Results, type ScoredOutcome } from '../score/results.js';
import type { SavedRun } from './run-folder.js';
import { savedRunOutcomes } from './saved-run-outcomes.js';

/** A saved run re-scored from its journal: its results, and each question with its outcome and prediction. */
export interface ScoredRun {
  results: Results;
  items: { question: Question; outcome: Outcome; prediction: Prediction | undefined }[];
}

/** Scores a saved run (the same code path as `cxrbench score`); a `judge` reads what the rules cannot. */
export async function scoreRun(run: SavedRun, options = { resamples: 1000, seed: 0, smallCell: 30 }, judge: EndpointAnswerJudge | null = null): Promise<ScoredRun> {
  const { items, selected, reading } = await savedRunOutcomes(run, judge);
  const outcomes: ScoredOutcome[] = items.map(({ question, outcome }) => ({ ...outcome, views: selectImages(question.images, { maxImages: run.manifest.images.maxImages }).length }));
  return { results: scoreOutcomes(outcomes, selected, { ...options, reading }), items };
}
