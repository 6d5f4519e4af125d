import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertFindings } from '../assertion.js';
import type { GeneratedQuestion } from '../generated-question.js';
import { locationFailures, sideFormFailures } from './location.js';

const question = (options: [string, string, string, string], answer: 'A' | 'B' | 'C' | 'D', name = 'pleural effusion'): GeneratedQuestion => ({
  id: 'r#q0', reportId: 'r', patientId: null, task: 'Location and Distribution Assessment', category: 'Pleural Effusion', subcategory: 'Effusion',
  question: `Where is the ${name} located?`, options, answer, explanation: '', difficulty: 'hard', claim: null, evidence: null, generator: { kind: 'model', name: 'x', version: '1' }, images: [],
});
const rules = (q: GeneratedQuestion, report: string) => locationFailures(q, report.split(/(?<=\.)\s+/).flatMap(assertFindings)).map(([v, r]) => `${v} ${r.split(':')[0]}`);

test('location check (#23): a key the report binds passes; a wrong side, a second right place, an impossible place and an unbound side fail', () => {
  const report = 'Left lower lobe atelectasis.';
  const ask = (options: [string, string, string, string], answer: 'A' | 'B' | 'C' | 'D') => rules(question(options, answer, 'atelectasis'), report);
  assert.deepEqual(ask(['Left lower lobe', 'Right lower lobe', 'Left upper lobe', 'Right upper lobe'], 'A'), []);
  assert.deepEqual(ask(['Left lower lobe', 'Right lower lobe', 'Left upper lobe', 'Right upper lobe'], 'B'), ['c3 location-unsupported', 'c3 second-correct-place']);
  assert.deepEqual(ask(['Left lower lobe', 'Left base', 'Left upper lobe', 'Right upper lobe'], 'A'), ['c3 second-correct-place'], '"base" is the lower lobe too');
  assert.deepEqual(ask(['Left lower lobe', 'Right lower lobe', 'Left upper lobe', 'Midline'], 'A'), ['c3 impossible-place'], 'atelectasis is never midline');
  assert.deepEqual(rules(question(['Left base', 'Right base', 'Left upper lobe', 'Right costophrenic angle'], 'A'), 'Small left basal pleural effusion.'), ['c3 impossible-place'], 'an effusion is never in a lobe');
  assert.deepEqual(rules(question(['Left side', 'Right side', 'Both sides', 'Upper lobe'], 'A', 'atelectasis'), 'Left pleural effusion and atelectasis.'), ['c3 location-unsupported'], 'the side is the effusion\'s');
  // Other tasks and other wordings are not judged here.
  assert.deepEqual(locationFailures({ ...question(['Left base', 'Right base', 'Left apex', 'Right apex'], 'B'), task: 'Presence Assessment' }, assertFindings('Small left basal pleural effusion.')), []);
  assert.deepEqual(locationFailures({ ...question(['Left base', 'Right base', 'Left apex', 'Right apex'], 'B'), question: 'Which side is affected?' }, assertFindings('Small left basal pleural effusion.')), []);
});

test("a side form as the key (\"Left-sided pleural effusion\") is checked against the side the report binds, from any generator", () => {
  const evidence = ['Small left pleural effusion.', 'No pneumothorax.'].flatMap(assertFindings);
  const q = (options: [string, string, string, string], answer: 'A' | 'B' | 'C' | 'D') => ({ ...question(options, answer), question: 'What does this chest radiograph show regarding a pleural effusion?', task: 'Negation Assessment' });
  assert.deepEqual(sideFormFailures(q(['Left-sided pleural effusion', 'Right-sided pleural effusion', 'Bilateral pleural effusions', 'No pleural effusion'], 'A'), evidence), []);
  assert.deepEqual(sideFormFailures(q(['Left-sided pleural effusion', 'Right-sided pleural effusion', 'Bilateral pleural effusions', 'No pleural effusion'], 'B'), evidence), [['c3', 'side-unsupported: the report puts pleural effusion on the left, the answer says "Right-sided pleural effusion"']]);
  assert.deepEqual(sideFormFailures(q(['Left-sided pleural effusion', 'Right-sided pleural effusion', 'Bilateral pleural effusions', 'No pleural effusion'], 'A'), assertFindings('Pleural effusion.')), [['c3', 'side-unsupported: the report binds no side to pleural effusion, the answer says "Left-sided pleural effusion"']]);
  // A denial as the key is the content check's business, not this one's.
  assert.deepEqual(sideFormFailures(q(['Left-sided pneumothorax', 'Right-sided pneumothorax', 'Bilateral pneumothoraces', 'No pneumothorax'], 'D'), evidence), []);
});

test('the lingula is part of the left upper lobe: beside a lingular finding, "Left upper lobe" is a second right place', () => {
  assert.deepEqual(rules(question(['Left lingula', 'Left upper lobe', 'Right lower lobe', 'Right upper lobe'], 'A', 'consolidation'), 'Consolidation in the lingula.'), ['c3 second-correct-place']);
});
