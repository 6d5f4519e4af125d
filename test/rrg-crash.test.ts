import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadRrgBenchmarkFromFile } from '../src/board/load-rrg.js';
import { seededRandom } from '../src/core/seeded-random.js';
import { createToken, createUser } from '../src/store/accounts.js';
import { DIALECTS, freshStore, lazyCluster } from './helpers/board.js';
import { FAST_QUEUE, killWhileScoring, startCxrbench } from './helpers/processes.js';
import { tempDir } from './helpers/records.js';

const cluster = lazyCluster();
after(() => cluster.stop());

const WORDS = ['no', 'acute', 'process', 'heart', 'size', 'normal', 'lungs', 'clear', 'small', 'left', 'pleural', 'effusion', 'mild', 'atelectasis', 'stable', 'opacity'];
const report = (random: () => number) => Array.from({ length: 40 }, () => WORDS[(random() * WORDS.length) | 0]).join(' ') + '.';

for (const dialect of DIALECTS) {
  test(`crash (${dialect}): a server killed while it scores a report-generation upload leaves no half-scored entry; after restart it is scored, no one retries`, { timeout: 180_000 }, async () => {
    const random = seededRandom(15);
    const n = 20_000;
    const set = Object.fromEntries(Array.from({ length: n }, (_, i) => [`s${i}`, { section_findings: report(random), section_impression: 'None' }]));
    const file = join(tempDir(), 'refs.json');
    writeFileSync(file, JSON.stringify(set));
    const store = await freshStore(dialect, cluster.get);
    const dataDir = dialect === 'sqlite' ? store.location.replace(/\/board\.sqlite$/, '') : tempDir();
    await loadRrgBenchmarkFromFile(store, 'test', file, 'findings', { slug: 'rrg', title: 'RRG', version: '1', dailyLimit: 5, totalLimit: 10, open: true });
    const user = await createUser(store, { email: 'k@lab.org', password: 'long password here', displayName: 'k', teamName: 'K' });
    const { token } = await createToken(store, user.id, 'ci');
    const submission = async () => store.db.selectFrom('submissions').select(['state', 'attempts']).executeTakeFirst();
    const port = 20000 + Math.floor(Math.random() * 20000);
    const start = () => startCxrbench(['serve', '--data-dir', dataDir, '--port', String(port), '--log-level', 'warn'], 'cxrbench board on', { ...FAST_QUEUE, DATABASE_URL: dialect === 'postgres' ? store.url : undefined, CXRBENCH_RRG_SERVICE: undefined });
    let server = await start();
    const form = new FormData();
    form.append('model', JSON.stringify({ name: 'Crashy' }));
    form.append('file', new Blob([JSON.stringify(Object.fromEntries(Object.entries(set).map(([id, r]) => [id, { model_prediction: r.section_findings }])))]), 'p.json');
    const upload = await fetch(`http://127.0.0.1:${port}/api/benchmarks/rrg/submissions`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
    assert.equal(upload.status, 202, await upload.text());
    await killWhileScoring(server, async () => (await submission())?.state);
    assert.equal((await store.db.selectFrom('entries').select('submission_id').execute()).length, 0, 'no entry while scoring');
    server = await start();
    try {
      let scored = false;
      for (let i = 0; i < 600 && !scored; i++) {
        const board = (await (await fetch(`http://127.0.0.1:${port}/api/benchmarks/rrg/leaderboard`)).json()) as { entries: unknown[] };
        const now = await submission();
        if (board.entries.length > 0) assert.equal(now?.state, 'scored', 'an entry is visible only once its submission is scored');
        if (now?.state === 'scored') scored = true;
        else await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(scored, 'the job was taken again and scored');
      assert.equal((await submission())!.attempts, 2);
      const entries = (await (await fetch(`http://127.0.0.1:${port}/api/benchmarks/rrg/leaderboard`)).json()) as { entries: { n: number; overall: number }[] };
      assert.equal(entries.entries.length, 1);
      assert.equal(entries.entries[0]!.n, n);
      assert.equal(entries.entries[0]!.overall, 1, 'every report equal to its reference: BLEU-2 of 1, the ranking value without a service');
    } finally {
      server.kill('SIGTERM');
      await new Promise((r) => server.on('exit', r));
      await store.close();
    }
  });
}
