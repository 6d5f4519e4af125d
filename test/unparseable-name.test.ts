import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { scoreHere, submitPredictions } from '../src/board/submit.js';
import { DEMO_DATASET } from '../src/cli/commands/demo-dataset.js';
import { benchmarkBySlug } from '../src/store/benchmarks.js';
import { demoBoard, DIALECTS, lazyCluster } from './helpers/board.js';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/records.js';

const cluster = lazyCluster();
after(() => cluster.stop());

/** Any other name for an answer no rule could read; the paper's term is named once, as the paper's. */
const OTHER_NAMES = /unreadable|failed extraction|could not be extracted/i;
const withoutPaperTerm = (text: string) => text.replace(/the paper's “failed extractions”/g, '');

const dir = tempDir();
/** A replay run over the demo's test split: every fourth answer says "A or B" (unparseable), the rest the gold letter. */
const run = (async () => {
  const gold = join(dir, 'gold');
  await runCli(['eval', '--data', DEMO_DATASET, '--model', 'baseline:random', '--out', gold, '--quiet']);
  const records = JSON.parse(readFileSync(join(gold, 'rexrank-predictions.json'), 'utf8')) as Record<string, { correct_answer: string }>;
  writeFileSync(join(dir, 'p.jsonl'), Object.entries(records).map(([id, r], i) => JSON.stringify({ id, prediction: i % 4 === 0 ? 'A or B' : r.correct_answer })).join('\n') + '\n');
  const eval_ = await runCli(['eval', '--data', DEMO_DATASET, '--model', `replay:${join(dir, 'p.jsonl')}`, '--out', join(dir, 'run')]);
  assert.equal(eval_.code, 0, eval_.stderr);
  return { folder: join(dir, 'run'), evalOut: eval_.stdout, unparseable: Object.keys(records).filter((_, i) => i % 4 === 0).length };
})();

test('one name for answers no rule could read: "unparseable" in eval, score (table, md, csv, json) and the HTML report', { timeout: 120_000 }, async () => {
  const { folder, evalOut, unparseable } = await run;
  assert.match(evalOut, new RegExp(`answers read: \\d+ by the rules, 0 by the judge \\(none used\\), ${unparseable} unparseable \\(counted wrong\\), 0 truncated at the token limit \\(counted wrong\\)`));
  assert.match(evalOut, /read by judge +unparseable +truncated +error/);
  for (const format of ['table', 'md', 'csv', 'json']) {
    const out = (await runCli(['score', folder, '--format', format])).stdout;
    assert.doesNotMatch(out, OTHER_NAMES, format);
    assert.match(out, /unparseable/, format);
  }
  const file = join(dir, 'report.html');
  assert.equal((await runCli(['report', folder, '--out', file])).code, 0);
  const html = readFileSync(file, 'utf8');
  assert.doesNotMatch(withoutPaperTerm(html), OTHER_NAMES);
  assert.match(html, /<th>unparseable<\/th><th>truncated<\/th><th>n<\/th>/);
  assert.match(html, new RegExp(`, ${unparseable} unparseable and 0 truncated at the token limit, counted wrong\\.`));
});

for (const dialect of DIALECTS) {
  test(`one name on the board (${dialect}): leaderboard, entry page and API say "unparseable"`, { timeout: 120_000 }, async () => {
    const { folder, unparseable } = await run;
    const board = await demoBoard(dialect, cluster.get);
    try {
      const benchmark = (await benchmarkBySlug(board.store, 'demo'))!;
      // The first unreadable answer is marked as cut at the token limit, as eval writes it: the board counts it truncated.
      const records = JSON.parse(readFileSync(join(folder, 'rexrank-predictions.json'), 'utf8')) as Record<string, Record<string, unknown>>;
      Object.values(records)[0]!.finish_reason = 'length';
      const added = await submitPredictions(board.store, scoreHere(board.store), benchmark, { fileName: 'p.json', content: JSON.stringify(records), model: { name: 'replayed', openWeights: true }, teamId: null, userId: null, kind: 'baseline' });
      assert.ok(added.ok);
      const page = (await board.app.inject({ url: '/b/demo' })).body;
      assert.doesNotMatch(withoutPaperTerm(page), OTHER_NAMES);
      assert.match(page, /data-sort="unparseable">Unparseable</);
      const entry = (await board.app.inject({ url: `/entries/${added.submission.id}` })).body;
      assert.doesNotMatch(entry, OTHER_NAMES);
      assert.match(entry, new RegExp(`<dt>Unparseable</dt><dd>${unparseable - 1} of \\d+</dd>`));
      assert.match(entry, /<dt>Truncated at the token limit<\/dt><dd>1 of \d+<\/dd>/);
      assert.match(entry, /<th scope="col" class="num">Unparseable<\/th><th scope="col" class="num">Truncated<\/th>/);
      const api = (await board.app.inject({ url: '/api/benchmarks/demo/leaderboard' })).body;
      assert.doesNotMatch(api, OTHER_NAMES);
      assert.equal((JSON.parse(api) as { entries: { unparseable: number }[] }).entries[0]!.unparseable, unparseable - 1);
    } finally {
      await board.close();
    }
  });
}
