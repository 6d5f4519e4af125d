import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { DEMO_DATASET } from '../src/cli/commands/demo-dataset.js';
import { saveDecision } from '../src/review/decision.js';
import { createUser } from '../src/store/accounts.js';
import { runCli } from './helpers/cli.js';
import { DIALECTS, freshStore, lazyCluster } from './helpers/board.js';
import { tempDir } from './helpers/records.js';
import { decisionInput } from './helpers/review.js';

const cluster = lazyCluster();
after(() => cluster.stop());

for (const dialect of DIALECTS) {
  test(`review cli (${dialect}): create a queue, make a version (disputed and pending questions left out unless asked for), export it; the export validates and loads as a benchmark`, { timeout: 120_000 }, async () => {
    const dir = tempDir();
    const store = await freshStore(dialect, cluster.get);
    const env: Record<string, string> = store.dialect === 'postgres' ? { DATABASE_URL: (store as { url?: string }).url! } : {};
    const d = ['--data-dir', store.dialect === 'sqlite' ? join(store.location, '..') : dir];
    try {
      const users = [];
      for (const email of ['ana@lab.org', 'ben@lab.org']) users.push(await createUser(store, { email, password: 'a long password', displayName: email.slice(0, 3) }));
      const bad = await runCli(['review', 'create', DEMO_DATASET, '--split', 'valid', '--title', 'T', '--reviewers', 'ana@lab.org,zed@lab.org', ...d], { env });
      assert.deepEqual([bad.code, bad.stderr.trim()], [2, 'cxrbench: no board account for zed@lab.org: reviewers sign up (or an admin runs cxrbench board user) first']);
      const created = await runCli(['review', 'create', DEMO_DATASET, '--split', 'valid', '--title', 'Valid', '--reviewers', 'ana@lab.org,ben@lab.org', '--per-item', '2', ...d], { env });
      assert.equal(created.code, 0, created.stderr);
      const id = /^review queue ([0-9a-f-]{36}): 6 question\(s\), 2 reviewer\(s\) each \(ana@lab\.org 6, ben@lab\.org 6\)$/m.exec(created.stdout)?.[1];
      assert.ok(id, created.stdout);
      assert.match((await runCli(['review', 'list', ...d], { env })).stdout, new RegExp(`^${id}\\s+6 questions\\s+0/12 decisions  Valid$`, 'm'));
      assert.equal((await runCli(['review', 'version', id, '--pending', 'maybe', ...d], { env })).stderr.trim(), 'cxrbench: --pending maybe: expected keep or retire');
      // Item 1 disputed (ana accepts, ben rejects), items 2–6 pending: a version leaves them out unless --include-disputed and
      // --pending keep say otherwise, and records which.
      const [ana, ben] = users.map((u) => ({ id: u!.id, email: u!.email, isAdmin: false }));
      assert.deepEqual(await saveDecision(store, ana!, id, 0, decisionInput()), { saved: true });
      assert.deepEqual(await saveDecision(store, ben!, id, 0, decisionInput({ decision: 'reject', reason: 'several-valid-answers' })), { saved: true });
      const version = await runCli(['review', 'version', id, '--pending', 'keep', ...d], { env });
      assert.equal(version.stdout.split('\n')[0], `version 1 of queue ${id}: 5 question(s) included, 1 left out (accepted 0, edited 0, rejected 0, disputed 1 → left out, pending 5 → kept)`);
      const included = await runCli(['review', 'version', id, '--include-disputed', '--pending', 'keep', ...d], { env });
      assert.equal(included.stdout.split('\n')[0], `version 2 of queue ${id}: 6 question(s) included, 0 left out (accepted 0, edited 0, rejected 0, disputed 1 → included (--include-disputed), pending 5 → kept)`);
      const second = join(tempDir(), 'v2');
      assert.equal((await runCli(['review', 'export', id, '--version', '2', '--out', second, ...d], { env })).code, 0);
      const manifest = JSON.parse(readFileSync(join(second, 'review-version.json'), 'utf8')) as Record<string, unknown>;
      assert.deepEqual([manifest.policy, manifest.keptUnsettled], [{ disputed: 'keep', pending: 'keep' }, [{ id: 'demo_valid_031', split: 'valid', status: 'disputed', dispute: 'reject vs accept' }, ...[32, 33, 34, 35, 36].map((n) => ({ id: `demo_valid_0${n}`, split: 'valid', status: 'pending' }))]]);
      const out = join(tempDir(), 'v1');
      const exported = await runCli(['review', 'export', id, '--version', '1', '--out', out, ...d], { env });
      assert.equal(exported.code, 0, exported.stderr);
      assert.match(exported.stdout, /^version 1: 5 question\(s\), 2 image\(s\) → /m);
      const again = await runCli(['review', 'export', id, '--version', '1', '--out', out, ...d], { env });
      assert.equal(again.code, 2);
      assert.match(again.stderr, /valid_vqa_data\.json exists; pass --force/);
      const validate = await runCli(['data', 'validate', out, '--images']);
      assert.equal(validate.code, 0, validate.stdout + validate.stderr);
      assert.deepEqual(Object.keys(JSON.parse(readFileSync(join(out, 'metadata', 'valid_vqa_data.json'), 'utf8')) as object), ['demo_valid_032', 'demo_valid_033', 'demo_valid_034', 'demo_valid_035', 'demo_valid_036']);
      assert.deepEqual((JSON.parse(readFileSync(join(out, 'review-version.json'), 'utf8')) as { policy: unknown }).policy, { disputed: 'retire', pending: 'keep' });
      const load = await runCli(['board', 'load', '--data', out, '--split', 'valid', '--slug', 'reviewed-v1', ...d], { env });
      assert.match(load.stdout, /loaded reviewed-v1: 5 hidden questions/, load.stderr);
      // By default only settled questions go in: ana and ben agree on item 2, the disputed and the pending stay out.
      assert.deepEqual(await saveDecision(store, ana!, id, 1, decisionInput()), { saved: true });
      assert.deepEqual(await saveDecision(store, ben!, id, 1, decisionInput()), { saved: true });
      const settled = await runCli(['review', 'version', id, ...d], { env });
      assert.equal(settled.stdout.split('\n')[0], `version 3 of queue ${id}: 1 question(s) included, 5 left out (accepted 1, edited 0, rejected 0, disputed 1 → left out, pending 4 → left out)`);
      const third = join(tempDir(), 'v3');
      assert.equal((await runCli(['review', 'export', id, '--version', '3', '--out', third, ...d], { env })).code, 0);
      const policy = JSON.parse(readFileSync(join(third, 'review-version.json'), 'utf8')) as { policy: unknown; keptUnsettled: unknown };
      assert.deepEqual([policy.policy, policy.keptUnsettled, Object.keys(JSON.parse(readFileSync(join(third, 'metadata', 'valid_vqa_data.json'), 'utf8')) as object)], [{ disputed: 'retire', pending: 'retire' }, [], ['demo_valid_032']]);
    } finally {
      await store.close();
    }
  });
}
