/**
 * Benchmark: score 41,007 outcomes (≈10K studies, 34 categories, ~100 subcategories) with 1,000 bootstrap
 * resamples for every cell, against the limit of 2 s on this machine. Run: `./run bench:score`.
 */
import { TASK_NAMES } from '../src/core/question.js';
import { seededRandom } from '../src/core/seeded-random.js';
import { scoreOutcomes, type ScoredOutcome } from '../src/score/results.js';

const N = 41_007;
const random = seededRandom(5);
const outcomes: ScoredOutcome[] = Array.from({ length: N }, (_, i) => {
  const r = random();
  const category = `Category ${Math.floor(random() * 34)}`;
  return {
    questionId: `q${i}`, studyId: `s${Math.floor(i / 4)}`, task: TASK_NAMES[Math.floor(random() * 5)]!, category, subcategory: `${category} sub ${Math.floor(random() * 3)}`,
    status: r < 0.6 ? 'correct' : r < 0.97 ? 'wrong' : r < 0.99 ? 'unparseable' : 'error', expected: 'A', predicted: 'A', extraction: null, views: 1 + (i % 3),
  };
});
const started = process.hrtime.bigint();
const results = scoreOutcomes(outcomes, N, { resamples: 1000, seed: 0, smallCell: 30 });
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
const cells = 1 + Object.keys(results.byTask).length + Object.keys(results.byCategory).length + Object.keys(results.bySubcategory).length + Object.keys(results.byViews).length;
process.stdout.write(`${new Date().toISOString().slice(0, 10)} · ${N} outcomes, ${cells} cells + ReXrank overall, 1000 resamples each · ${seconds.toFixed(2)} s (limit 2 s: ${(seconds / 2).toFixed(2)} ×) · node ${process.version}\n`);
