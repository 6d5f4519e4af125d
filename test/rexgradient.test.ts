import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { collect } from './helpers/collect.js';
import { readRexgradientStudies, rexgradientStudyKey } from '../src/dataset/sources/rexgradient.js';
import { tempDir } from './helpers/records.js';


const key = rexgradientStudyKey('P9', 'A9', '1.2.3');

test('ReXGradient JSON: studies with report sections and views; NaN, "None", stringified lists and leading / repaired and counted', async () => {
  const dir = tempDir();
  writeFileSync(
    join(dir, 'test_metadata_view_position.json'),
    `{"${key}": {"PatientID": "P9", "AccessionNumber": "A9", "StudyInstanceUid": "1.2.3", "StudyDate": "20210101", "PatientAge": 54, "PatientSex": "F",
      "Indication": "Dyspnea.", "Comparison": "None", "Findings": "Small left effusion.", "Impression": NaN,
      "ImagePath": "['/deid_png/P9/a.png', '../deid_png/P9/b.png']", "ImageViewPosition": ["PA", "LATERAL"]}}`,
  );
  const [read] = await collect(readRexgradientStudies(dir));
  assert.deepEqual(read!.study, {
    id: 'pP9_aA9_s1.2.3',
    split: 'test',
    images: [{ path: 'deid_png/P9/a.png', view: 'PA' }, { path: '../deid_png/P9/b.png', view: 'LATERAL' }],
    patient: { id: 'P9', age: '54', sex: 'F' },
    studyDate: '20210101',
    studyInstanceUid: '1.2.3',
    accessionNumber: 'A9',
    report: { indication: 'Dyspnea.', comparison: null, findings: 'Small left effusion.', impression: null },
  });
  assert.deepEqual(read!.issues.map((i) => [i.code, i.field]).sort(), [
    ['nan-literal', 'Impression'], ['none-string', 'Comparison'], ['path-leading-slash', 'ImagePath'], ['stringified-list', 'ImagePath'],
  ]);
});

test('ReXGradient CSV: one study per row, key built from the ids, quoted multi-line report text', async () => {
  const dir = tempDir();
  writeFileSync(
    join(dir, 'valid_metadata.csv'),
    'PatientID,AccessionNumber,StudyInstanceUid,PatientSex,Findings,Impression,ImagePath,ImageViewPosition\n' +
      `P9,A9,1.2.3,M,"Line one.\nLine two, with comma.",,"['../x.png']","['AP']"\n`,
  );
  const [read] = await collect(readRexgradientStudies(dir));
  assert.equal(read!.study!.id, key);
  assert.equal(read!.study!.split, 'valid');
  assert.equal(read!.study!.report.findings, 'Line one.\nLine two, with comma.');
  assert.equal(read!.study!.report.impression, null);
  assert.deepEqual(read!.study!.images, [{ path: '../x.png', view: 'AP' }]);
});

test('ReXGradient: a record of the wrong type is reported with its field, a folder without metadata is a clear error', async () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'train_metadata_view_position.json'), '{"k": {"Findings": {"x": 1}}, "j": [1]}');
  const reads = await collect(readRexgradientStudies(dir));
  assert.deepEqual(reads.map((r) => [r.study, r.issues.map((i) => [i.code, i.field])]), [
    [null, [['wrong-type', 'Findings']]],
    [null, [['record-not-object', null]]],
  ]);
  await assert.rejects(collect(readRexgradientStudies(tempDir())), /expected <split>_metadata_view_position\.json files or per-split CSVs; found: nothing/);
});
