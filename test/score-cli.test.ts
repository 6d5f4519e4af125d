import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { DEMO_DATASET } from '../src/cli/commands/demo-dataset.js';
import { wilson } from '../src/score/intervals.js';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/records.js';

test('score: per-task and overall counts and intervals from a saved run, in every format; unparseable counted', async () => {
  const dir = tempDir();
  const first = join(dir, 'gold');
  // The first 14 questions of the demo's test split (single- and two-view studies), so the expected figures below
  // are worked out by hand: 9 right of 14 = 64.3%, Wilson 38.8–83.7.
  await runCli(['eval', '--data', DEMO_DATASET, '--model', 'baseline:random', '--limit', '14', '--out', first, '--quiet']);
  const gold = JSON.parse(readFileSync(join(first, 'rexrank-predictions.json'), 'utf8')) as Record<string, { correct_answer: string; task_name: string }>;
  const ids = Object.keys(gold);
  // 9 right, 3 wrong, 2 unparseable
  const lines = ids.map((id, i) => {
    const right = gold[id]!.correct_answer;
    const wrong = right === 'A' ? 'B' : 'A';
    return JSON.stringify({ id, prediction: i < 9 ? `{"answer": "${right}"}` : i < 12 ? `{"answer": "${wrong}"}` : 'A or B' });
  });
  writeFileSync(join(dir, 'p.jsonl'), lines.join('\n') + '\n');
  const run = join(dir, 'run');
  assert.equal((await runCli(['eval', '--data', DEMO_DATASET, '--model', `replay:${join(dir, 'p.jsonl')}`, '--limit', '14', '--out', run, '--quiet'])).code, 0);

  const json = await runCli(['score', run, '--format', 'json', '--resamples', '200', '--seed', '3']);
  assert.equal(json.code, 0, json.stderr);
  const results = JSON.parse(json.stdout);
  assert.deepEqual([results.overall.n, results.overall.correct, results.overall.wrong, results.overall.unparseable, results.overall.error], [14, 9, 3, 2, 0]);
  assert.deepEqual(results.overall.accuracy, wilson(9, 14));
  assert.ok(results.overall.bootstrap.lo <= 9 / 14 && results.overall.bootstrap.hi >= 9 / 14);
  assert.equal(Object.values(results.byTask as Record<string, { n: number }>).reduce((s, c) => s + c.n, 0), 14);
  assert.equal(results.byTask['Presence Assessment'].small, true);
  assert.deepEqual(Object.keys(results.byViews).sort(), ['1 view', '2 views']);
  const again = await runCli(['score', run, '--format', 'json', '--resamples', '200', '--seed', '3']);
  assert.equal(again.stdout, json.stdout, 'seeded: the same output twice');

  const table = await runCli(['score', run]);
  assert.match(table.stdout, /micro accuracy 64\.3% \(Wilson 95% 38\.8–83\.7, study bootstrap 95% \d+\.\d–\d+\.\d\), n = 14/);
  assert.match(table.stdout, /answers read: 12 by the rules \(cxrbench-reader 2\.1\.0\), 0 by the judge \(none used\), 2 unparseable \(14\.3%, counted wrong\), 0 truncated at the token limit \(0\.0%, counted wrong\)/);
  const csv = await runCli(['score', run, '--format', 'csv']);
  assert.match(csv.stdout, /^group,name,n,correct,wrong,read_by_rule,read_by_judge,unparseable,truncated,error,accuracy,wilson_lo,wilson_hi,bootstrap_lo,bootstrap_hi,bootstrap_method,small\noverall,all questions,14,9,3,12,0,2,0,0,0\.642857\d*,0\.38\d+,0\.83\d+,[01]\.\d+,[01]\.\d+,study-bootstrap,true\n/);
  assert.match((await runCli(['score', run, '--format', 'md'])).stdout, /### Tasks\n\n\| task \| n \|/);
  const bad = await runCli(['score', join(dir, 'nope')]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /not a run folder/);
});

test('score --format latex: booktabs tables in the layouts of the paper (Table 2 tasks, Table 3 categories), special characters escaped', async () => {
  const { resultsLatex, latexEscape } = await import('../src/report/latex.js');
  assert.equal(latexEscape('a_b & 50% #1'), 'a\\_b \\& 50\\% \\#1');
  const dir = tempDir();
  const out = join(dir, 'r');
  await runCli(['eval', '--data', DEMO_DATASET, '--model', 'baseline:report-oracle', '--out', out, '--quiet']);
  const latex = await runCli(['score', out, '--format', 'latex']);
  assert.equal(latex.code, 0, latex.stderr);
  const overall = (100 * (JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as { rexrankOverall: number }).rexrankOverall).toFixed(1);
  assert.ok(latex.stdout.includes(`\\begin{tabular}{lccccccc}\n\\toprule\nModel & Overall & Micro & Presence & Negation & Differential & Location & Geometric \\\\\n\\midrule\n[baseline] report-oracle & ${overall} {\\scriptsize [`));
  assert.match(latex.stdout, /Category & \$n\$ & Accuracy \(\\%\) & Unparseable & Truncated \\\\/);
  assert.match(latex.stdout, /\\bottomrule\n\\end\{tabular\}/);
  assert.match(resultsLatex([]), /\\toprule/);
});

test('score: --format html writes the report into the run; a corrupt journal line is reported, its question not run', async () => {
  const { appendFileSync, statSync } = await import('node:fs');
  const out = join(tempDir(), 'r');
  await runCli(['eval', '--data', DEMO_DATASET, '--model', 'baseline:random', '--out', out, '--quiet']);
  const html = await runCli(['score', out, '--format', 'html']);
  assert.equal(html.code, 0, html.stderr);
  assert.ok(statSync(html.stdout.trim()).size > 100_000);
  const lines = readFileSync(join(out, 'predictions.jsonl'), 'utf8').trim().split('\n');
  writeFileSync(join(out, 'predictions.jsonl'), `${lines.slice(1).join('\n')}\n`);
  appendFileSync(join(out, 'predictions.jsonl'), '{"questionId": "demo_te');
  const scored = await runCli(['score', out, '--format', 'json']);
  assert.match(scored.stderr, /note: 1 unreadable line\(s\) of .*predictions\.jsonl were skipped/);
  assert.equal(JSON.parse(scored.stdout).notRun, 1);
});
