/** `cxrbench corpus import`: every source record becomes a report or a rejection with its reason; bad files fail naming the file. */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/records.js';

const jsonl = (file: string) => readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);

test('CSV: empty, None and NaN reports, non-UTF-8 bytes, a 1 MB report and a repeated id are rejected with reasons; good rows are normalised', async () => {
  const dir = tempDir();
  const file = join(dir, 'reports.csv');
  const big = 'There is a small left pleural effusion. '.repeat(26_000);
  const rows = [
    'uid,indication,comparison,findings,impression',
    '1,Cough.,None.,There is a small left pleural effusion.,Left effusion.',
    '2,,,,',
    '3,None,None,None,None',
    '4,nan,nan,NaN,nan',
    `5,,,${big},`,
    '1,Duplicate.,,No pneumothorax.,Normal.',
    '6,Fever.,,"Right lower lobe consolidation, no effusion.",Pneumonia.',
  ];
  const bytes = Buffer.concat([Buffer.from(`${rows.join('\n')}\n`), Buffer.from('7,,,Bad byte here: '), Buffer.from([0xff, 0xfe]), Buffer.from(' effusion.,\n')]);
  writeFileSync(file, bytes);
  const out = join(dir, 'corpus.jsonl');
  const run = await runCli(['corpus', 'import', file, '--format', 'csv', '--out', out]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /imported 2 report\(s\) .*; 6 record\(s\) rejected/);
  const reports = jsonl(out);
  assert.deepEqual(reports.map((r) => r.id), ['1', '6']);
  assert.deepEqual((reports[0] as { sections: unknown }).sections, { indication: 'Cough.', comparison: null, findings: 'There is a small left pleural effusion.', impression: 'Left effusion.' });
  const rejected = jsonl(join(dir, 'corpus.rejected.jsonl')) as { source: { record: string }; reason: string }[];
  assert.deepEqual(rejected.map((r) => [r.source.record, r.reason.split(':')[0]]), [
    ['row 3', 'no report text'], ['row 4', 'no report text'], ['row 5', 'no report text'],
    ['row 6', `the report is ${big.trim().length.toLocaleString('en')} characters long (limit 200,000)`.split(':')[0]],
    ['row 7', 'duplicate report id'], ['row 9', 'the report has bytes that are not UTF-8 (read as U+FFFD); re-encode the file as UTF-8'],
  ]);
});

test('CSV with --map: the named columns are read; a mapped column that does not exist, or no report column, is an error naming the file and the columns', async () => {
  const dir = tempDir();
  const file = join(dir, 'r.csv');
  writeFileSync(file, 'StudyKey,Patient,FINDINGS_TEXT,IMPRESSION_TEXT\nA1,P1,No effusion.,Normal.\n');
  const ok = await runCli(['corpus', 'import', file, '--format', 'csv', '--map', 'id=StudyKey,patient=Patient,findings=FINDINGS_TEXT,impression=IMPRESSION_TEXT', '--out', join(dir, 'c.jsonl')]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.deepEqual(jsonl(join(dir, 'c.jsonl')).map((r) => [r.id, r.patientId]), [['A1', 'P1']]);
  const missing = await runCli(['corpus', 'import', file, '--format', 'csv', '--map', 'findings=REPORT', '--out', join(dir, 'd.jsonl')]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /r\.csv: --map findings=REPORT, but there is no column "REPORT"; the columns are StudyKey, Patient, FINDINGS_TEXT, IMPRESSION_TEXT/);
  const none = await runCli(['corpus', 'import', file, '--format', 'csv', '--out', join(dir, 'e.jsonl')]);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /r\.csv: no findings or impression column/);
  const badMap = await runCli(['corpus', 'import', file, '--format', 'csv', '--map', 'report=X', '--out', join(dir, 'f.jsonl')]);
  assert.equal(badMap.code, 2);
  assert.match(badMap.stderr, /unknown field "report"; the fields are id, patient/);
});

test('JSONL: a line that is not JSON or not an object is a rejection naming the line; a missing file is an error', async () => {
  const dir = tempDir();
  const file = join(dir, 'r.jsonl');
  writeFileSync(file, ['{"id": "a", "findings": "Small right effusion.", "images": ["x.png"], "views": ["PA"]}', '{"id": "b", "findings"', '[1, 2]', '', '{"id": "c", "impression": null, "findings": ""}'].join('\n'));
  const run = await runCli(['corpus', 'import', file, '--format', 'jsonl', '--out', join(dir, 'c.jsonl')]);
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(jsonl(join(dir, 'c.jsonl')).map((r) => [r.id, r.images]), [['a', [{ path: 'x.png', view: 'PA' }]]]);
  assert.deepEqual((jsonl(join(dir, 'c.rejected.jsonl')) as { source: { record: string }; reason: string }[]).map((r) => [r.source.record, r.reason.split(':')[0]]), [['line 2', 'not JSON'], ['line 3', 'not a JSON object'], ['line 5', 'no report text']]);
  const gone = await runCli(['corpus', 'import', join(dir, 'nope.jsonl'), '--format', 'jsonl', '--out', join(dir, 'x.jsonl')]);
  assert.equal(gone.code, 2);
  assert.match(gone.stderr, /nope\.jsonl: cannot read the reports \(ENOENT\)/);
  const format = await runCli(['corpus', 'import', file, '--format', 'xml', '--out', join(dir, 'x.jsonl')]);
  assert.equal(format.code, 2);
  assert.match(format.stderr, /--format xml: expected one of rexgradient, csv, jsonl/);
});

