import assert from 'node:assert/strict';
import { test } from 'node:test';
import { detectLayout } from '../src/dataset/layout.js';
import { computeStats } from '../src/dataset/stats.js';
import { DEMO_DATASET } from '../src/cli/commands/demo-dataset.js';
import { officialRecord, writeOfficialDataset } from './helpers/records.js';

test('stats: counts, shares and per-study distributions are exact on a known dataset', async () => {
  const one = ['../i1.png'];
  const root = writeOfficialDataset({
    train: {
      a: officialRecord({ study_id: 's1', task_name: 'Presence Assessment', category: 'Heart', subcategory: 'Size', correct_answer: 'A' }),
      b: officialRecord({ study_id: 's1', task_name: 'Presence Assessment', category: 'Heart', subcategory: 'Shape', correct_answer: 'B', question: 'b?' }),
      c: officialRecord({ study_id: 's1', task_name: 'Negation Assessment', category: 'Heart', subcategory: 'Size', correct_answer: 'B', question: 'c?' }),
      d: officialRecord({ study_id: 's2', task_name: 'Differential Diagnosis', category: null, correct_answer: 'D', question: 'd?', ImagePath: one, ImageViewPosition: ['AP'] }),
      bad: officialRecord({ correct_answer: 'Q' }),
    },
  });
  const { splits } = await computeStats(detectLayout(root));
  const s = splits.train!;
  assert.equal(s.total, 4);
  assert.equal(s.excluded, 1);
  assert.deepEqual(s.byTask, {
    'Presence Assessment': { count: 2, pct: 50 },
    'Differential Diagnosis': { count: 1, pct: 25 },
    'Negation Assessment': { count: 1, pct: 25 },
  });
  assert.deepEqual(s.byCategory, { Heart: { count: 3, pct: 75 }, '(none)': { count: 1, pct: 25 } });
  assert.deepEqual(s.bySubcategory.Heart, { Size: { count: 2, pct: (100 * 2) / 3 }, Shape: { count: 1, pct: 100 / 3 } });
  assert.deepEqual(s.byAnswer, { A: { count: 1, pct: 25 }, B: { count: 2, pct: 50 }, D: { count: 1, pct: 25 } });
  assert.deepEqual(s.questionsPerStudy, { studies: 2, min: 1, median: 2, mean: 2, max: 3, histogram: { '1': 1, '3': 1 } });
  assert.deepEqual(s.imagesPerStudy, { studies: 2, min: 1, median: 1.5, mean: 1.5, max: 2, histogram: { '1': 1, '2': 1 } });
  assert.deepEqual(s.viewPositions, { AP: { count: 1, pct: 100 / 3 }, LATERAL: { count: 1, pct: 100 / 3 }, PA: { count: 1, pct: 100 / 3 } });
});

test('stats: the demo covers all five tasks, and every split has at least two tasks and no excluded record', async () => {
  const { splits } = await computeStats(detectLayout(DEMO_DATASET));
  assert.deepEqual(Object.keys(splits), ['train', 'valid', 'test']);
  const tasks = new Set(Object.values(splits).flatMap((s) => Object.keys(s.byTask)));
  assert.equal(tasks.size, 5);
  for (const s of Object.values(splits)) {
    assert.equal(s.excluded, 0);
    assert.equal(Object.values(s.byTask).reduce((n, t) => n + t.count, 0), s.total);
  }
});
