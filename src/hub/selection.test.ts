import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CxrError } from '../core/errors.js';
import { archiveParts, parseRevisions, questionFiles, reposFor, REXGRADIENT_REPO, REXVQA_REPO, STATE_DIR, type ListedFile } from './selection.js';

const file = (path: string, size = 10): ListedFile => ({ path, size, sha256: 'f'.repeat(64) });
const vqaListing = ['README.md', 'metadata/train_vqa_data.json', 'metadata/valid_vqa_data.json', 'metadata/test_vqa_data.json', 'metadata/test_other.json', 'metadata/nested/x_vqa_data.json.bak'].map((p) => file(p));

test('reposFor: --what picks the repos', () => {
  assert.deepEqual(reposFor('metadata'), [REXVQA_REPO]);
  assert.deepEqual(reposFor('images'), [REXGRADIENT_REPO]);
  assert.deepEqual(reposFor('all'), [REXVQA_REPO, REXGRADIENT_REPO]);
});

test('questionFiles: --splits picks the question files, in the order asked; none given means every split, sorted', () => {
  const paths = (splits: string[] | undefined) => questionFiles(vqaListing, splits, 'r').map((f) => [f.path, f.dest, f.repo, f.kind]);
  const row = (split: string) => [`metadata/${split}_vqa_data.json`, `metadata/${split}_vqa_data.json`, REXVQA_REPO, 'metadata'];
  assert.deepEqual(paths(undefined), [row('test'), row('train'), row('valid')]);
  assert.deepEqual(paths(['valid', 'test']), [row('valid'), row('test')]);
  assert.deepEqual(paths(['train']), [row('train')]);
});

test('questionFiles: an unknown split and a listing without question files are refused by name', () => {
  assert.throws(() => questionFiles(vqaListing, ['valid', 'dev', 'holdout'], 'abc'), (e: unknown) => e instanceof CxrError && e.code === 'bad-option' && e.message === `--splits: dev, holdout not in ${REXVQA_REPO} at abc; it has test, train, valid`);
  assert.throws(() => questionFiles([file('README.md')], undefined, 'abc'), (e: unknown) => e instanceof CxrError && e.code === 'not-found' && e.message.startsWith(`${REXVQA_REPO} at abc: no metadata/<split>_vqa_data.json`));
});

test('archiveParts: the pieces in the order split names them (numbers by value, letters as text), other files left out', () => {
  const order = (names: string[]) => archiveParts(names.map((p) => file(p)), 'r').map((f) => f.path);
  assert.deepEqual(order(['deid_png.part10', 'README.md', 'deid_png.part2', 'deid_png.part1', 'metadata/x.json']), ['deid_png.part1', 'deid_png.part2', 'deid_png.part10']);
  assert.deepEqual(order(['deid_png.part01', 'deid_png.part00', 'deid_png.part02']), ['deid_png.part00', 'deid_png.part01', 'deid_png.part02']);
  assert.deepEqual(order(['deid_png.partab', 'deid_png.partba', 'deid_png.partaa']), ['deid_png.partaa', 'deid_png.partab', 'deid_png.partba']);
  assert.deepEqual(archiveParts([file('deid_png.part0', 5)], 'r'), [{ ...file('deid_png.part0', 5), repo: REXGRADIENT_REPO, dest: `${STATE_DIR}/parts/deid_png.part0`, kind: 'archive-part' }]);
  assert.throws(() => archiveParts([file('README.md')], 'abc'), (e: unknown) => e instanceof CxrError && e.code === 'not-found');
});

test('parseRevisions: none, one for every repo, or repo=rev pairs by full or short name', () => {
  const both = [REXVQA_REPO, REXGRADIENT_REPO];
  const cases: [string | undefined, string[], Record<string, string | undefined>][] = [
    [undefined, both, { [REXVQA_REPO]: undefined, [REXGRADIENT_REPO]: undefined }],
    ['main', both, { [REXVQA_REPO]: 'main', [REXGRADIENT_REPO]: 'main' }],
    ['abc123', [REXVQA_REPO], { [REXVQA_REPO]: 'abc123' }],
    ['ReXVQA=aaa,ReXGradient-160K=bbb', both, { [REXVQA_REPO]: 'aaa', [REXGRADIENT_REPO]: 'bbb' }],
    [`${REXVQA_REPO}=aaa`, both, { [REXVQA_REPO]: 'aaa', [REXGRADIENT_REPO]: undefined }],
    [' ReXVQA = aaa , ReXGradient-160K = v1.0 ', both, { [REXVQA_REPO]: 'aaa', [REXGRADIENT_REPO]: 'v1.0' }],
    // a pin for a repo this --what does not fetch is accepted and unused
    ['ReXVQA=aaa,ReXGradient-160K=bbb', [REXGRADIENT_REPO], { [REXGRADIENT_REPO]: 'bbb' }],
  ];
  for (const [value, repos, expected] of cases) assert.deepEqual(parseRevisions(value, repos), expected, String(value));
});

test('parseRevisions: a pair naming no known repo or no revision is refused with the pair', () => {
  for (const pair of ['Other=aaa', 'ReXVQA=', '=aaa', 'rajpurkarlab/Other=aaa']) {
    assert.throws(() => parseRevisions(`${pair},ReXGradient-160K=b`, [REXVQA_REPO, REXGRADIENT_REPO]), (e: unknown) => e instanceof CxrError && e.code === 'bad-option' && e.message === `--revision: "${pair}" is not <repo>=<revision> with repo ReXVQA or ReXGradient-160K`, pair);
  }
});
