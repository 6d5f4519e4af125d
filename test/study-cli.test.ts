import assert from 'node:assert/strict';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { DEMO_DATASET } from '../src/cli/commands/demo-dataset.js';
import { checkLogin } from '../src/store/accounts.js';
import { migrate, openStore } from '../src/store/connect.js';
import { saveAnswer } from '../src/store/study-answers.js';
import { readerByToken } from '../src/store/study-readers.js';
import { readerOrder } from '../src/study/sample.js';
import { studyItems } from '../src/store/studies.js';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/records.js';

test('cxrbench study: create (seeded sample), invite by link, add a model, export answer files that `agreement` reads, close', { timeout: 120_000 }, async () => {
  const dataDir = tempDir();
  const store = await openStore({ sqliteFile: join(dataDir, 'board.sqlite') });
  await migrate(store);
  await store.close();
  const created = await runCli(['study', 'create', DEMO_DATASET, '--split', 'test', '--title', 'CLI study', '--n', '15', '--task', 'Negation Assessment', '--seed', '3', '--publish-scores', '--data-dir', dataDir]);
  assert.equal(created.code, 0, created.stderr);
  // The choice is kept, and the host is told it cannot take effect for a question set on disk (no public leaderboard).
  assert.match(created.stdout, /^readers' scores stay private: the study was drawn from a question set, not a benchmark of the board: there is no public leaderboard to publish on$/m);
  const id = /^study ([0-9a-f-]{36}): (\d+) case\(s\) drawn from (\d+)/.exec(created.stdout);
  assert.ok(id, created.stdout);
  assert.equal(id[2], '10', 'only the 10 negation questions of the test split');
  const again = await runCli(['study', 'create', DEMO_DATASET, '--split', 'test', '--title', 'x', '--mode', 'sideways', '--data-dir', dataDir]);
  assert.equal(again.code, 2);
  assert.match(again.stderr, /--mode sideways: expected stratified or random/);
  assert.equal((await runCli(['study', 'open', id[1]!, '--data-dir', dataDir])).code, 0);
  const invite = await runCli(['study', 'invite', id[1]!, '--name', 'Dr Who', '--url', 'https://board.example.org/', '--data-dir', dataDir]);
  assert.equal(invite.code, 0, invite.stderr);
  const link = /^Dr Who: https:\/\/board\.example\.org\/r\/(cxr_read_\S+)$/m.exec(invite.stdout);
  assert.ok(link, invite.stdout);
  const check = await openStore({ sqliteFile: join(dataDir, 'board.sqlite') });
  const reader = await readerByToken(check, link[1]!);
  assert.ok('reader' in reader && reader.reader.name === 'Dr Who');
  assert.equal(reader.study.publish_scores, 1);
  // Dr Who answers one case with a confidence (as the reading page would save it).
  const first = readerOrder(Number(id[2]), reader.reader.order_seed)[0]!;
  await saveAnswer(check, reader.reader, { position: first, answer: 'B', confidence: 4, visitId: 'cli-test-visit', elapsedMs: 2500, clientAt: null });
  const tokenRows = await check.db.selectFrom('study_readers').select('token_hash').execute();
  assert.ok(tokenRows.every((r) => r.token_hash !== link[1] && /^[0-9a-f]{64}$/.test(r.token_hash!)), 'only the hash of the token is stored');
  const items = await studyItems(check, id[1]!);
  await check.close();
  const pred = join(tempDir(), 'preds.jsonl');
  writeFileSync(pred, items.map((i) => JSON.stringify({ id: i.question_id, prediction: i.gold })).join('\n'));
  const model = await runCli(['study', 'add-model', id[1]!, '--name', 'Oracle-ish', '--pred', pred, '--data-dir', dataDir]);
  assert.equal(model.code, 0, model.stderr);
  assert.match(model.stdout, /10 of 10 case\(s\) covered, 10 with a readable answer/);
  const wrong = join(tempDir(), 'other.jsonl');
  writeFileSync(wrong, '{"id": "not-a-study-item", "prediction": "A"}\n');
  const none = await runCli(['study', 'add-model', id[1]!, '--name', 'x', '--pred', wrong, '--data-dir', dataDir]);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /none of the study's 10 question ids is in the file/);
  const out = tempDir();
  const exported = await runCli(['study', 'export', id[1]!, '--out', out, '--data-dir', dataDir]);
  assert.equal(exported.code, 0, exported.stderr);
  assert.deepEqual(readdirSync(out).sort(), ['key.jsonl', 'model-oracle-ish.jsonl', 'reader-dr-who.jsonl']);
  const lines = (file: string) => readFileSync(join(out, file), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const key = lines('key.jsonl');
  assert.deepEqual(key.map((k) => k.answer), items.map((i) => i.gold));
  assert.deepEqual(lines('reader-dr-who.jsonl'), items.map((i) => (i.position === first ? { id: i.question_id, answer: 'B', confidence: 4, seconds: 2.5 } : { id: i.question_id, answer: null, confidence: null, seconds: null })));
  assert.deepEqual(lines('model-oracle-ish.jsonl'), items.map((i) => ({ id: i.question_id, answer: i.gold, confidence: null, seconds: null })));
  const agreement = await runCli(['agreement', join(out, 'model-oracle-ish.jsonl'), join(out, 'reader-dr-who.jsonl'), '--gold', join(out, 'key.jsonl'), '--format', 'json']);
  assert.equal(agreement.code, 0, agreement.stderr);
  assert.match(agreement.stdout, /"accuracy"/);
  const close = await runCli(['study', 'close', id[1]!, '--data-dir', dataDir]);
  assert.equal(close.code, 0, close.stderr);
  const closeAgain = await runCli(['study', 'close', id[1]!, '--data-dir', dataDir]);
  assert.equal(closeAgain.code, 2);
  assert.match(closeAgain.stderr, /only an open study can be closed/);
});

test('cxrbench demo --board seeds an open 20-case reader study with reading links, a review queue with two reviewers per question, a host account and the accounts to try adjudication', { timeout: 240_000 }, async () => {
  const board = tempDir();
  // on the port it will be served on: every link printed, and the serve command, use it
  const run = await runCli(['demo', '--out', join(tempDir(), 'runs'), '--board', board, '--port', '8181']);
  assert.equal(run.code, 0, run.stderr);
  assert.ok(run.stdout.includes(`Serve it: ./run cxrbench serve --data-dir ${board} --port 8181   (then open http://127.0.0.1:8181/b/demo)\n`), run.stdout);
  assert.deepEqual([...run.stdout.slice(run.stdout.indexOf('Board seeded')).matchAll(/https?:\/\/[^/\s]+/g)].map((m) => m[0]).filter((origin, i, all) => all.indexOf(origin) === i), ['http://127.0.0.1:8181']);
  const links = [...run.stdout.matchAll(/http:\/\/127\.0\.0\.1:8181\/r\/(cxr_read_\S+)/g)].map((m) => m[1]!);
  assert.equal(links.length, 2);
  assert.match(run.stdout, /Host \(administrator\) account: host@demo\.local, password \S+/);
  // Two more accounts, printed the same way, so a dispute between two reviewers can be adjudicated by an admin who took no part.
  const printed = [...run.stdout.matchAll(/^(Host \(administrator\)|Second reviewer|Second administrator) account: (\S+), password (\S+) — /gm)].map((m) => [m[1], m[2], m[3]]);
  assert.deepEqual(printed.map(([who, email]) => [who, email]), [['Host (administrator)', 'host@demo.local'], ['Second reviewer', 'reviewer@demo.local'], ['Second administrator', 'adjudicator@demo.local']]);
  const store = await openStore({ sqliteFile: join(board, 'board.sqlite') });
  try {
    for (const [, email, password] of printed) assert.ok(await checkLogin(store, email!, password!), `${email} signs in with the printed password`);
    const found = await readerByToken(store, links[0]!);
    assert.ok('study' in found, 'the link works');
    assert.equal(found.study.state, 'open');
    const items = await studyItems(store, found.study.id);
    assert.equal(items.length, 20);
    assert.ok(items.every((i) => i.missing_images === 0));
    const queue = /Review queue of (\d+) generated question\(s\): http:\/\/127\.0\.0\.1:8181\/reviews\/([0-9a-f-]{36})/.exec(run.stdout);
    assert.ok(queue, run.stdout);
    assert.ok(Number(queue[1]) > 0);
    const reviewItems = await store.db.selectFrom('review_items').select('question_id').where('queue_id', '=', queue[2]!).execute();
    assert.equal(reviewItems.length, Number(queue[1]));
    const reviewers = await store.db.selectFrom('review_assignments').innerJoin('users', 'users.id', 'review_assignments.user_id').select(['email', (eb) => eb.fn.countAll<number>().as('n')]).where('queue_id', '=', queue[2]!).groupBy('email').orderBy('email').execute();
    assert.deepEqual(reviewers.map((r) => [r.email, Number(r.n)]), [['host@demo.local', reviewItems.length], ['reviewer@demo.local', reviewItems.length]]);
  } finally {
    await store.close();
  }
});
