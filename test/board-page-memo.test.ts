import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { KyselyPlugin } from 'kysely';
import { loadBenchmarkFromDataset } from '../src/board/load-benchmark.js';
import { scoringHandler } from '../src/board/scoring-job.js';
import { DEMO_DATASET } from '../src/cli/commands/demo-dataset.js';
import { SCORING_QUEUE } from '../src/jobs/queue.js';
import { createApp } from '../src/server/create-app.js';
import { watchChanges } from '../src/store/change-watch.js';
import { DIALECTS, demoTestQuestions, freshStore, lazyCluster, predictionsJsonl, settled, signUp, testQueue, tokenFor, uploadForm } from './helpers/board.js';

const cluster = lazyCluster();
after(() => cluster.stop());

for (const dialect of DIALECTS) {
  test(`leaderboard page and API (${dialect}): kept whole while nothing changes (no query per request), made again at once when an entry is published, never a signed-in page to anyone else`, { timeout: 120_000 }, async () => {
    const store = await freshStore(dialect, cluster.get);
    await loadBenchmarkFromDataset(store, 'test', DEMO_DATASET, 'test', { slug: 'demo', title: 'Demo', version: '1', dailyLimit: 5, totalLimit: 50, open: true });
    const queue = await testQueue(store);
    const score = { resamples: 200, seed: 0, minPublicCell: 2, strict: false };
    await queue.work(SCORING_QUEUE, scoringHandler(store, 'test-worker', score), { pollMs: 50 });
    let queries = 0;
    const counting: KyselyPlugin = { transformQuery: (args) => (queries++, args.node), transformResult: async (args) => args.result };
    const changes = await watchChanges(store);
    const app = createApp({ store: { ...store, db: store.db.withPlugin(counting) }, queue, changes }, { score, log: { level: 'silent' } });
    await app.ready();
    try {
      const get = (url: string, cookie?: string) => app.inject({ method: 'GET', url, headers: cookie ? { cookie } : {} });
      const first = await get('/b/demo');
      const api = await get('/api/benchmarks/demo/leaderboard');
      assert.equal(first.statusCode, 200);
      const before = queries;
      const again = await get('/b/demo');
      const apiAgain = await get('/api/benchmarks/demo/leaderboard');
      assert.equal(queries - before, 0, 'nothing asked of the database while nothing changed');
      assert.equal(again.body, first.body);
      assert.equal(apiAgain.body, api.body);
      assert.equal((JSON.parse(api.body) as { entries: unknown[] }).entries.length, 0);

      const session = await signUp(app, 'rad@hospital.org', 'Radiology AI');
      const signedIn = await get('/b/demo', session.cookie);
      assert.match(signedIn.body, /Sign out rad/);
      assert.doesNotMatch((await get('/b/demo')).body, /Sign out/, 'the signed-in page is never kept for others');

      const token = await tokenFor(app, session);
      const questions = await demoTestQuestions();
      const upload = await app.inject({ method: 'POST', url: '/api/benchmarks/demo/submissions', headers: { authorization: `Bearer ${token}` }, payload: uploadForm({ name: 'p.jsonl', content: predictionsJsonl(questions, (q) => q.answer) }, { model: JSON.stringify({ name: 'Kept-Page-VLM' }) }) });
      assert.equal(upload.statusCode, 202, upload.body);
      assert.equal((await settled(store, (JSON.parse(upload.body) as { submission: string }).submission)).state, 'scored');
      // Scored means published: the next request shows it (PostgreSQL hears the commit by LISTEN, within milliseconds).
      const until = Date.now() + (dialect === 'postgres' ? 2000 : 0);
      let page = await get('/b/demo');
      while (!page.body.includes('Kept-Page-VLM') && Date.now() < until) page = await get('/b/demo');
      assert.match(page.body, /Kept-Page-VLM/);
      assert.doesNotMatch(page.body, /Sign out/);
      const entries = (JSON.parse((await get('/api/benchmarks/demo/leaderboard')).body) as { entries: { model: { name: string } }[] }).entries;
      assert.deepEqual(entries.map((e) => e.model.name), ['Kept-Page-VLM']);
    } finally {
      await app.close();
      await changes.close();
      await queue.stop(5000);
      await store.close();
    }
  });
}
