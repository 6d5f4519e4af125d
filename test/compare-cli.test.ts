import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { DEMO_DATASET } from '../src/cli/commands/demo-dataset.js';
import { mcnemarExact } from '../src/score/compare.js';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/records.js';

/**
 * A replay run over the first `limit` questions of the demo's test split (14 by default, so the figures below are
 * worked out by hand), answering question i correctly when `right(i)`.
 */
async function run(dir: string, name: string, right: (i: number) => boolean, limit = 14): Promise<string> {
  const goldRun = join(dir, 'gold');
  await runCli(['eval', '--data', DEMO_DATASET, '--model', 'baseline:random', '--limit', '14', '--out', goldRun, '--quiet']);
  const gold = JSON.parse(readFileSync(join(goldRun, 'rexrank-predictions.json'), 'utf8')) as Record<string, { correct_answer: string }>;
  const file = join(dir, `${name}.jsonl`);
  writeFileSync(file, Object.entries(gold).map(([id, r], i) => JSON.stringify({ id, prediction: right(i) ? r.correct_answer : r.correct_answer === 'A' ? 'B' : 'A' })).join('\n') + '\n');
  const out = join(dir, name);
  const result = await runCli(['eval', '--data', DEMO_DATASET, '--model', `replay:${file}`, '--limit', String(limit), '--out', out, '--quiet']);
  assert.equal(result.code, 0, result.stderr);
  return out;
}

test('compare: paired difference, exact McNemar on discordant pairs, tiers; different item sets refused unless --force', async () => {
  const dir = tempDir();
  const a = await run(dir, 'a', () => true); // 14/14
  const b = await run(dir, 'b', (i) => i >= 8); // 6/14: A alone right on 8 (Holm p 0.016)
  const c = await run(dir, 'c', (i) => i !== 0); // 13/14: A alone right on 1
  const cmp = await runCli(['compare', a, b, c, '--format', 'json', '--resamples', '300']);
  assert.equal(cmp.code, 0, cmp.stderr);
  const result = JSON.parse(cmp.stdout);
  assert.equal(result.sharedItems, 14);
  const ab = result.pairs[0].overall;
  assert.deepEqual([ab.n, ab.onlyA, ab.onlyB], [14, 8, 0]);
  assert.equal(ab.difference, 8 / 14);
  assert.equal(ab.p, mcnemarExact(8, 0));
  assert.ok(ab.lo >= 0 && ab.lo < ab.difference && ab.hi > ab.difference, `${ab.lo} ${ab.hi}`);
  assert.deepEqual(result.ranking.map((r: { tier: number }) => r.tier), [1, 1, 2]); // a leads; c (1 discordant pair) ties; b (6) does not
  const partial = await run(dir, 'd', () => true, 10);
  const refused = await runCli(['compare', a, partial]);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /different dataset versions|cover different items/);
  const forced = await runCli(['compare', a, partial, '--force', '--format', 'json']);
  assert.equal(forced.code, 0, forced.stderr);
  assert.equal(JSON.parse(forced.stdout).sharedItems, 10);
});
