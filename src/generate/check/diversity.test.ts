import assert from 'node:assert/strict';
import { test } from 'node:test';
import { seededRandom } from '../../core/seeded-random.js';
import { diversityFilter, diversityText } from './diversity.js';

test('diversity: exact duplicates (any case or spacing) are dropped against the first; option order is not content', () => {
  const texts = [diversityText('Which finding is present?', ['Effusion', 'Pneumothorax', 'Nodule', 'Mass']), diversityText('which  finding is PRESENT?', ['Mass', 'Nodule', 'Pneumothorax', 'Effusion']), diversityText('Where is the nodule?', ['Left apex', 'Right apex', 'Left base', 'Right base'])];
  const verdicts = diversityFilter(texts, { threshold: 0.9 });
  assert.deepEqual(verdicts, [{ kept: true }, { kept: false, nearest: 0, similarity: 1 }, { kept: true }]);
});

test('diversity: on 1,500 template-like texts the LSH filter keeps what the all-pairs greedy filter keeps, within 2%', () => {
  const random = seededRandom(3);
  const words = ['effusion', 'pneumothorax', 'nodule', 'mass', 'consolidation', 'atelectasis', 'edema', 'cardiomegaly', 'emphysema', 'granuloma', 'scarring', 'fracture', 'hernia', 'opacity'];
  const pick = () => words[Math.floor(random() * words.length)]!;
  const texts = Array.from({ length: 1500 }, () => `Which of these findings is seen on the ${pick()} film? ${pick()} ${pick()} ${pick()} ${pick()} left right ${pick()}`);
  const lsh = diversityFilter(texts, { threshold: 0.9 }).map((v) => v.kept);
  // The reference: every pair compared (exact cosine over the same TF-IDF), greedy in the same order.
  const all = diversityFilter(texts, { threshold: 0.9, bands: 1, bits: 0, bucketCap: Infinity }).map((v) => v.kept);
  const differ = lsh.filter((k, i) => k !== all[i]).length;
  assert.ok(all.some((k) => !k) && all.some((k) => k), 'the set has both kinds');
  assert.ok(differ / texts.length <= 0.02, `${differ} of ${texts.length} verdicts differ from all-pairs`);
});
