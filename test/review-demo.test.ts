import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { DEMO_DATASET } from '../src/cli/commands/demo-dataset.js';
import { seedDemoPeople } from '../src/cli/commands/demo-board-people.js';
import { queueState } from '../src/review/queue-state.js';
import { benchmarkBySlug } from '../src/store/benchmarks.js';
import { reviewAssignments, reviewQueueById } from '../src/store/reviews.js';
import { DIALECTS, demoBoard, lazyCluster } from './helpers/board.js';
import { generatedDemoSet, signIn, tableRows } from './helpers/review.js';

const cluster = lazyCluster();
after(() => cluster.stop());

/** A whole decision form as a browser sends it. */
const form = (csrf: string, fields: Record<string, string> = {}) => ({
  _csrf: csrf, clinical_quality: '4', explanation_clarity: '4', factual_correctness: '4', image_alignment: '4', difficulty: 'medium', category: 'Lung', decision: 'accept', reason: '', note: '', go: 'next', ...fields,
});

for (const dialect of DIALECTS) {
  test(`demo board people (${dialect}): the review queue has two reviewers on every question and a second admin who reviews none, so a dispute can be made and adjudicated with the accounts the demo prints`, { timeout: 180_000 }, async () => {
    const board = await demoBoard(dialect, cluster.get);
    const { app, store } = board;
    try {
      const sample = join(await generatedDemoSet(), 'review-sample.jsonl');
      const people = await seedDemoPeople(store, (await benchmarkBySlug(store, 'demo'))!, DEMO_DATASET, 'test', 'http://127.0.0.1:8080', sample);
      const review = people.review!;
      const accounts = await store.db.selectFrom('users').select(['id', 'email', 'is_admin']).orderBy('email').execute();
      assert.deepEqual(accounts.map((a) => [a.email, a.is_admin]), [['adjudicator@demo.local', 1], ['host@demo.local', 1], ['reviewer@demo.local', 0]]);
      const idOf = (email: string) => accounts.find((a) => a.email === email)!.id;
      const assignments = await reviewAssignments(store, review.queueId);
      assert.ok(review.items > 1);
      assert.deepEqual(assignments.map((a) => [a.position, a.user_id]), Array.from({ length: review.items }, (_, p) => [[p, idOf('host@demo.local')], [p, idOf('reviewer@demo.local')]].sort((a, b) => String(a[1]).localeCompare(String(b[1])))).flat());

      // With the printed passwords: the host and the reviewer disagree on question 1 and agree on the rest.
      const host = await signIn(app, people.host.email, people.host.password);
      const reviewer = await signIn(app, review.reviewer.email, review.reviewer.password);
      const adjudicator = await signIn(app, review.adjudicator.email, review.adjudicator.password);
      const base = `/reviews/${review.queueId}`;
      const post = (as: { cookie: string }, url: string, payload: Record<string, string>) => app.inject({ method: 'POST', url, headers: { cookie: as.cookie }, payload });
      for (let k = 1; k <= review.items; k++) {
        assert.equal((await post(host, `${base}/items/${k}`, form(host.csrf))).statusCode, 303);
        assert.equal((await post(reviewer, `${base}/items/${k}`, form(reviewer.csrf, k === 1 ? { decision: 'reject', reason: 'clinical-validity' } : {}))).statusCode, 303);
      }
      const hostReport = await app.inject({ url: `${base}/report`, headers: { cookie: host.cookie } });
      assert.deepEqual(tableRows(hostReport.body, 'disputed')!.slice(1).map((r) => [r[0], r[2], r[4]]), [['1', 'reject vs accept', 'You reviewed it: another admin adjudicates it']]);
      const judgeReport = await app.inject({ url: `${base}/report`, headers: { cookie: adjudicator.cookie } });
      assert.deepEqual(tableRows(judgeReport.body, 'disputed')!.slice(1).map((r) => [r[0], r[4]]), [['1', 'Adjudicate']]);
      const ruled = await post(adjudicator, `${base}/items/1`, form(adjudicator.csrf, { adjudication: '1', decision: 'reject', reason: 'clinical-validity' }));
      assert.deepEqual([ruled.statusCode, ruled.headers.location], [303, `${base}/report`]);
      const state = await queueState(store, (await reviewQueueById(store, review.queueId))!);
      assert.deepEqual([state.resolved[0]!.status, state.resolved[0]!.adjudicated, state.resolved.slice(1).every((r) => r.status === 'accepted')], ['retired', true, true]);
    } finally {
      await board.close();
    }
  });
}
