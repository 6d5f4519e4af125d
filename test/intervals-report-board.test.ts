import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { scoreHere, submitPredictions } from '../src/board/submit.js';
import { DEMO_DATASET } from '../src/cli/commands/demo-dataset.js';
import { TASK_NAMES } from '../src/core/question.js';
import { benchmarkBySlug } from '../src/store/benchmarks.js';
import { demoBoard, DIALECTS, lazyCluster } from './helpers/board.js';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/records.js';

const cluster = lazyCluster();
after(() => cluster.stop());

/** A replay run over the demo's test split answering question i right when `right(i)`; returns its folder. */
async function replayRun(dir: string, name: string, right: (i: number) => boolean): Promise<string> {
  const goldRun = join(dir, 'gold');
  await runCli(['eval', '--data', DEMO_DATASET, '--model', 'baseline:random', '--out', goldRun, '--quiet']);
  const gold = JSON.parse(readFileSync(join(goldRun, 'rexrank-predictions.json'), 'utf8')) as Record<string, { correct_answer: string }>;
  const file = join(dir, `${name}.jsonl`);
  writeFileSync(file, Object.entries(gold).map(([id, r], i) => JSON.stringify({ id, prediction: right(i) ? r.correct_answer : r.correct_answer === 'A' ? 'B' : 'A' })).join('\n') + '\n');
  const out = join(dir, name);
  const result = await runCli(['eval', '--data', DEMO_DATASET, '--model', `replay:${file}`, '--out', out, '--quiet']);
  assert.equal(result.code, 0, result.stderr);
  return out;
}

/** The text of a table row's cells (tags dropped, spaces collapsed). */
const cellTexts = (row: string) => [...row.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((m) => m[1]!.replace(/<[^>]+>/g, '').replace(/\s+/g, ' ').trim());

const dir = tempDir();
const runs = { mixed: replayRun(dir, 'mixed', (i) => i % 4 !== 0), perfect: replayRun(dir, 'perfect', () => true) };

/** The report's summary row of a run: ReXrank overall, micro and the five tasks, as shown. */
async function reportRow(run: string): Promise<{ cells: string[]; html: string }> {
  const file = join(dir, `${run.split('/').pop()}.html`);
  const made = await runCli(['report', run, '--out', file]);
  assert.equal(made.code, 0, made.stderr);
  const html = readFileSync(file, 'utf8');
  const row = /<table id="summary-table">[\s\S]*?<tbody><tr>([\s\S]*?)<\/tr>/.exec(html)![1]!;
  return { cells: cellTexts(row).slice(1, 8), html };
}

test('the HTML report and `cxrbench score` say which interval each table shows; at 100% no "100.0–100.0": Wilson, marked †', { timeout: 120_000 }, async () => {
  const { cells, html } = await reportRow(await runs.perfect);
  assert.doesNotMatch(html, /100\.0–100\.0/);
  assert.ok(cells.every((c) => /^100\.0 \d+\.\d–100\.0†$/.test(c)), cells.join(' | '));
  assert.match(html, /<p id="summary-intervals"><small>Accuracy in % with its 95% study-bootstrap interval \(1000 resamples of the studies, seed 0: a study's questions share its images\) — the interval the board shows for the same run\. † the study bootstrap has no spread here/);
  assert.match(html, /<th>Wilson 95%<\/th><th>study bootstrap 95%<\/th>/);
  assert.match(html, /<th>p vs tier leader \(Holm\)<\/th>|Give more runs/);
  const score = await runCli(['score', await runs.perfect]);
  assert.equal(score.code, 0, score.stderr);
  assert.doesNotMatch(score.stdout, /100\.0–100\.0/);
  const summary = JSON.parse(readFileSync(join(await runs.perfect, 'summary.json'), 'utf8')) as { overall: { n: number } };
  const n = summary.overall.n;
  assert.match(score.stdout, new RegExp(`^micro accuracy 100\\.0% \\(Wilson 95% (\\d+\\.\\d)–100\\.0, study bootstrap 95% \\1–100\\.0†\\), n = ${n}$`, 'm'));
  assert.match(score.stdout, /^† the study bootstrap has no spread here .* \(for ReXrank overall, the mean of the task Wilson intervals\)$/m);
  const json = JSON.parse((await runCli(['score', await runs.perfect, '--format', 'json'])).stdout) as { overall: { bootstrap: { method: string } }; rexrankOverall: { method: string } };
  assert.deepEqual([json.overall.bootstrap.method, json.rexrankOverall.method], ['wilson', 'task-wilson-mean']);
  const latex = (await runCli(['score', await runs.perfect, '--format', 'latex'])).stdout;
  assert.doesNotMatch(latex, /\[100\.0, 100\.0\]/);
  assert.match(latex, /^\S.* & 100\.0 \{\\scriptsize \[\d+\.\d, 100\.0\]\}\$\^\{\\dagger\}\$ & /m);
  assert.match(latex, /\\caption\{Accuracy per task with 95\\% study-bootstrap intervals\. .*\$\^\{\\dagger\}\$ the study bootstrap has no spread here/);
});

for (const dialect of DIALECTS) {
  test(`the board (${dialect}) shows the same interval as the HTML report for the same run, and says which`, { timeout: 180_000 }, async () => {
    const board = await demoBoard(dialect, cluster.get);
    try {
      const benchmark = (await benchmarkBySlug(board.store, 'demo'))!;
      for (const [name, run] of Object.entries(runs)) {
        // The board's own settings (1,000 resamples, seed 0) are the report's: the same numbers are expected.
        const added = await submitPredictions(board.store, scoreHere(board.store), benchmark, { fileName: 'p.json', content: readFileSync(join(await run, 'rexrank-predictions.json'), 'utf8'), model: { name, openWeights: true }, teamId: null, userId: null, kind: 'baseline' });
        assert.ok(added.ok, JSON.stringify(added));
      }
      const page = await board.app.inject({ url: '/b/demo' });
      assert.match(page.body, /each with its 95% study-bootstrap interval \(studies resampled: a study's questions share its images\) — the interval <code>cxrbench report<\/code> shows for the same run\. † the study bootstrap has no spread here/);
      const header = cellTexts(/<thead><tr>([\s\S]*?)<\/tr>/.exec(page.body)![1]!.replace(/<th/g, '<td').replace(/<\/th>/g, '</td>'));
      const columns = ['Overall', 'Micro', ...TASK_NAMES.map((t) => ({ 'Presence Assessment': 'Presence', 'Negation Assessment': 'Negation', 'Differential Diagnosis': 'Differential', 'Location and Distribution Assessment': 'Location', 'Geometric Information Assessment': 'Geometry' })[t]!)].map((h) => header.findIndex((x) => x.replace(/[▲▼]/g, '').trim() === h));
      assert.ok(columns.every((i) => i >= 0), header.join(' | '));
      for (const [name, run] of Object.entries(runs)) {
        const row = [...page.body.matchAll(/<tr class="baseline"[^>]*>([\s\S]*?)<\/tr>/g)].map((m) => m[1]!).find((r) => r.includes(`>${name}</a>`))!;
        const shown = cellTexts(row);
        assert.deepEqual(columns.map((i) => shown[i]), (await reportRow(await run)).cells, name);
      }
    } finally {
      await board.close();
    }
  });
}
