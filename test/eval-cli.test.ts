import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { DEMO_DATASET } from '../src/cli/commands/demo-dataset.js';
import { runCli } from './helpers/cli.js';
import { DEMO_TEST } from './helpers/demo.js';
import { tempDir } from './helpers/records.js';

const outcomes = (dir: string) => readFileSync(join(dir, 'outcomes.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { questionId: string; status: string; predicted: string | null });

test('eval cli: a baseline run prints accuracy per task, labels the baseline, and writes every run file', async () => {
  const out = join(tempDir(), 'run');
  const run = await runCli(['eval', '--data', DEMO_DATASET, '--model', 'baseline:random', '--seed', '7', '--out', out, '--quiet']);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^\[baseline\] random on demo\/test/);
  assert.match(run.stdout, new RegExp(`all questions \\(micro\\)\\s+${DEMO_TEST.n}`));
  assert.match(run.stdout, /ReXrank overall \(mean of 5 task accuracies\)/);
  const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
  assert.equal(manifest.adapter.baseline, true);
  assert.equal(manifest.dataset.count, DEMO_TEST.n);
  assert.match(manifest.dataset.sha256, /^[0-9a-f]{64}$/);
  assert.match(manifest.prompt.sha256, /^[0-9a-f]{64}$/);
  assert.equal(manifest.extractor.name, 'cxrbench-reader');
  const rexrank = JSON.parse(readFileSync(join(out, 'rexrank-predictions.json'), 'utf8')) as Record<string, Record<string, unknown>>;
  assert.equal(Object.keys(rexrank).length, DEMO_TEST.n);
  assert.ok(Object.values(rexrank).every((r) => typeof r.model_prediction === 'string' && Array.isArray(r.options) && typeof r.correct_answer === 'string'));
  const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
  assert.equal(summary.baseline, true);
});

test('eval cli: replaying a run\'s own ReXrank file reproduces its outcomes exactly (JSONL and CSV too)', async () => {
  const dir = tempDir();
  const first = join(dir, 'first');
  assert.equal((await runCli(['eval', '--data', DEMO_DATASET, '--model', 'baseline:text-only', '--out', first, '--quiet'])).code, 0);
  const replayed = join(dir, 'replayed');
  const run = await runCli(['eval', '--data', DEMO_DATASET, '--model', `replay:${join(first, 'rexrank-predictions.json')}`, '--out', replayed, '--quiet']);
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(outcomes(replayed).map((o) => [o.questionId, o.status, o.predicted]), outcomes(first).map((o) => [o.questionId, o.status, o.predicted]));
  const csv = join(dir, 'p.csv');
  writeFileSync(csv, `id,prediction\n${outcomes(first).map((o) => `${o.questionId},"The answer is ${o.predicted}."`).join('\n')}\n`);
  const fromCsv = join(dir, 'csv');
  assert.equal((await runCli(['eval', '--data', DEMO_DATASET, '--model', `replay:${csv}`, '--out', fromCsv, '--quiet'])).code, 0);
  assert.deepEqual(outcomes(fromCsv).map((o) => o.predicted), outcomes(first).map((o) => o.predicted));
});

test('eval cli: replay of a partial file marks the missing questions as errors, naming them', async () => {
  const dir = tempDir();
  const file = join(dir, 'p.jsonl');
  writeFileSync(file, `${JSON.stringify({ id: DEMO_TEST.ids[0], prediction: '{"answer": "A"}' })}\n`);
  const out = join(dir, 'run');
  const run = await runCli(['eval', '--data', DEMO_DATASET, '--model', `replay:${file}`, '--out', out, '--quiet']);
  assert.equal(run.code, 5, 'a run that ends with errors says so in its exit code');
  const missing = DEMO_TEST.n - 1;
  assert.match(run.stdout, new RegExp(`FINISHED WITH ERRORS: ${missing} of ${DEMO_TEST.n} question\\(s\\) ended in error after their retries \\(client ${missing}\\)`));
  const statuses = outcomes(out).map((o) => o.status);
  assert.equal(statuses.filter((s) => s === 'error').length, missing);
  const journal = readFileSync(join(out, 'predictions.jsonl'), 'utf8');
  assert.ok(journal.includes(`no prediction for question \\"${DEMO_TEST.ids[1]}\\"`));
});

test('extract-audit: shows how many items and points strict extraction versus the full rules moves', async () => {
  const dir = tempDir();
  const file = join(dir, 'p.jsonl');
  const first = join(dir, 'ids');
  await runCli(['eval', '--data', DEMO_DATASET, '--model', 'baseline:random', '--out', first, '--quiet']);
  const realIds = outcomes(first).map((o) => o.questionId);
  assert.equal(realIds.length, DEMO_TEST.n);
  const n = realIds.length;
  const pct = (k: number) => (100 * k / n).toFixed(2).replace('.', '\\.');
  const gold = JSON.parse(readFileSync(join(first, 'rexrank-predictions.json'), 'utf8')) as Record<string, { correct_answer: string }>;
  // 4 JSON answers (read by both), 6 phrase answers (lenient only), 4 hedges (neither).
  const lines = realIds.map((id, i) => {
    const letter = gold[id]!.correct_answer;
    const output = i < 4 ? JSON.stringify({ answer: letter }) : i < 10 ? `The answer is ${letter}.` : 'A or B';
    return JSON.stringify({ id, prediction: output });
  });
  writeFileSync(file, lines.join('\n') + '\n');
  const out = join(dir, 'run');
  assert.equal((await runCli(['eval', '--data', DEMO_DATASET, '--model', `replay:${file}`, '--out', out, '--quiet'])).code, 0);
  const audit = await runCli(['extract-audit', out]);
  assert.equal(audit.code, 0, audit.stderr);
  assert.match(audit.stdout, new RegExp(`strict \\(JSON, tags\\)\\s+${pct(4)}%\\s+4\\s+0\\s+${n - 4}\\s+0`));
  assert.match(audit.stdout, new RegExp(`rules\\s+${pct(10)}%\\s+10\\s+0\\s+${n - 10}\\s+0`));
  assert.match(audit.stdout, new RegExp(`rules vs strict \\(JSON, tags\\): ${pct(6)} accuracy points; 6 item\\(s\\) change`));
  assert.match(audit.stdout, /unparseable → correct\s+6/);
  assert.match(audit.stdout, /No judge: give --judge/);
  const missing = await runCli(['extract-audit', dir]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /not a run folder/);
});

const failures: { name: string; args: string[]; env?: Record<string, string>; stderr: RegExp }[] = [
  { name: 'an unknown model spec', args: ['--model', 'gpt-9'], stderr: /unknown model spec\. Expected one of: baseline:random/ },
  { name: 'an openai model without endpoint', args: ['--model', 'openai:x'], stderr: /needs --endpoint/ },
  { name: 'a missing key variable', args: ['--model', 'openai:x', '--endpoint', 'http://127.0.0.1:9/v1', '--api-key-env', 'CXRBENCH_NO_SUCH_KEY'], stderr: /CXRBENCH_NO_SUCH_KEY, which is not set/ },
  { name: 'an unreachable endpoint', args: ['--model', 'openai:x', '--endpoint', 'http://127.0.0.1:9/v1'], stderr: /cannot reach http:\/\/127\.0\.0\.1:9\/v1/ },
  { name: 'a missing replay file', args: ['--model', 'replay:/nonexistent/p.jsonl'], stderr: /the replay file of --model \/nonexistent\/p\.jsonl: cannot read the file \(ENOENT\)/ },
  { name: 'an unknown split', args: ['--model', 'baseline:random', '--split', 'dev'], stderr: /--split dev: .* has splits train, valid, test/ },
  { name: 'a cost budget without a price', args: ['--model', 'baseline:random', '--cost-budget', '5'], stderr: /--cost-budget needs --price/ },
  { name: 'a malformed price', args: ['--model', 'baseline:random', '--price', '5'], stderr: /--price 5: expected <input>\/<output>/ },
  { name: 'a bad prompt template', args: ['--model', 'baseline:random', '--prompt', 'nope'], stderr: /no such built-in template/ },
];

for (const c of failures) {
  test(`eval cli: ${c.name} fails before the run with exit 2`, async () => {
    const out = join(tempDir(), 'run');
    const run = await runCli(['eval', '--data', DEMO_DATASET, '--out', out, '--quiet', ...c.args], c.env ? { env: c.env } : {});
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, c.stderr);
    assert.doesNotMatch(run.stderr, /\n\s+at /);
  });
}

