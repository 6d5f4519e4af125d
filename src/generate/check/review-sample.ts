import { keyedSeed, seededRandom } from '../../core/seeded-random.js';
import { DIFFICULTIES, type Difficulty } from '../generated-question.js';

/**
 * The paper's stratified expert-review sample: `rate` of the kept questions (100 of every 1,000), spread evenly over
 * the difficulty tiers; a tier with too few questions gives all it has and the others make up the rest. Returns
 * the chosen indices in input order. Seeded.
 */
export function reviewSample(tiers: Difficulty[], rate = 0.1, seed = 0): number[] {
  const wanted = Math.min(tiers.length, Math.ceil(tiers.length * rate));
  const random = seededRandom(keyedSeed(seed, 'review-sample'));
  const byTier = DIFFICULTIES.map((d) => tiers.flatMap((t, i) => (t === d ? [i] : [])));
  for (const list of byTier) {
    for (let i = list.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [list[i], list[j]] = [list[j]!, list[i]!];
    }
  }
  const chosen: number[] = [];
  // Round-robin over the tiers: even while each has questions left.
  for (let round = 0; chosen.length < wanted; round++) {
    let took = false;
    for (const list of byTier) {
      if (chosen.length < wanted && round < list.length) {
        chosen.push(list[round]!);
        took = true;
      }
    }
    if (!took) break;
  }
  return chosen.sort((a, b) => a - b);
}
