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
  // By default generate keeps no set a blind guesser passes: questions guessers answer go until none is over 35%.
  const generated = await runCli(['generate', corpus, '--out', out]);
  assert.equal(generated.code, 0, generated.stderr);
  assert.match(generated.stdout, /template-based, offline/);
  type Audit = { questions: number; guessers: { guesser: string; splits: Record<string, { all: { correct: number; n: number } }> }[] };
  type Card = { reports: { imported: number }; table1: Record<string, Record<string, number>>; validators: { validator: string; checked: number; passed: number }[]; review: { count: number }; shortcuts: Audit & { limit: { share: number; removed: number; over: unknown[] } } };
  const card = JSON.parse(readFileSync(join(out, 'dataset-card.json'), 'utf8')) as Card;
  assert.equal(card.reports.imported, Number(match[1]));
  const accounts = jsonl<{ kept: number; reason: string | null }>(join(out, 'reports.jsonl'));
  assert.equal(accounts.length, Number(match[1]), 'every imported report is accounted for');
  assert.ok(accounts.every((a) => (a.kept > 0) === (a.reason === null)), 'a report without a kept question says why');
  for (const task of ['Presence Assessment', 'Negation Assessment', 'Location and Distribution Assessment']) {
    assert.ok(['train', 'valid', 'test'].reduce((n, s) => n + card.table1[s]![task]!, 0) > 20, `${task} questions`);
  }
  assert.deepEqual(card.validators.map((v) => v.validator), ['v1', 'v2', 'v3', 'v4', 'c1', 'c2', 'c3', 'phi', 'diversity', 'shortcuts']);
  assert.ok(card.review.count > 0 && existsSync(join(out, 'review-sample.jsonl')));
  assert.deepEqual([card.shortcuts.limit.share, card.shortcuts.limit.over], [0.35, []]);
  for (const g of card.shortcuts.guessers) for (const [split, c] of Object.entries(g.splits)) assert.ok(c.all.correct / c.all.n <= 0.35, `${g.guesser} on ${split}`);

  // The check layer on its own output agrees with what generate kept: every question passes every validator, and
  // check --shortcuts measures what generate measured before writing.
  const auditFile = join(dir, 'audit.json');
  const checked = await runCli(['check', out, '--shortcuts', '--max-blind-accuracy', '0.35', '--shortcuts-out', auditFile]);
  assert.equal(checked.code, 0, checked.stdout);
  assert.match(checked.stdout, / 0 fail at least one validator/);
  assert.match(checked.stdout, /Every guesser is at or under 35\.0% on every split\./);
  const figures = (a: Audit) => a.guessers.map((g) => [g.guesser, Object.fromEntries(Object.entries(g.splits).map(([s, c]) => [s, [c.all.correct, c.all.n]]))]);
  assert.deepEqual(figures(JSON.parse(readFileSync(auditFile, 'utf8')) as Audit), figures(card.shortcuts));
  assert.match(readFileSync(join(out, 'dataset-card.md'), 'utf8'), /## Blind guessers \(shortcut audit\)\n[^]*\| text-only \|/);

  // --max-blind-accuracy 1 only measures: every question kept. The same limit on that set is exit 1 from check,
  // which does not touch it; what generate removed, with its reasons, accounts for the difference.
  const measured = join(dir, 'measured');
  assert.equal((await runCli(['generate', corpus, '--out', measured, '--max-blind-accuracy', '1'])).code, 0);
  const measuredCard = JSON.parse(readFileSync(join(measured, 'dataset-card.json'), 'utf8')) as Card;
  assert.deepEqual([measuredCard.shortcuts.limit.share, measuredCard.shortcuts.limit.removed], [1, 0]);
  const over = await runCli(['check', measured, '--shortcuts', '--max-blind-accuracy', '0.35']);
  const overGuessers = measuredCard.shortcuts.guessers.filter((g) => Object.values(g.splits).some((c) => c.all.correct / c.all.n > 0.35));
  assert.ok(overGuessers.length > 0, 'the IU reports give a set a guesser passes without the limit');
  assert.equal(over.code, 1, over.stdout);
  for (const g of overGuessers) assert.match(over.stdout, new RegExp(`Over the limit of 35\\.0%: .*${g.guesser} on`));
  const removals = jsonl<{ validator: string; reason: string }>(join(out, 'rejections.jsonl')).filter((r) => r.validator === 'shortcuts');
  assert.equal(removals.length, card.shortcuts.limit.removed);
  assert.ok(removals.every((r) => /^answered without the image by /.test(r.reason)), removals[0]?.reason);
  // Removing questions changes TF-IDF weights, so the diversity filter may drop a few more; the rest is the same set.
  const diversityDrops = (folder: string) => jsonl<{ validator: string }>(join(folder, 'rejections.jsonl')).filter((r) => r.validator === 'diversity').length;
  const extraDrops = diversityDrops(out) - diversityDrops(measured);
  assert.ok(extraDrops >= 0 && extraDrops < 0.01 * measuredCard.shortcuts.questions, String(extraDrops));
  assert.equal(card.shortcuts.questions + removals.length + extraDrops, measuredCard.shortcuts.questions, 'the same questions, less those removed');
  const judged = card.shortcuts.questions + removals.length;
  assert.deepEqual(card.validators.find((v) => v.validator === 'shortcuts'), { validator: 'shortcuts', label: 'shortcut audit (answered blind, --max-blind-accuracy)', checked: judged, passed: card.shortcuts.questions, passRate: card.shortcuts.questions / judged });
  // The written ids are keyed by a secret made per output folder (beside it), yet the set is the corpus's and the
  // seed's alone: written elsewhere — another secret — the same questions are kept in the same splits.
  const again = join(dir, 'again');
  assert.equal((await runCli(['generate', corpus, '--out', again])).code, 0);
  const contents = (folder: string) => ['train', 'valid', 'test'].map((split) => Object.values(JSON.parse(readFileSync(join(folder, 'metadata', `${split}_vqa_data.json`), 'utf8')) as Record<string, { question: string; options: string[]; correct_answer: string; correct_answer_explanation: string }>).map((r) => `${r.question}|${r.options.join('|')}|${r.correct_answer}|${r.correct_answer_explanation}`).sort());
  assert.notEqual(readFileSync(`${out}.id-key`, 'utf8'), readFileSync(`${again}.id-key`, 'utf8'));
  assert.deepEqual(contents(again), contents(out));
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
