import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { JobAttempt, JobQueue, QueueSettings } from '../src/jobs/queue.js';
import type { Store } from '../src/store/connect.js';
import { DIALECTS, freshStore, lazyCluster, testQueue } from './helpers/board.js';

const cluster = lazyCluster();
after(() => cluster.stop());

/** Short timings: retries at once, a silent worker loses its job after the shortest lease each backend allows. */
const FAST: QueueSettings = { retryLimit: 2, retryDelaySeconds: 0, expireSeconds: 60, leaseSeconds: 2 };
const until = async (what: string, ok: () => boolean | Promise<boolean>, ms = 40_000) => {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

// One conformance suite for both implementations of the queue (pg-boss on PostgreSQL, the job table on SQLite).
for (const dialect of DIALECTS) {
  describe(`job queue on ${dialect}`, () => {
    const open = async (): Promise<{ store: Store & { url?: string }; queue: JobQueue }> => {
      const store = await freshStore(dialect, cluster.get);
      return { store, queue: await testQueue(store) };
    };

    test('a job is run once with its data and completes; a key with a waiting job is not queued twice', async () => {
      const { store, queue } = await open();
      try {
        const id = await queue.send('q1', { n: 7 }, 'k1', FAST);
        assert.ok(id);
        assert.equal(await queue.send('q1', { n: 8 }, 'k1', FAST), null, 'one waiting job per key');
        assert.equal(await queue.state('q1', id!), 'waiting');
        const seen: [number, JobAttempt][] = [];
        await queue.work('q1', async (data, attempt) => {
          seen.push([Number(data.n), attempt]);
        }, { pollMs: 50 });
        await until('completion', async () => (await queue.state('q1', id!)) === 'completed');
        assert.deepEqual(seen.map(([n, a]) => [n, a.attempt, a.final]), [[7, 1, false]]);
        assert.ok(await queue.send('q1', { n: 9 }, 'k1', FAST), 'a key whose job finished can be queued again');
      } finally {
        await queue.stop(5000);
        await store.close();
      }
    });

    test('a failing attempt is retried; the last attempt knows it is the last; then the job has failed', async () => {
      const { store, queue } = await open();
      try {
        const attempts: JobAttempt[] = [];
        await queue.work('q2', async (_data, attempt) => {
          attempts.push(attempt);
          throw new Error(`attempt ${attempt.attempt} fails`);
        }, { pollMs: 50 });
        const id = (await queue.send('q2', { n: 1 }, 'k2', FAST))!;
        await until('failure', async () => (await queue.state('q2', id)) === 'failed');
        assert.deepEqual(attempts.map((a) => [a.attempt, a.final]), [[1, false], [2, false], [3, true]]);
      } finally {
        await queue.stop(5000);
        await store.close();
      }
    });

    test('a worker killed mid-job (SIGKILL) loses its job to another worker once its lease or heartbeat runs out', { timeout: 90_000 }, async () => {
      const { store, queue } = await open();
      const target = dialect === 'sqlite' ? store.location : store.url!;
      const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./helpers/queue-worker.ts', import.meta.url)), target, 'q3'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
      try {
        await until('the child to start', () => out.includes('ready'));
        const id = (await queue.send('q3', { n: 42 }, 'k3', FAST))!;
        await until('the child to take the job', () => out.includes('took 42 1'));
        child.kill('SIGKILL');
        await new Promise((r) => child.once('exit', r));
        const taken: JobAttempt[] = [];
        await queue.work('q3', async (data, attempt) => {
          assert.equal(data.n, 42);
          taken.push(attempt);
        }, { pollMs: 100 });
        await until('another worker to finish the job', async () => (await queue.state('q3', id)) === 'completed');
        assert.equal(taken.length, 1);
        assert.equal(taken[0]!.attempt, 2, 'it counts as a second attempt');
      } finally {
        child.kill('SIGKILL');
        await queue.stop(5000);
        await store.close();
      }
    });
  });
}
