import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CorpusReport } from '../corpus/corpus-report.js';
import { assertFindings } from './assertion.js';
import { generateOffline } from './offline-generator.js';

// Phrasings a review found read wrongly (each once keyed a question the report contradicts).
const cases: [string, [string, string, string | null][]][] = [
  ['Pneumothorax: none. Pleural effusion: none.', [['pneumothorax', 'absent', null], ['pleural effusion', 'absent', null]]],
  ['No pneumothorax, small left pleural effusion.', [['pneumothorax', 'absent', null], ['pleural effusion', 'present', 'left']]],
  ['Pneumothorax has been excluded.', [['pneumothorax', 'absent', null]]],
  ['Effusion, edema and pneumothorax excluded.', [['pleural effusion', 'absent', null], ['pulmonary edema', 'absent', null], ['pneumothorax', 'absent', null]]],
  ['Small right pleural effusion cannot be entirely excluded.', [['pleural effusion', 'uncertain', 'right']]],
  ['Hazy opacity at the left base, atelectasis or effusion.', [['airspace opacity', 'present', 'left'], ['atelectasis', 'uncertain', null], ['pleural effusion', 'uncertain', null]]],
  ['No pneumothorax, effusion, or consolidation.', [['pneumothorax', 'absent', null], ['pleural effusion', 'absent', null], ['consolidation', 'absent', null]]],
];
for (const [sentence, expected] of cases) {
  test(`assertion: ${sentence}`, () => assert.deepEqual(assertFindings(sentence).map((m) => [m.finding, m.status, m.side]), expected));
}

const report = (findings: string): CorpusReport => ({ id: 'r', patientId: null, sections: { indication: null, comparison: null, findings, impression: null }, images: [{ path: 'a.png', view: null }], source: { file: 'f', record: '1' } });

test('differential questions only where the report attributes the appearance to the diagnosis', () => {
  const listed = generateOffline(report('Right lower lobe consolidation and pulmonary edema.')).filter((q) => q.task === 'Differential Diagnosis');
  assert.deepEqual(listed, []);
  const linked = generateOffline(report('Right lower lobe consolidation consistent with pneumonia.')).filter((q) => q.task === 'Differential Diagnosis');
  assert.equal(linked.length, 1);
  assert.equal(linked[0]!.options['ABCD'.indexOf(linked[0]!.answer)], 'Pneumonia');
});

test('no grade question when the report grades one finding twice', () => {
  assert.deepEqual(generateOffline(report('Large right pleural effusion. Small left pleural effusion.')).filter((q) => q.task === 'Geometric Information Assessment'), []);
  assert.equal(generateOffline(report('Small left pleural effusion.')).filter((q) => q.task === 'Geometric Information Assessment').length, 1);
});

test('location distractors never name the same part of the lung as the answer', () => {
  const q = generateOffline(report('Small left basilar atelectasis.')).find((x) => x.task === 'Location and Distribution Assessment');
  assert.ok(q, 'a location question');
  const answer = q.options['ABCD'.indexOf(q.answer)]!;
  assert.equal(answer, 'Left base');
  for (const o of q.options) if (o !== answer) assert.doesNotMatch(o, /^Left (?:lower zone|lower lobe|costophrenic)/, `${o} means the same as ${answer}`);
});
