import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadBenchmarkFromDataset } from '../src/board/load-benchmark.js';
import { createToken, createUser } from '../src/store/accounts.js';
import { DIALECTS, freshStore, lazyCluster } from './helpers/board.js';
import { detectLayout } from '../src/dataset/layout.js';
import { readQuestions } from '../src/dataset/read-dataset.js';
import { tempDir } from './helpers/records.js';
import { writeSyntheticRexvqa } from './helpers/synthetic-dataset.js';
import { FAST_QUEUE, killWhileScoring, startCxrbench } from './helpers/processes.js';


const cluster = lazyCluster();
after(() => cluster.stop());

const startServer = (dataDir: string, port: number, databaseUrl: string | undefined) =>
  startCxrbench(['serve', '--data-dir', dataDir, '--port', String(port), '--log-level', 'warn'], 'cxrbench board on', { ...FAST_QUEUE, DATABASE_URL: databaseUrl });

for (const dialect of DIALECTS) {
  test(`crash (${dialect}): a server killed while its thread scores leaves no half-scored entry; after restart the job is taken again and scored, no one has to retry`, { timeout: 180_000 }, async () => {
    // A 20K-question hidden set, so scoring (1,000 study-bootstrap resamples per cell) takes long enough to be caught.
    const root = tempDir();
    mkdirSync(join(root, 'metadata'));
    await writeSyntheticRexvqa(join(root, 'metadata', 'test_vqa_data.json'), { records: 20_000, recordBytes: 400, seed: 3 });
    const store = await freshStore(dialect, cluster.get);
    const dataDir = dialect === 'sqlite' ? store.location.replace(/\/board\.sqlite$/, '') : tempDir();
    const databaseUrl = dialect === 'postgres' ? store.url : undefined;
    await loadBenchmarkFromDataset(store, 'test', root, 'test', { slug: 'big', title: 'Big', version: '1', dailyLimit: 5, totalLimit: 10, open: true });
    const user = await createUser(store, { email: 'k@lab.org', password: 'long password here', displayName: 'k', teamName: 'K' });
    const { token } = await createToken(store, user.id, 'ci');
    const lines: string[] = [];
    for await (const q of readQuestions(detectLayout(root), ['test'])) lines.push(JSON.stringify({ id: q.id, prediction: q.answer }));
    // The test watches the database through its own connection while the server works.
    const submission = async () => store.db.selectFrom('submissions').select(['state', 'attempts']).executeTakeFirst();
    const entries = async () => (await store.db.selectFrom('entries').select('submission_id').execute()).length;

    const port = 20000 + Math.floor(Math.random() * 20000);
    let server = await startServer(dataDir, port, databaseUrl);
    const form = new FormData();
    form.append('model', JSON.stringify({ name: 'Crashy' }));
    form.append('file', new Blob([lines.join('\n')]), 'p.jsonl');
    const upload = await fetch(`http://127.0.0.1:${port}/api/benchmarks/big/submissions`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
    assert.equal(upload.status, 202, 'the upload returns once stored, before scoring');
    await killWhileScoring(server, async () => (await submission())?.state);
    assert.equal(await entries(), 0, 'no entry while scoring');

    server = await startServer(dataDir, port, databaseUrl);
    try {
      // Until the dead thread's lease runs out and another thread has scored it, nothing half-done is visible.
      let scored = false;
      for (let i = 0; i < 600 && !scored; i++) {
        // The board first, then the state: an entry seen on the board must belong to a submission that is scored
        // (read the other way round, scoring could finish between the two reads).
        const board = (await (await fetch(`http://127.0.0.1:${port}/api/benchmarks/big/leaderboard`)).json()) as { entries: { n: number }[] };
        const now = await submission();
        if (board.entries.length > 0) assert.equal(now?.state, 'scored', 'an entry is visible only once its submission is scored');
        if (now?.state === 'scored') scored = true;
        else {
          assert.deepEqual(board.entries, [], 'no half-scored entry is visible');
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      assert.ok(scored, 'the job was taken again and scored');
      assert.equal((await submission())!.attempts, 2, 'a second attempt did it');
      const id = (await store.db.selectFrom('submissions').select('id').executeTakeFirstOrThrow()).id;
      for (let i = 0; i < 50 && !server.output().includes(`submission ${id} done (attempt 2)`); i++) await new Promise((r) => setTimeout(r, 100));
      assert.match(server.output(), new RegExp(`"level":"info".*submission ${id} done \\(attempt 2\\) in \\d+ ms`), 'the scoring thread logs the attempt');
      const after = (await (await fetch(`http://127.0.0.1:${port}/api/benchmarks/big/leaderboard`)).json()) as { entries: { micro: number; n: number }[] };
      assert.equal(after.entries.length, 1);
      assert.equal(after.entries[0]!.n, 20_000);
      assert.equal(after.entries[0]!.micro, 1);
    } finally {
      server.kill('SIGTERM');
      await new Promise((r) => server.on('exit', r));
      await store.close();
    }
  });
}
