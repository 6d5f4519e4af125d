import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { GeneratedQuestion } from '../generated-question.js';
import { contentFailures } from './content.js';
import { reviewSample } from './review-sample.js';

const base: GeneratedQuestion = {
  id: 'r#q0', reportId: 'r', patientId: null, task: 'Presence Assessment', category: 'Pleural Effusion', subcategory: 'Effusion',
  question: 'Which of the following findings is present on this chest radiograph?', options: ['Pleural effusion', 'Pneumothorax', 'Pleural thickening', 'Pleural plaque'], answer: 'A',
  explanation: 'The report describes pleural effusion. The findings section of the report reads: "Small left pleural effusion."', difficulty: 'medium',
  claim: null, evidence: null, generator: { kind: 'model', name: 'x', version: '1' }, images: [],
};
const report = new Map([['pleural effusion', 'present'], ['pneumothorax', 'absent']]);
const rules = (q: Partial<GeneratedQuestion>, status = report) => contentFailures({ ...base, ...q }, status).map(([v, r]) => `${v} ${r.split(':')[0]}`);

const cases: { name: string; q: Partial<GeneratedQuestion>; status?: Map<string, string>; expect: string[] }[] = [
  { name: 'a sound question passes', q: {}, expect: [] },
  { name: 'two identical options (c1)', q: { options: ['Pleural effusion', 'Pneumothorax', 'pneumothorax', 'Pleural plaque'] }, expect: ['c1 options-not-distinct'] },
  { name: 'a catch-all option (c1)', q: { options: ['Pleural effusion', 'Pneumothorax', 'None of the above', 'Pleural plaque'] }, expect: ['c1 catch-all-option'] },
  { name: 'the answer spelled out in the stem (c2)', q: { question: 'Is there a pleural effusion present?', options: ['Pleural effusion', 'Pneumothorax', 'Pleural thickening', 'Pleural plaque'] }, expect: ['c2 answer-in-stem'] },
  { name: 'options of very different length (c2)', q: { options: ['Pleural effusion with loculation and a fluid level at the base', 'Pneumothorax', 'Mass', 'Pleural plaque'] }, expect: ['c2 options-unlike'] },
  { name: 'comparison with a prior study (c3)', q: { question: 'Compared with the prior film, which finding is present?' }, expect: ['c3 comparison-content'] },
  { name: 'an answer the report rules out, and a distractor it supports (c3)', q: { answer: 'B' }, expect: ['c3 answer-unsupported', 'c3 distractor-supported'] },
  { name: 'a distractor the report supports: two true options (c3)', q: {}, status: new Map([['pleural effusion', 'present'], ['pleural thickening', 'uncertain']]), expect: ['c3 distractor-supported'] },
  { name: 'a distractor the report implies: oedema makes vascular congestion true too (c3)', q: { options: ['Pulmonary edema', 'Pulmonary vascular congestion', 'Pneumothorax', 'Pleural plaque'], category: 'Other Pulmonary Diagnosis' }, status: new Map([['pulmonary edema', 'present']]), expect: ['c3 distractor-implied'] },
  { name: '"which is absent?" with a distractor the report does not mention (c3)', q: { task: 'Negation Assessment', question: 'Which of the following findings is absent?', answer: 'B' }, status: new Map([['pneumothorax', 'absent'], ['pleural effusion', 'present']]), expect: ['c3 distractor-not-present', 'c3 distractor-not-present'] },
];
for (const c of cases) test(`content checks: ${c.name}`, () => assert.deepEqual(rules(c.q, c.status), c.expect));

test('review sample: 10% of kept questions, evenly over the three tiers; a small tier gives all it has', () => {
  const tiers = [...Array(600).fill('easy'), ...Array(300).fill('medium'), ...Array(100).fill('hard')] as ('easy' | 'medium' | 'hard')[];
  const chosen = reviewSample(tiers, 0.1, 1);
  assert.equal(chosen.length, 100);
  const count = (t: string) => chosen.filter((i) => tiers[i] === t).length;
  assert.deepEqual([count('easy'), count('medium'), count('hard')], [34, 33, 33]);
  const few = [...Array(900).fill('easy'), ...Array(90).fill('medium'), ...Array(10).fill('hard')] as ('easy' | 'medium' | 'hard')[];
  const picked = reviewSample(few, 0.1, 1);
  assert.equal(picked.filter((i) => few[i] === 'hard').length, 10);
  assert.equal(picked.length, 100);
  assert.deepEqual(reviewSample(tiers, 0.1, 1), chosen, 'seeded');
});
