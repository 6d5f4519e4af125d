import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { migrate, openStore } from '../src/store/connect.js';
import { tempDir } from './helpers/records.js';

test('SQLite: transactions that read then write, from several threads on one file, neither fail nor lose an update', { timeout: 60_000 }, async () => {
  // serve's web thread, its scoring threads and `cxrbench worker` processes each hold a connection to one file.
  // A deferred transaction that read before another connection wrote cannot write (SQLITE_BUSY at once, whatever
  // the busy timeout): an upload would fail with a 500 while a thread publishes an entry.
  const file = join(tempDir(), 'board.sqlite');
  const store = await openStore({ sqliteFile: file });
  await migrate(store);
  await store.db.insertInto('rate_limits').values({ key: 'shared', window_start: '2026-01-01T00:00:00.000Z', count: 0 }).execute();
  const threads = 3;
  const times = 60;
  const results = await Promise.all(Array.from({ length: threads }, () => new Promise<{ errors: number }>((resolve, reject) => {
    const worker = new Worker(new URL('./helpers/sqlite-increment-thread.ts', import.meta.url), { workerData: { file, times } });
    worker.once('message', resolve);
    worker.once('error', reject);
  })));
  const row = await store.db.selectFrom('rate_limits').select('count').where('key', '=', 'shared').executeTakeFirstOrThrow();
  await store.close();
  assert.deepEqual(results.map((r) => r.errors), [0, 0, 0], 'no transaction failed');
  assert.equal(Number(row.count), threads * times, 'no update lost');
});
