import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Question } from '../core/question.js';
import { tempDir } from '../../test/helpers/records.js';
import { buildPrompt, patientContext, selectImages } from './build-prompt.js';
import { loadTemplate, parseTemplate } from './template.js';

const question: Question = {
  id: 'q', split: 'test', studyId: 's', text: 'Is there an effusion?', options: ['Yes', 'No', 'Small', 'Large'], answer: 'B', task: 'Presence Assessment',
  category: null, subcategory: null, explanation: null,
  images: [{ path: 'lat.png', view: 'LATERAL' }, { path: 'other.png', view: null }, { path: 'pa.png', view: 'PA' }, { path: 'ap.png', view: 'AP' }],
  meta: { PatientAge: '063Y', PatientSex: 'F', Indication: 'Dyspnea.' },
};

test('images: frontal views first, then lateral, then others, stable; a cap keeps the first n', () => {
  assert.deepEqual(selectImages(question.images, { maxImages: null }).map((i) => i.path), ['pa.png', 'ap.png', 'lat.png', 'other.png']);
  assert.deepEqual(selectImages(question.images, { maxImages: 1 }).map((i) => i.path), ['pa.png']);
});

test('prompt: the default template asks for JSON with the options lettered, and patient context only when asked', () => {
  const template = loadTemplate('rexvqa-json');
  const plain = buildPrompt(question, template, { maxImages: null, patientContext: false });
  assert.match(plain.text, /Question: Is there an effusion\?\nOptions:\nA\. Yes\nB\. No\nC\. Small\nD\. Large/);
  assert.match(plain.text, /\{"answer": "<A, B, C or D>", "explanation": /);
  assert.match(plain.text, /The 4 image\(s\) above/);
  assert.doesNotMatch(plain.text, /Patient:/);
  const withContext = buildPrompt(question, template, { maxImages: 2, patientContext: true });
  assert.match(withContext.text, /^Patient: 63-year-old, sex F\. Indication: Dyspnea\.\n\nThe 2 image\(s\)/);
  assert.equal(patientContext({ ...question, meta: {} }), '');
});

test('templates: built-ins load with a content hash; user files are validated with clear errors', () => {
  const a = loadTemplate('rexvqa-json');
  const b = loadTemplate('rexvqa-letter');
  assert.match(a.sha256, /^[0-9a-f]{64}$/);
  assert.notEqual(a.sha256, b.sha256);
  const dir = tempDir();
  const good = join(dir, 'mine.json');
  writeFileSync(good, JSON.stringify({ name: 'mine', version: '2', system: null, user: 'Q: {{question}}\n{{options}}' }));
  assert.equal(loadTemplate(good).name, 'mine');
  assert.throws(() => parseTemplate('{"name": "x", "version": "1", "system": null, "user": "no placeholders"}', 'x.json'), /x\.json: invalid prompt template — field user: the user template must contain/);
  assert.throws(() => parseTemplate('{', 'y.json'), /y\.json: the prompt template is not valid JSON/);
  assert.throws(() => loadTemplate('nonexistent'), /no such built-in template/);
});
