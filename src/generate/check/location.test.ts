import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertFindings } from '../assertion.js';
import type { GeneratedQuestion } from '../generated-question.js';
import { locationFailures } from './location.js';

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
