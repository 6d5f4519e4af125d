import assert from 'node:assert/strict';
import { lstatSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { DEMO_DATASET } from '../src/cli/commands/demo-dataset.js';
import { stratifiedSample } from '../src/dataset/stratified-sample.js';
import { runCli } from './helpers/cli.js';
import { demoSplit } from './helpers/demo.js';
import { letterFor, startFakeOpenAI, type FakeServer } from './helpers/fake-openai-server.js';
import { tempDir } from './helpers/records.js';

type Outcome = { questionId: string; status: string; task: string };
const outcomes = (dir: string) => readFileSync(join(dir, 'outcomes.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Outcome);
const manifestOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));

let server: FakeServer;
before(async () => {
  // Two stand-in models behind one endpoint: "a" answers in JSON, "b" in words and with another letter for some.
  server = await startFakeOpenAI({
    reply: (r) => (r.body.model === 'a' ? JSON.stringify({ answer: letterFor(r.text) }) : `The answer is ${r.text.length % 3 === 0 ? 'A' : letterFor(r.text)}.`),
  });
});
after(() => server.close());

const evalArgs = (data: string, model: string, out: string, ...more: string[]) => ['eval', '--data', data, '--model', `openai:${model}`, '--endpoint', server.url, '--out', out, '--quiet', ...more];

test('sample: eval --sample 20% --stratify task on the full split and eval on `data subset` of it ask the same question ids; the subset validates with its images; the manifest records the sample', async () => {
  const dir = tempDir();
  const sampled = join(dir, 'sampled');
  const run = await runCli(evalArgs(DEMO_DATASET, 'a', sampled, '--split', 'test', '--sample', '20%', '--stratify', 'task', '--seed', '3'));
  assert.equal(run.code, 0, run.stderr);
  // 11 of the demo's 57: quotas 14·11/57 = 2.70, 13 → 2.51, 11 → 2.12, 10 → 1.93, 9 → 1.74; floors 2,2,2,1,1 and the
  // three leftovers to the largest remainders (Negation .93, Geometric .74, Presence .70).
  const strata = {
    'Differential Diagnosis': { selected: 2, of: 11 }, 'Geometric Information Assessment': { selected: 2, of: 9 }, 'Location and Distribution Assessment': { selected: 2, of: 13 },
    'Negation Assessment': { selected: 2, of: 10 }, 'Presence Assessment': { selected: 3, of: 14 },
  };
  assert.deepEqual(manifestOf(sampled).sample, { size: 11, share: 0.2, stratify: 'task', seed: 3, strata });
  assert.equal(manifestOf(sampled).dataset.selected, 11);
  assert.match(run.stdout, /sample: 11 question\(s\) \(20%\) stratified by task, seed 3: Differential Diagnosis 2\/11, Geometric Information Assessment 2\/9, Location and Distribution Assessment 2\/13, Negation Assessment 2\/10, Presence Assessment 3\/14\n/);
  const demo = JSON.parse(readFileSync(join(DEMO_DATASET, 'metadata', 'test_vqa_data.json'), 'utf8')) as Record<string, { task_name: string; category: string | null; subcategory: string | null }>;
  const expected = stratifiedSample(Object.entries(demo).map(([id, r]) => ({ id, task: r.task_name, category: r.category, subcategory: r.subcategory })), { size: { kind: 'share', share: 0.2 }, stratify: 'task', seed: 3 });
  const sampledIds = outcomes(sampled).map((o) => o.questionId);
  assert.deepEqual(sampledIds, Object.keys(demo).filter((id) => expected.ids.has(id)), 'the sample, in file order');

  const mini = join(dir, 'mini');
  const subset = await runCli(['data', 'subset', DEMO_DATASET, '--split', 'test', '--sample', '20%', '--stratify', 'task', '--seed', '3', '--out', mini]);
  assert.equal(subset.code, 0, subset.stderr);
  assert.match(subset.stderr, /^test: 11 of 57 question\(s\) → .*metadata\/test_vqa_data\.json\nsample: 11 question\(s\) \(20%\)/);
  const written = JSON.parse(readFileSync(join(mini, 'metadata', 'test_vqa_data.json'), 'utf8')) as Record<string, { ImagePath: string[] }>;
  assert.deepEqual(Object.keys(written), sampledIds);
  const anImage = join(mini, 'metadata', written[sampledIds[0]!]!.ImagePath[0]!);
  assert.ok(lstatSync(anImage).isSymbolicLink(), 'images are linked, not copied, by default');
  const provenance = JSON.parse(readFileSync(join(mini, 'subset.json'), 'utf8'));
  assert.deepEqual([provenance.source.split, provenance.source.count, provenance.sample, provenance.ids], ['test', 57, { size: 11, share: 0.2, stratify: 'task', seed: 3, strata }, sampledIds]);
  const validate = await runCli(['data', 'validate', mini, '--images']);
  assert.equal(validate.code, 0, validate.stdout);
  assert.match(validate.stdout, /11 usable question\(s\) \(test 11\)[\s\S]*0 error\(s\), 0 warning\(s\), 0 repair\(s\)\. VALID/);

  const onSubset = join(dir, 'on-subset');
  const subsetRun = await runCli(evalArgs(mini, 'a', onSubset, '--split', 'test'));
  assert.equal(subsetRun.code, 0, subsetRun.stderr);
  assert.deepEqual(outcomes(onSubset), outcomes(sampled), 'the same ids, and the same outcomes from the same model');
});

test('sample: compare pairs two models run on the same sample (and two on the subset); other samples and other files need --force', async () => {
  const dir = tempDir();
  const same = ['--sample', '12', '--stratify', 'category', '--seed', '5'];
  const a = join(dir, 'a');
  const b = join(dir, 'b');
  for (const [model, out] of [['a', a], ['b', b]] as const) assert.equal((await runCli(evalArgs(DEMO_DATASET, model, out, ...same))).code, 0);
  const cmp = await runCli(['compare', a, b, '--format', 'json', '--resamples', '200']);
  assert.equal(cmp.code, 0, cmp.stderr);
  const result = JSON.parse(cmp.stdout);
  const correct = (dir: string) => new Set(outcomes(dir).filter((o) => o.status === 'correct').map((o) => o.questionId));
  const [ca, cb] = [correct(a), correct(b)];
  assert.equal(result.sharedItems, 12);
  assert.deepEqual([result.pairs[0].overall.n, result.pairs[0].overall.onlyA, result.pairs[0].overall.onlyB], [12, [...ca].filter((id) => !cb.has(id)).length, [...cb].filter((id) => !ca.has(id)).length]);
  assert.equal(result.pairs[0].overall.accuracyA, ca.size / 12);

  const mini = join(dir, 'mini');
  assert.equal((await runCli(['data', 'subset', DEMO_DATASET, '--split', 'test', ...same, '--out', mini, '--images', 'copy'])).code, 0);
  const [sa, sb] = [join(dir, 'sa'), join(dir, 'sb')];
  for (const [model, out] of [['a', sa], ['b', sb]] as const) assert.equal((await runCli(evalArgs(mini, model, out, '--split', 'test'))).code, 0);
  const onSubset = JSON.parse((await runCli(['compare', sa, sb, '--format', 'json', '--resamples', '200'])).stdout);
  assert.deepEqual(onSubset.pairs[0].overall, result.pairs[0].overall, 'the same pairing on the subset');

  const otherSeed = join(dir, 'other-seed');
  assert.equal((await runCli(evalArgs(DEMO_DATASET, 'b', otherSeed, '--sample', '12', '--stratify', 'category', '--seed', '6'))).code, 0);
  const refused = await runCli(['compare', a, otherSeed]);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /the runs cover different items: \d+ shared; .*pass --force/);
  const otherFile = await runCli(['compare', a, sa]);
  assert.equal(otherFile.code, 2);
  assert.match(otherFile.stderr, /different dataset versions; pass --force/);
  const forced = JSON.parse((await runCli(['compare', a, sa, '--force', '--format', 'json', '--resamples', '200'])).stdout);
  assert.equal(forced.sharedItems, 12, 'the subset holds exactly the sampled ids');
});

