import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { DEMO_DATASET } from '../src/cli/commands/demo-dataset.js';
import { migrate, openStore } from '../src/store/connect.js';
import { DEMO_TEST } from './helpers/demo.js';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/records.js';

test('board cli: an unmigrated database stops serve with exit 4 and the fix; an unreachable PostgreSQL says which', async () => {
  const dir = tempDir();
  await (await openStore({ sqliteFile: join(dir, 'board.sqlite') })).close(); // a database file, never migrated
  const serve = await runCli(['serve', '--data-dir', dir, '--port', '0']);
  assert.equal(serve.code, 4, serve.stderr);
  assert.match(serve.stderr, /not migrated .*cxrbench db migrate/);
  assert.doesNotMatch(serve.stderr, /\n\s+at /);
  const pg = await runCli(['db', 'migrate'], { env: { DATABASE_URL: 'postgres://u:pw@127.0.0.1:9/board' } });
  assert.equal(pg.code, 4);
  assert.match(pg.stderr, /cannot connect to PostgreSQL at postgres:\/\/u:\*\*\*@127\.0\.0\.1:9\/board/);
});

test('board cli: migrate, create an admin from an environment variable, load a benchmark, import reported rows, add a baseline run, close', async () => {
  const dir = tempDir();
  const d = ['--data-dir', dir];
  assert.match((await runCli(['db', 'migrate', ...d])).stdout, /applied 0001-initial/);
  assert.match((await runCli(['db', 'migrate', ...d])).stdout, /already up to date/);
  const noEnv = await runCli(['board', 'user', '--email', 'a@b.org', '--password-env', 'CXR_NOPE', '--admin', ...d]);
  assert.equal(noEnv.code, 2);
  assert.match(noEnv.stderr, /CXR_NOPE: that environment variable is not set/);
  assert.match((await runCli(['board', 'user', '--email', 'a@b.org', '--password-env', 'CXR_PW', '--admin', ...d], { env: { CXR_PW: 'admin password!' } })).stdout, /created administrator a@b\.org/);
  const load = await runCli(['board', 'load', '--data', DEMO_DATASET, '--slug', 'demo', '--title', 'Demo', ...d]);
  assert.match(load.stdout, new RegExp(`loaded demo: ${DEMO_TEST.n} hidden questions, sha256 [0-9a-f]{64}`));
  const again = await runCli(['board', 'load', '--data', DEMO_DATASET, '--slug', 'demo', ...d]);
  assert.equal(again.code, 2);
  assert.match(again.stderr, /exists already/);
  assert.match((await runCli(['board', 'import-reported', '--slug', 'demo', ...d])).stdout, /added 8 reported row/);
  const run = join(tempDir(), 'run');
  await runCli(['eval', '--data', DEMO_DATASET, '--split', 'test', '--model', 'baseline:prior', '--out', run, '--quiet']);
  const added = await runCli(['board', 'add-run', '--slug', 'demo', '--predictions', join(run, 'rexrank-predictions.json'), '--model', '{"name":"prior"}', '--baseline', ...d]);
  assert.match(added.stdout, /scored prior onto demo/, added.stderr);
  assert.match((await runCli(['board', 'close', '--slug', 'demo', ...d])).stdout, /demo: closed/);
});

test('board cli: a port another program holds stops serve with exit 2, naming the port and what to do (not a stack)', async () => {
  const dir = tempDir();
  const store = await openStore({ sqliteFile: join(dir, 'board.sqlite') });
  await migrate(store);
  await store.close();
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', () => resolve()));
  const port = (holder.address() as AddressInfo).port;
  try {
    const serve = await runCli(['serve', '--data-dir', dir, '--port', String(port), '--workers', '0']);
    assert.deepEqual([serve.code, serve.stdout, serve.stderr], [2, '', `cxrbench serve: --port ${port}: 127.0.0.1:${port} is in use by another program; serve on another port (--port <n>; a demo board's links follow \`cxrbench demo --board <dir> --port <n>\`)\n`]);
  } finally {
    holder.close();
  }
});
