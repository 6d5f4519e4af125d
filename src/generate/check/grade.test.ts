import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { GeneratedQuestion } from '../generated-question.js';
import { reportEvidence } from '../offline-generator.js';
import { gradeFailures } from './grade.js';

const report = (findings: string) => ({ id: 'r', patientId: null, sections: { indication: null, comparison: null, findings, impression: null }, images: [{ path: 'a.png', view: null }], source: { file: 'f', record: '1' } });
const question = (text: string, options: [string, string, string, string], answer: 'A' | 'B' | 'C' | 'D') => ({ id: 'q', reportId: 'r', patientId: null, task: 'Geometric Information Assessment', category: '', subcategory: '', question: text, options, answer, explanation: '', difficulty: 'medium', claim: null, evidence: null, generator: { kind: 'model', name: 'm', version: '1' }, images: [] }) as GeneratedQuestion;

test("a model's grade question is checked like the templates': the report's grade is the key, no option repeats it, none is off the finding's scale", () => {
  const evidence = reportEvidence(report('Small left pleural effusion. Moderate cardiomegaly.'));
  assert.deepEqual(gradeFailures(question('How large is the pleural effusion on this radiograph?', ['Small', 'Moderate', 'Large', 'Not present'], 'A'), evidence), []);
  assert.deepEqual(gradeFailures(question('How large is the pleural effusion?', ['Small', 'Moderate', 'Large', 'Not present'], 'C'), evidence), [['c3', 'grade-unsupported: the report calls pleural effusion small, the answer says "Large"'], ['c3', 'second-correct-grade: "Small" is the report\'s grade for pleural effusion too']]);
  assert.deepEqual(gradeFailures(question('How large is the pleural effusion?', ['Small', 'Trace', 'Large', 'Not present'], 'A'), evidence), [['c3', 'second-correct-grade: "Trace" is the report\'s grade for pleural effusion too']]);
  assert.deepEqual(gradeFailures(question('How severe is the cardiomegaly on this radiograph?', ['Small', 'Moderate', 'Severe', 'Not present'], 'B'), evidence), [['c3', 'nonexistent-grade: cardiomegaly is graded by severity, never "Small"']]);
  // No grade in the report: no key.
  assert.deepEqual(gradeFailures(question('How large is the pleural effusion?', ['Small', 'Moderate', 'Large', 'Not present'], 'A'), reportEvidence(report('Left pleural effusion.'))), [['c3', 'grade-unsupported: the report gives no grade for pleural effusion']]);
  // Other tasks and wordings are not judged here.
  assert.deepEqual(gradeFailures({ ...question('How large is the pleural effusion?', ['Small', 'Moderate', 'Large', 'Not present'], 'C'), task: 'Presence Assessment' }, evidence), []);
});
