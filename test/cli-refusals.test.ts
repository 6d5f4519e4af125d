import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadBenchmarkFromDataset } from '../src/board/load-benchmark.js';
import { DEMO_DATASET } from '../src/cli/commands/demo-dataset.js';
import { migrate, openStore } from '../src/store/connect.js';
import { setStudyState } from '../src/store/studies.js';
import { createStudyFromSet } from '../src/study/create-study.js';
import { runCli, type CliRun } from './helpers/cli.js';
import { demoTestQuestions } from './helpers/board.js';
import { tempDir } from './helpers/records.js';

/** Runs the cases a few at a time (each is a process of its own). */
async function runAll(cases: readonly (readonly string[])[], parallel = 3): Promise<CliRun[]> {
  const out: CliRun[] = new Array(cases.length);
  let next = 0;
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (next < cases.length) {
      const k = next++;
      out[k] = await runCli([...cases[k]!]);
    }
  }));
  return out;
}

/**
 * Every argument or input error of the CLI is exit 2 with one line naming the path (or option) and what to do —
 * never a stack trace or exit 70 — and a command that only reads the board never creates its database.
 */
test('cli refusals: wrong data folders, outputs, URLs, names, closed studies, devices, pipes, oversized and repeated-id files are exit 2 with one line', { timeout: 180_000 }, async () => {
  const dir = tempDir();
  const file = join(dir, 'a-file');
  writeFileSync(file, 'not a folder\n');
  const fifo = join(dir, 'pipe.jsonl');
  execFileSync('mkfifo', [fifo]);
  const big = join(dir, 'big.json');
  writeFileSync(big, '');
  truncateSync(big, 300 * 1024 * 1024); // sparse: takes no disk
  const missing = join(dir, 'no-such-board');
  const board = join(dir, 'board');
  const store = await openStore({ sqliteFile: join(board, 'board.sqlite') });
  await migrate(store);
  await loadBenchmarkFromDataset(store, 'test', DEMO_DATASET, 'test', { slug: 'demo', title: 'Demo', version: '1', dailyLimit: 5, totalLimit: 50, open: true });
  const plan = { mode: 'stratified' as const, n: 4, task: null, seed: 1 };
  const open = (await createStudyFromSet(store, 'test', { data: DEMO_DATASET, splits: ['test'], title: 'Open', plan })).study.id;
  const closed = (await createStudyFromSet(store, 'test', { data: DEMO_DATASET, splits: ['test'], title: 'Closed', plan })).study.id;
  for (const id of [open, closed]) await setStudyState(store, 'test', id, 'open');
  await setStudyState(store, 'test', closed, 'closed');
  await store.close();
  // ReXrank JSON whose object repeats two ids (JSON.parse would keep the last of each without a word)
  const [q1, q2, ...rest] = (await demoTestQuestions()).map((q) => q.id);
  const dups = join(dir, 'dups.json');
  writeFileSync(dups, `{${[q1, q2, ...rest, q1, q2].map((id) => `"${id}": {"model_prediction": "A"}`).join(', ')}}`);
  const input = join(dir, 'outputs.jsonl');
  writeFileSync(input, '{"id": "a", "output": "B"}\n');
  const outFolder = join(dir, 'out-folder');
  mkdirSync(outFolder);
  // Someone's folder, mistyped as the demo's output: the demo empties its folder, so it must refuse this one.
  // A dataset whose question file is a pipe: reading it would wait forever for a writer.
  const pipedSet = join(dir, 'piped-set');
  mkdirSync(join(pipedSet, 'metadata'), { recursive: true });
  execFileSync('mkfifo', [join(pipedSet, 'metadata', 'test_vqa_data.json')]);
  const emptyCorpus = join(dir, 'empty-corpus.jsonl');
  writeFileSync(emptyCorpus, '');
  const someonesFolder = join(dir, 'my-data');
  mkdirSync(someonesFolder);
  writeFileSync(join(someonesFolder, 'notes.txt'), 'mine\n');
  const d = ['--data-dir', board];
  const noBoard = (path: string) => `there is no board database at ${join(path, 'board.sqlite')}: check the folder (--data-dir), or create one there with \`cxrbench db migrate --data-dir ${path}\``;
  const cases: { args: string[]; stderr: string }[] = [
    { args: ['study', 'list', '--data-dir', file], stderr: `${file} is a file, not a folder: give the folder that holds (or is to hold) the board's database, board.sqlite` },
    { args: ['db', 'migrate', '--data-dir', file], stderr: `${file} is a file, not a folder: give the folder that holds (or is to hold) the board's database, board.sqlite` },
    { args: ['study', 'list', '--data-dir', missing], stderr: noBoard(missing) },
    { args: ['review', 'list', '--data-dir', missing], stderr: noBoard(missing) },
    { args: ['study', 'export', open, '--out', outFolder, '--data-dir', missing], stderr: noBoard(missing) },
    { args: ['board', 'close', '--slug', 'demo', '--data-dir', missing], stderr: noBoard(missing) },
    { args: ['study', 'export', open, '--out', file, ...d], stderr: `--out ${file} is a file: give a folder to write into (it is created if missing)` },
    { args: ['review', 'export', 'some-queue', '--version', '1', '--out', file, ...d], stderr: `--out ${file} is a file: give a folder to write into (it is created if missing)` },
    { args: ['eval', '--data', DEMO_DATASET, '--model', 'baseline:random', '--out', file, '--quiet'], stderr: `--out ${file} is a file: give a folder to write into (it is created if missing)` },
    { args: ['data', 'validate', fifo], stderr: `${fifo}: a named pipe (FIFO), not a folder or a file. Expected a ReXVQA folder (with metadata/<split>_vqa_data.json) or a JSONL file.` },
    { args: ['data', 'stats', pipedSet], stderr: `${join(pipedSet, 'metadata', 'test_vqa_data.json')}: a named pipe (FIFO), not a regular file; save the questions to a file and give its path` },
    { args: ['generate', emptyCorpus, '--out', join(dir, 'generated')], stderr: `${emptyCorpus}: no report in the corpus; make one with \`cxrbench corpus import <reports> --format csv|jsonl|rexgradient --out corpus.jsonl\`` },
    { args: ['demo', '--out', someonesFolder], stderr: `--out ${someonesFolder} holds files the demo did not make (notes.txt); the demo empties its folder first, so give a new or empty folder` },
    { args: ['demo', '--out', file], stderr: `--out ${file} is a file, not a folder: give a folder for the demo's runs` },
    { args: ['extract', '--in', input, '--out', outFolder], stderr: `${outFolder} is a folder: give the name of a file to write` },
    { args: ['extract', '--in', input, '--out', join(file, 'x.jsonl')], stderr: `cannot write the file ${join(file, 'x.jsonl')}: part of its path is a file, not a folder` },
    { args: ['study', 'invite', closed, ...d], stderr: 'the study is closed: its answers are frozen and no reader can be invited' },
    { args: ['study', 'invite', open, '--url', 'javascript:alert(1)', ...d], stderr: '--url javascript:alert(1): expected an http(s) address such as https://board.example.org' },
    { args: ['study', 'invite', open, '--url', 'localhost:8080', ...d], stderr: '--url localhost:8080: expected an http(s) address such as https://board.example.org' },
    { args: ['study', 'invite', open, '--name', '   ', ...d], stderr: '--name "   ": empty; give the text results and pages should show' },
    { args: ['study', 'create', DEMO_DATASET, '--title', ' ', ...d], stderr: '--title " ": empty; give the text results and pages should show' },
    { args: ['review', 'create', DEMO_DATASET, '--title', '', '--reviewers', 'a@lab.org', ...d], stderr: '--title "": empty; give the text results and pages should show' },
    { args: ['board', 'user', '--email', 'a@lab.org', '--password-env', 'CXR_NONE', '--team', '\t', ...d], stderr: '--team "\t": empty; give the text results and pages should show' },
    { args: ['study', 'add-model', open, '--name', 'M', '--pred', '/dev/zero', ...d], stderr: '--pred /dev/zero: a character device, not a regular file; save the data to a file and give its path' },
    { args: ['study', 'add-model', open, '--name', 'M', '--pred', fifo, ...d], stderr: `--pred ${fifo}: a named pipe (FIFO), not a regular file; save the data to a file and give its path` },
    { args: ['study', 'add-model', open, '--name', 'M', '--pred', big, ...d], stderr: `--pred ${big}: 300 MB, larger than the 256 MB a command reads whole` },
    { args: ['study', 'add-model', open, '--name', 'M', '--pred', dups, ...d], stderr: `${dups}: 2 id(s) appear more than once ("${q1}", "${q2}"); give each id once` },
    { args: ['eval', '--data', DEMO_DATASET, '--model', `replay:${dups}`, '--out', join(dir, 'run'), '--quiet'], stderr: `${dups}: 2 id(s) appear more than once ("${q1}", "${q2}"); give each id once` },
    { args: ['eval', '--data', DEMO_DATASET, '--model', 'replay:/dev/zero', '--out', join(dir, 'run'), '--quiet'], stderr: 'the replay file of --model /dev/zero: a character device, not a regular file; save the data to a file and give its path' },
    { args: ['board', 'add-run', '--slug', 'demo', '--predictions', dups, '--model', '{"name":"x"}', ...d], stderr: `${dups}: 2 id(s) appear more than once: "${q1}", "${q2}"` },
    { args: ['board', 'add-run', '--slug', 'demo', '--predictions', big, '--model', '{"name":"x"}', ...d], stderr: `--predictions ${big}: 300 MB, larger than the 256 MB a command reads whole` },
    { args: ['board', 'add-run', '--slug', 'demo', '--predictions', dups, '--model', '{name', ...d], stderr: '--model: not JSON (Expected property name or \'}\' in JSON at position 1 (line 1 column 2)); give the model card as JSON, e.g. {"name":"text-only"}' },
    { args: ['board', 'load', '--data', DEMO_DATASET, '--slug', 'demo-2', '--daily-limit', 'many', ...d], stderr: '--daily-limit many: expected a whole number ≥ 0' },
    { args: ['extract', '--in', '/dev/zero'], stderr: '--in /dev/zero: a character device, not a regular file; save the data to a file and give its path' },
    { args: ['corpus', 'import', fifo, '--format', 'jsonl', '--out', join(dir, 'corpus.jsonl')], stderr: `${fifo}: cannot read the reports (it is a named pipe, not a regular file; save the data to a file)` },
    { args: ['agreement', input, fifo], stderr: `answer file ${fifo}: a named pipe (FIFO), not a regular file; save the data to a file and give its path` },
    { args: ['agreement', input, input, '--gold', '/dev/zero'], stderr: '--gold /dev/zero: a character device, not a regular file; save the data to a file and give its path' },
  ];
  const runs = await runAll(cases.map((c) => c.args));
  assert.deepEqual(runs.map((r, k) => ({ args: cases[k]!.args.join(' '), code: r.code, stderr: r.stderr })), cases.map((c) => ({ args: c.args.join(' '), code: 2, stderr: `cxrbench: ${c.stderr}\n` })));
  assert.equal(existsSync(missing), false, 'no command that reads the board created its folder or database');
  assert.equal(readFileSync(join(someonesFolder, 'notes.txt'), 'utf8'), 'mine\n', 'the demo left a folder it did not make as it was');
  const serve = await runCli(['serve', '--data-dir', missing, '--port', '0']);
  assert.deepEqual([serve.code, serve.stderr], [2, `cxrbench serve: ${noBoard(missing)}\n`]);
  const port = await runCli(['serve', '--data-dir', board, '--port', '99999', '--workers', '0']);
  assert.deepEqual([port.code, port.stderr], [2, 'cxrbench serve: --port 99999: expected a port, a whole number from 0 to 65535 (0: any free port)\n']);
  assert.equal(existsSync(missing), false, 'serve without --migrate does not create a database either');
});