test('eval cli: progress goes to stderr (done/total, rate, ETA, errors, unparseable) unless --quiet', async () => {
  const out = join(tempDir(), 'run');
  const loud = await runCli(['eval', '--data', DEMO_DATASET, '--model', 'baseline:random', '--out', out]);
  assert.match(loud.stderr, new RegExp(`${DEMO_TEST.n}/${DEMO_TEST.n} · [\\d.]+/s · ETA — · errors 0 · unparseable 0 · in flight 0/8`));
  const quiet = await runCli(['eval', '--data', DEMO_DATASET, '--model', 'baseline:random', '--out', join(tempDir(), 'q'), '--quiet']);
  assert.equal(quiet.stderr, '');
});

test('eval cli: a run whose questions end in error after their retries does not say "complete": exit 5, the count per kind, and --retry-errors asks exactly those again', async () => {
  const { startFakeOpenAI } = await import('./helpers/fake-openai-server.js');
  let failing = true;
  // A quarter of the questions (by their text) fail with 500 on every attempt while `failing` holds.
  const server = await startFakeOpenAI({ fault: (_i, r) => (failing && r.text.length % 4 === 0 ? '500' : null) });
  try {
    const out = join(tempDir(), 'run');
    const args = ['eval', '--data', DEMO_DATASET, '--model', 'openai:fake', '--endpoint', server.url, '--out', out, '--quiet', '--max-attempts', '2', '--retry-base-ms', '1'];
    const first = await runCli(args);
    const failed = outcomes(out).filter((o) => o.status === 'error').length;
    assert.ok(failed > 0, 'some questions failed');
    assert.equal(first.code, 5, first.stderr);
    assert.match(first.stdout, new RegExp(`FINISHED WITH ERRORS: ${failed} of ${DEMO_TEST.n} question\\(s\\) ended in error after their retries \\(server ${failed}\\); they count as wrong\\. Rerun the same command with --retry-errors`));
    assert.doesNotMatch(first.stdout, /complete: \d+ of \d+/);
    failing = false;
    const asked = server.requests.length;
    const retried = await runCli([...args, '--retry-errors']);
    assert.equal(retried.code, 0, retried.stderr);
    assert.equal(server.requests.length - asked, failed, 'only the failed questions are asked again');
    assert.ok(retried.stdout.includes(`complete: ${DEMO_TEST.n} of ${DEMO_TEST.n} questions answered`));
  } finally {
    await server.close();
  }
});
