/**
 * Issue #12 end to end on a real corpus: the IU X-ray reports (read at run time, nothing derived is committed)
 * → corpus import → generate offline → data validate (0 errors) → eval a baseline on the result → score.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/records.js';
import { iuReportsDir } from './helpers/shared-data.js';

const jsonl = <T>(file: string) => readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as T);

test('IU X-ray reports → corpus → offline question set that validates with 0 errors, with presence, negation and location questions; a baseline is evaluated and scored on it', { timeout: 300_000 }, async () => {
  const iu = iuReportsDir();
  const dir = tempDir();
  const corpus = join(dir, 'iu.jsonl');
  const imported = await runCli(['corpus', 'import', join(iu, 'indiana_reports.csv'), '--format', 'csv', '--images-csv', join(iu, 'indiana_projections.csv'), '--out', corpus]);
  assert.equal(imported.code, 0, imported.stderr);
  const match = /imported (\d+) report\(s\) into .*; (\d+) record\(s\) rejected/.exec(imported.stdout);
  assert.ok(match, imported.stdout);
  // 3,851 rows: every one is a report or a rejection with its reason.
  assert.equal(Number(match[1]) + Number(match[2]), 3851);
  assert.equal(jsonl<{ reason: string }>(join(dir, 'iu.rejected.jsonl')).length, Number(match[2]));

  const out = join(dir, 'set');
  const generated = await runCli(['generate', corpus, '--out', out]);
  assert.equal(generated.code, 0, generated.stderr);
  assert.match(generated.stdout, /template-based, offline/);
  const card = JSON.parse(readFileSync(join(out, 'dataset-card.json'), 'utf8')) as { reports: { imported: number }; table1: Record<string, Record<string, number>>; validators: { validator: string; checked: number }[]; review: { count: number } };
  assert.equal(card.reports.imported, Number(match[1]));
  const accounts = jsonl<{ kept: number; reason: string | null }>(join(out, 'reports.jsonl'));
  assert.equal(accounts.length, Number(match[1]), 'every imported report is accounted for');
  assert.ok(accounts.every((a) => (a.kept > 0) === (a.reason === null)), 'a report without a kept question says why');
  for (const task of ['Presence Assessment', 'Negation Assessment', 'Location and Distribution Assessment']) {
    assert.ok(['train', 'valid', 'test'].reduce((n, s) => n + card.table1[s]![task]!, 0) > 20, `${task} questions`);
  }
  assert.deepEqual(card.validators.map((v) => v.validator), ['v1', 'v2', 'v3', 'v4', 'c1', 'c2', 'c3', 'phi', 'diversity']);
  assert.ok(card.review.count > 0 && existsSync(join(out, 'review-sample.jsonl')));

  // The check layer on its own output agrees with what generate kept: every question passes every validator.
  const checked = await runCli(['check', out]);
  assert.equal(checked.code, 0, checked.stdout);
  assert.match(checked.stdout, / 0 fail at least one validator/);
  const validate = await runCli(['data', 'validate', out]);
  assert.equal(validate.code, 0, validate.stdout);
  // Warnings may remain: the same template question about two patients' films in two splits is reported, not wrong.
  assert.match(validate.stdout, /^0 error\(s\), \d+ warning\(s\), 0 repair\(s\)\. VALID$/m);
  const run = join(dir, 'run');
  const evaluated = await runCli(['eval', '--data', out, '--split', 'test', '--model', 'baseline:text-only', '--out', run, '--quiet']);
  assert.equal(evaluated.code, 0, evaluated.stderr);
  const scored = await runCli(['score', run, '--format', 'json']);
  assert.equal(scored.code, 0, scored.stderr);
  const results = JSON.parse(scored.stdout) as { overall: { n: number } };
  assert.equal(results.overall.n, Object.values(card.table1.test!).reduce((a, b) => a + b, 0));
});