test('generate: a corpus file that is not a corpus fails naming the file, line and field', async () => {
  const dir = tempDir();
  const file = join(dir, 'c.jsonl');
  writeFileSync(file, '{"id": "a", "patientId": null, "sections": {"findings": "x"}}\n');
  const run = await runCli(['generate', file, '--out', join(dir, 'out')]);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /c\.jsonl line 1, field sections\.indication: /);
});

test('review fixes: a missing CSV, a folder or a bad image list is a clear error, not a hang or a stack; one JSONL record without report keys is a rejection', async () => {
  const dir = tempDir();
  for (const [args, message] of [
    [['corpus', 'import', join(dir, 'nope.csv'), '--format', 'csv'], /nope\.csv: cannot read the reports \(ENOENT\)/],
    [['corpus', 'import', dir, '--format', 'csv'], /cannot read the reports \(it is a folder, not a file\)/],
    [['corpus', 'import', dir, '--format', 'jsonl'], /cannot read the reports \(it is a folder, not a file\)/],
    [['generate', dir, '--out', join(dir, 'x')], /cannot read the corpus .* \(it is a folder, not a file\)/],
  ] as const) {
    const run = await runCli([...args, ...(args[0] === 'corpus' ? ['--out', join(dir, 'o.jsonl')] : [])]);
    assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
    assert.match(run.stderr, message);
    assert.doesNotMatch(run.stderr, /\n\s+at /);
  }
  writeFileSync(join(dir, 'r.csv'), 'uid,findings\n1,Small left effusion.\n');
  writeFileSync(join(dir, 'img.csv'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x22, 0x0a, 0x22, 0x61, 0x22, 0x62]));
  const badImages = await runCli(['corpus', 'import', join(dir, 'r.csv'), '--format', 'csv', '--images-csv', join(dir, 'img.csv'), '--out', join(dir, 'sub', 'deeper', 'o.jsonl')]);
  assert.equal(badImages.code, 2, badImages.stderr);
  assert.doesNotMatch(badImages.stderr, /\n\s+at /);
  writeFileSync(join(dir, 'j.jsonl'), '{"id": "a", "findings": "Small left effusion."}\n{"id": "b", "text": "no report keys"}\n');
  const partial = await runCli(['corpus', 'import', join(dir, 'j.jsonl'), '--format', 'jsonl', '--out', join(dir, 'new', 'j.out.jsonl')]);
  assert.equal(partial.code, 0, partial.stderr);
  assert.match(partial.stdout, /imported 1 report\(s\) .*; 1 record\(s\) rejected/);
});

test('JSONL in which no record has the report\'s keys is refused whole, as a CSV without a report column is: exit 2 naming the file and the keys expected', async () => {
  const dir = tempDir();
  const cases = [
    { name: 'no-keys.jsonl', text: '{"id": "a", "text": "Small left effusion."}\n{"id": "b", "report": "Clear lungs."}\n', map: [], stderr: 'no-keys.jsonl: none of its 2 record(s) has a findings or impression key (the first has keys id, text); name the report\'s keys with --map findings=<key>,impression=<key>' },
    { name: 'mapped.jsonl', text: '{"id": "a", "findings": "Small left effusion."}\n', map: ['--map', 'findings=FINDINGS_TEXT'], stderr: 'mapped.jsonl: none of its 1 record(s) has the keys --map names (findings=FINDINGS_TEXT) (the first has keys id, findings); name the report\'s keys with --map findings=<key>,impression=<key>' },
    { name: 'not-objects.jsonl', text: 'id,findings\na,Clear.\n', map: [], stderr: 'not-objects.jsonl: no JSON object on any line; expected one report per line, with a findings or impression key' },
    { name: 'empty.jsonl', text: '', map: [], stderr: 'empty.jsonl: no JSON object on any line; expected one report per line, with a findings or impression key' },
  ];
  for (const c of cases) {
    const file = join(dir, c.name);
    writeFileSync(file, c.text);
    const out = join(dir, `${c.name}.out.jsonl`);
    const run = await runCli(['corpus', 'import', file, '--format', 'jsonl', ...c.map, '--out', out]);
    assert.deepEqual([run.code, run.stderr], [2, `cxrbench: ${join(dir, c.stderr)}\n`], c.name);
    assert.equal(existsSync(out), false, `${c.name}: no corpus written`);
  }
});
