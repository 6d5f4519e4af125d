import type { Outcome, Prediction } from '../core/model-io.js';
import type { Question } from '../core/question.js';
import { selectImages } from '../prompt/build-prompt.js';
import { outcomeOf } from '../runner/outcomes.js';
import { scoreOutcomes, type Results, type ScoredOutcome } from '../score/results.js';
import type { SavedRun } from './run-folder.js';

/** A saved run re-scored from its journal: its results, and each question with its outcome and prediction. */
export interface ScoredRun {
  results: Results;
  items: { question: Question; outcome: Outcome; prediction: Prediction | undefined }[];
}

/** Scores a saved run (the same code path as `cxrbench score`). */
export async function scoreRun(run: SavedRun, options = { resamples: 1000, seed: 0, smallCell: 30 }): Promise<ScoredRun> {
  const outcomes: ScoredOutcome[] = [];
  const items: ScoredRun['items'] = [];
  let selected = 0;
  for await (const question of run.questions()) {
    selected++;
    const prediction = run.journal.latest.get(question.id);
    const outcome = outcomeOf(question, prediction, run.manifest.extractor.strict);
    if (!outcome) continue;
    outcomes.push({ ...outcome, views: selectImages(question.images, { maxImages: run.manifest.images.maxImages }).length });
    items.push({ question, outcome, prediction });
  }
  return { results: scoreOutcomes(outcomes, selected, options), items };
}
