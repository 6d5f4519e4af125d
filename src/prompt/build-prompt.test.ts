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

test('prompt styles: each built-in asks for its answer form, with or without clinical context; the open template leaves the options out', () => {
  const asks: Record<string, RegExp> = {
    'rexvqa-boxed': /Think step by step: .* End your reply with the letter of your choice alone inside \\boxed\{\}, for example \\boxed\{A\}\.$/,
    'rexvqa-answer-only': /Reply with only the letter of the single best option: A, B, C or D\. Do not explain\.$/,
    'rexvqa-explain-answer': /First write one line explaining .* exactly like this: <answer>A<\/answer>$/,
  };
  for (const [name, ask] of Object.entries(asks)) {
    const template = loadTemplate(name);
    assert.equal(template.mode, 'multiple-choice');
    const plain = buildPrompt(question, template, { maxImages: null, patientContext: false }).text;
    assert.match(plain, /^The 4 image\(s\) above are the views of one chest X-ray study\.\n\nQuestion: Is there an effusion\?\nOptions:\nA\. Yes\nB\. No\nC\. Small\nD\. Large\n\n/, name);
    assert.match(plain, ask, name);
    const withContext = buildPrompt(question, template, { maxImages: null, patientContext: true }).text;
    assert.equal(withContext, `Patient: 63-year-old, sex F. Indication: Dyspnea.\n\n${plain}`, name);
  }
  const open = loadTemplate('rexvqa-open');
  assert.equal(open.mode, 'open');
  const text = buildPrompt(question, open, { maxImages: null, patientContext: true }).text;
  assert.match(text, /^Patient: 63-year-old, sex F\. Indication: Dyspnea\.\n\nThe 4 image\(s\) above are the views of one chest X-ray study\.\n\nQuestion: Is there an effusion\?\n\nNo answer options are given: answer in your own words/);
  for (const option of ['A. Yes', 'B. No', 'Options:']) assert.ok(!text.includes(option), option);
});

test('templates: a multiple-choice template without {{options}}, or an open one with them, is refused by field', () => {
  assert.throws(() => parseTemplate('{"name": "x", "version": "1", "system": null, "user": "Q: {{question}}"}', 'x.json'), /x\.json: invalid prompt template — field user: a multiple-choice template must contain \{\{options\}\} \(set "mode": "open" for a question without options\)/);
  assert.throws(() => parseTemplate('{"name": "x", "version": "1", "mode": "open", "system": null, "user": "Q: {{question}} {{options}}"}', 'x.json'), /field user: an open template asks the question without its options: remove \{\{options\}\}/);
  assert.equal(parseTemplate('{"name": "x", "version": "1", "mode": "open", "system": null, "user": "Q: {{question}}"}', 'x.json').mode, 'open');
});
