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
  // The shortcut audit: check --shortcuts on the written set measures what generate measured before writing.
  const auditFile = join(dir, 'audit.json');
  const audited = await runCli(['check', out, '--shortcuts', '--shortcuts-out', auditFile]);
  assert.equal(audited.code, 0, audited.stdout);
  type Audit = { questions: number; guessers: { guesser: string; splits: Record<string, { all: { correct: number; n: number } }> }[] };
  const cardAudit = (JSON.parse(readFileSync(join(out, 'dataset-card.json'), 'utf8')) as { shortcuts: Audit & { limit: null } }).shortcuts;
  const figures = (a: Audit) => a.guessers.map((g) => [g.guesser, Object.fromEntries(Object.entries(g.splits).map(([s, c]) => [s, [c.all.correct, c.all.n]]))]);
  assert.deepEqual(figures(JSON.parse(readFileSync(auditFile, 'utf8')) as Audit), figures(cardAudit));
  assert.equal(cardAudit.limit, null);
  assert.match(readFileSync(join(out, 'dataset-card.md'), 'utf8'), /## Blind guessers \(shortcut audit\)\n[^]*\| text-only \|/);
  // A limit it is over: check says so (exit 1) and does not touch the set; generate with it removes just those.
  const over = await runCli(['check', out, '--shortcuts', '--max-blind-accuracy', '0.35']);
  const overGuessers = cardAudit.guessers.filter((g) => Object.values(g.splits).some((c) => c.all.correct / c.all.n > 0.35));
  assert.equal(over.code, overGuessers.length > 0 ? 1 : 0, over.stdout);
  for (const g of overGuessers) assert.match(over.stdout, new RegExp(`Over the limit of 35\\.0%: .*${g.guesser} on`));
  const limitedOut = join(dir, 'limited');
  const limited = await runCli(['generate', corpus, '--out', limitedOut, '--max-blind-accuracy', '0.35']);
  assert.equal(limited.code, 0, limited.stderr);
  const limitedCard = JSON.parse(readFileSync(join(limitedOut, 'dataset-card.json'), 'utf8')) as { shortcuts: Audit & { limit: { removed: number; over: unknown[] } }; validators: { validator: string; checked: number; passed: number }[] };
  assert.deepEqual(limitedCard.shortcuts.limit.over, []);
  const removals = jsonl<{ validator: string; reason: string }>(join(limitedOut, 'rejections.jsonl')).filter((r) => r.validator === 'shortcuts');
  assert.equal(removals.length, limitedCard.shortcuts.limit.removed);
  // Removing questions changes TF-IDF weights, so the diversity filter may drop a few more; the rest is the same set.
  const diversityDrops = (dir: string) => jsonl<{ validator: string }>(join(dir, 'rejections.jsonl')).filter((r) => r.validator === 'diversity').length;
  const extraDrops = diversityDrops(limitedOut) - diversityDrops(out);
  assert.ok(extraDrops >= 0 && extraDrops < 0.01 * cardAudit.questions, String(extraDrops));
  assert.equal(limitedCard.shortcuts.questions + removals.length + extraDrops, cardAudit.questions, 'the same questions, less those removed');
  const judged = limitedCard.shortcuts.questions + removals.length;
  assert.deepEqual(limitedCard.validators.find((v) => v.validator === 'shortcuts'), { validator: 'shortcuts', label: 'shortcut audit (answered blind, --max-blind-accuracy)', checked: judged, passed: limitedCard.shortcuts.questions, passRate: limitedCard.shortcuts.questions / judged });
  const underLimit = await runCli(['check', limitedOut, '--shortcuts', '--max-blind-accuracy', '0.35']);
  assert.equal(underLimit.code, 0, underLimit.stdout);
  assert.match(underLimit.stdout, / 0 fail at least one validator/);
  assert.match(underLimit.stdout, /Every guesser is at or under 35\.0% on every split\./);
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