test('sample: a run folder resumed with another sample is refused, naming both samples', async () => {
  const out = join(tempDir(), 'run');
  assert.equal((await runCli(evalArgs(DEMO_DATASET, 'a', out, '--sample', '10', '--stratify', 'task'))).code, 0);
  const other = await runCli(evalArgs(DEMO_DATASET, 'a', out, '--sample', '10', '--stratify', 'category'));
  assert.equal(other.code, 2);
  assert.match(other.stderr, /sample: the run asked a sample of 10 stratified by task, seed 0, now a sample of 10 stratified by category, seed 0/);
  const whole = await runCli(evalArgs(DEMO_DATASET, 'a', out));
  assert.match(whole.stderr, /selection: the run covers 10 questions, now 57\n {2}- sample: the run asked a sample of 10 stratified by task, seed 0, now the whole selection \(no --sample\)/);
});

test('sample: bad values exit 2 with a clear message, no stack trace; --limit keeps its meaning', async () => {
  const dir = tempDir();
  const cases: [string[], RegExp][] = [
    [['--sample', '0'], /--sample 0: a sample of 0 questions is empty/],
    [['--sample', '150%'], /--sample 150%: more than 100% of the split/],
    [['--sample', 'lots'], /--sample lots: not a number/],
    [['--sample', '1%', '--stratify', 'study'], /--stratify study: unknown stratify key; expected one of task, category, subcategory/],
    [['--stratify', 'task'], /--stratify task needs --sample <n\|share>/],
    [['--sample', '5', '--limit', '5'], /--limit and --sample cannot be combined/],
  ];
  for (const [flags, message] of cases) {
    const run = await runCli(['eval', '--data', DEMO_DATASET, '--model', 'baseline:random', '--out', join(dir, 'x'), '--quiet', ...flags]);
    assert.equal(run.code, 2, flags.join(' '));
    assert.match(run.stderr, message);
    assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
  }
  const subset = await runCli(['data', 'subset', DEMO_DATASET, '--split', 'valid', '--out', join(dir, 'mini')]);
  assert.equal(subset.code, 2);
  assert.match(subset.stderr, /data subset needs --sample <n\|share>/);
  const noSplit = await runCli(['data', 'subset', DEMO_DATASET, '--split', 'dev', '--sample', '1%', '--out', join(dir, 'mini')]);
  assert.equal(noSplit.code, 2);
  assert.match(noSplit.stderr, /--split dev: .* has splits train, valid, test/);
  const limited = join(dir, 'limited');
  assert.equal((await runCli(['eval', '--data', DEMO_DATASET, '--model', 'baseline:random', '--limit', '5', '--out', limited, '--quiet'])).code, 0);
  assert.deepEqual(outcomes(limited).map((o) => o.questionId), demoSplit('test').ids.slice(0, 5));
  assert.equal(manifestOf(limited).sample, undefined);
});
