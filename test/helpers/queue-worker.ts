/**
 * A queue worker in its own process, for tests that kill it: takes jobs from `queue` and, for each, writes
 * "took <id> <attempt>" to stdout and then hangs (as a worker would mid-job) — or completes when HANG=0.
 * Usage: node --import tsx queue-worker.ts <sqlite file | postgres url> <queue>
 */
import { openJobQueue } from '../../src/jobs/open-queue.js';
import { openStore } from '../../src/store/connect.js';

const [target, queueName] = process.argv.slice(2) as [string, string];
const store = await openStore(target.startsWith('postgres') ? { databaseUrl: target, sqliteFile: '' } : { sqliteFile: target });
const queue = await openJobQueue(store, { workerName: `child-${process.pid}`, timing: { superviseIntervalSeconds: 1, pollingIntervalSeconds: 0.5 } });
await queue.work(queueName, async (data, attempt) => {
  process.stdout.write(`took ${String(data.n)} ${attempt.attempt}\n`);
  if (process.env.HANG !== '0') await new Promise(() => undefined);
}, { pollMs: 100 });
process.stdout.write('ready\n');
