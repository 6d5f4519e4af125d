/**
 * A worker thread for test/store-sqlite-concurrency.test.ts: its own connection to a shared SQLite file, doing
 * read-then-write transactions (the shape of the board's limit checks and of claiming a job).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openStore } from '../../src/store/connect.js';

const { file, times } = workerData as { file: string; times: number };
const store = await openStore({ sqliteFile: file });
let errors = 0;
for (let i = 0; i < times; i++) {
  try {
    await store.db.transaction().execute(async (tx) => {
      const row = await tx.selectFrom('rate_limits').select('count').where('key', '=', 'shared').executeTakeFirstOrThrow();
      await new Promise((r) => setTimeout(r, 0)); // let the other threads run between the read and the write
      await tx.updateTable('rate_limits').set({ count: Number(row.count) + 1 }).where('key', '=', 'shared').execute();
    });
  } catch {
    errors++;
  }
}
await store.close();
parentPort!.postMessage({ errors });
