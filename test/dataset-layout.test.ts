import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { CxrError } from '../src/core/errors.js';
import { detectLayout } from '../src/dataset/layout.js';
import { tempDir, writeOfficialDataset } from './helpers/records.js';

test('layout: the official folder, its metadata/ folder, and one file are recognised; splits in train/valid/test order', () => {
  const root = writeOfficialDataset({ test: '{}', train: '{}', valid: '{}', extra: '{}' });
  const official = detectLayout(root);
  assert.equal(official.kind, 'rexvqa');
  assert.deepEqual(official.files.map((f) => f.split), ['train', 'valid', 'test', 'extra']);
  assert.equal(official.files[0]!.baseDir, join(root, 'metadata'));
  assert.deepEqual(detectLayout(join(root, 'metadata')).files.map((f) => f.split), ['train', 'valid', 'test', 'extra']);
  const single = detectLayout(join(root, 'metadata', 'valid_vqa_data.json'));
  assert.deepEqual(single.files.map((f) => [f.split, f.format]), [['valid', 'rexvqa-json']]);
});

test('layout: a folder of JSONL files and a single JSONL file', () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'test.jsonl'), '');
  writeFileSync(join(dir, 'train.jsonl'), '');
  assert.deepEqual(detectLayout(dir).files.map((f) => [f.split, f.format]), [['train', 'jsonl'], ['test', 'jsonl']]);
  assert.deepEqual(detectLayout(join(dir, 'test.jsonl')).files.map((f) => f.split), ['test']);
});

const failures: { name: string; make: () => string; code: string; message: RegExp }[] = [
  { name: 'a missing path', make: () => join(tempDir(), 'nope'), code: 'path-not-found', message: /no such file or folder/ },
  { name: 'an empty folder', make: () => tempDir(), code: 'folder-empty', message: /the folder is empty\. Expected the official ReXVQA layout/ },
  { name: 'a folder of other files', make: () => { const d = tempDir(); writeFileSync(join(d, 'notes.txt'), 'x'); mkdirSync(join(d, 'images')); return d; },
    code: 'layout-unrecognised', message: /Expected the official ReXVQA layout.*Instead found: images, notes\.txt/ },
  { name: 'a metadata folder with wrongly named files', make: () => { const d = tempDir(); mkdirSync(join(d, 'metadata')); writeFileSync(join(d, 'metadata', 'train.json'), '{}'); return d; },
    code: 'layout-unrecognised', message: /found metadata\/ holding: train\.json/ },
  { name: 'a file of another kind', make: () => { const d = tempDir(); writeFileSync(join(d, 'x.csv'), ''); return join(d, 'x.csv'); }, code: 'layout-unrecognised', message: /not a \.json or \.jsonl/ },
];

for (const c of failures) {
  test(`layout: ${c.name} is a clear error (${c.code})`, () => {
    assert.throws(() => detectLayout(c.make()), (e: unknown) => e instanceof CxrError && e.code === c.code && c.message.test(e.message) && e.exitCode === 2);
  });
}
