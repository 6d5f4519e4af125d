import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { DEMO_DATASET } from '../src/cli/commands/demo-dataset.js';
import { createReviewQueue } from '../src/review/create-queue.js';
import { reviewItems, reviewViewsOf } from '../src/store/reviews.js';
import { DIALECTS, demoBoard, lazyCluster } from './helpers/board.js';
import { reviewAccounts, signIn } from './helpers/review.js';

const cluster = lazyCluster();
after(() => cluster.stop());

/** A whole decision form as a browser sends it. */
const form = (csrf: string | undefined, fields: Record<string, string> = {}) => ({
  ...(csrf === undefined ? {} : { _csrf: csrf }),
  clinical_quality: '4', explanation_clarity: '4', factual_correctness: '5', image_alignment: '3', difficulty: 'medium', category: 'Heart', decision: 'accept', reason: '', note: '', go: 'next', ...fields,
});

for (const dialect of DIALECTS) {
  test(`review routes (${dialect}): only assigned reviewers and admins see an item and its answer; CSRF on every POST; a refused edit keeps the typed text and stores nothing`, { timeout: 120_000 }, async () => {
    const board = await demoBoard(dialect, cluster.get);
    const { app, store } = board;
    try {
      await reviewAccounts(store, ['ana', 'ben', 'cy']);
      // One reviewer per item over the valid split: ana and ben get three items each; cy reviews nothing.
      const { queue } = await createReviewQueue(store, 'test', { data: DEMO_DATASET, splits: ['valid'], title: 'Routes queue', reviewersPerItem: 1, reviewers: ['ana@lab.org', 'ben@lab.org'] });
      const items = await reviewItems(store, queue.id);
      const assignments = await store.db.selectFrom('review_assignments').innerJoin('users', 'users.id', 'review_assignments.user_id').select(['position', 'email']).where('queue_id', '=', queue.id).execute();
      const of = (email: string) => assignments.filter((a) => a.email === email).map((a) => a.position).sort((a, b) => a - b);
      const [anaFirst, anaSecond] = of('ana@lab.org');
      const benFirst = of('ben@lab.org')[0]!;
      const explanations = items.map((i) => String((JSON.parse(i.record_json) as { correct_answer_explanation: string }).correct_answer_explanation));
      const sha = reviewViewsOf(items[anaFirst!]!)[0]!.sha256!;
      const base = `/reviews/${queue.id}`;

      const anonymous = await app.inject({ url: '/reviews' });
      assert.deepEqual([anonymous.statusCode, anonymous.headers.location], [303, '/login?next=%2Freviews']);
      assert.equal((await app.inject({ url: `${base}/items/1` })).statusCode, 303);
      assert.equal((await app.inject({ url: `${base}/img/${sha}` })).statusCode, 404);

      const ana = await signIn(app, 'ana@lab.org');
      const ben = await signIn(app, 'ben@lab.org');
      const cy = await signIn(app, 'cy@lab.org');
      const admin = await signIn(app, 'admin@lab.org');
      const get = (who: { cookie: string }, url: string) => app.inject({ url, headers: { cookie: who.cookie } });
      const post = (who: { cookie: string }, url: string, payload: Record<string, string>) => app.inject({ method: 'POST', url, headers: { cookie: who.cookie }, payload });

      const list = await get(ana, '/reviews');
      assert.equal(list.statusCode, 200);
      assert.match(list.body, new RegExp(`<a href="${base}">Routes queue</a></td><td class="num">3</td><td class="num">0</td>`));
      assert.doesNotMatch(list.body, /All queues/, 'a reviewer does not see the admins\' list');
      const page = await get(ana, `${base}/items/${anaFirst! + 1}`);
      assert.equal(page.statusCode, 200);
      assert.ok(page.body.includes(explanations[anaFirst!]!.replaceAll('"', '&quot;').replaceAll("'", '&#39;')), 'the assigned reviewer sees the explanation');
      assert.match(page.body, /✓ correct answer/);
      assert.match(page.body, new RegExp(`class="cxr-view" data-src="${base}/img/${sha}"`));
      assert.match(page.body, /<script type="module" src="\/static\/viewer.js"><\/script>/);
      assert.equal((await get(ana, `${base}/img/${sha}`)).headers['x-image-bits'], '8');
      assert.equal((await get(admin, `${base}/img/${sha}`)).statusCode, 200);

      // Another reviewer, and an account with no item, get 404 for everything of ana's — and no answer anywhere.
      for (const [who, urls] of [[ben, [`${base}/items/${anaFirst! + 1}`, `${base}/report`, `${base}/versions/1/export.json`]], [cy, ['/reviews', base, ...items.map((i) => `${base}/items/${i.position + 1}`), `${base}/img/${sha}`, `${base}/report`, `${base}/versions/1/export.json`, `${base}/versions/1/review-version.json`]]] as const) {
        for (const url of urls) {
          const res = await get(who, url);
          if (url !== '/reviews') assert.equal(res.statusCode, 404, url);
          for (const e of explanations) assert.ok(!res.body.includes(e.slice(0, 40).replaceAll("'", '&#39;')) && !res.body.includes(e.slice(0, 40)), `${url} shows no explanation`);
        }
      }
      assert.equal((await post(cy, `${base}/items/1`, form(cy.csrf))).statusCode, 404);
      // An image is served only through a queue whose items hold it: cy's own queue's image is not ana's through hers, nor cy's through it.
      const other = await createReviewQueue(store, 'test', { data: DEMO_DATASET, splits: ['test'], title: 'Other', reviewersPerItem: 1, reviewers: ['cy@lab.org'] });
      const valid = new Set(items.flatMap((i) => reviewViewsOf(i).map((v) => v.sha256)));
      const foreign = (await reviewItems(store, other.queue.id)).flatMap((i) => reviewViewsOf(i).map((v) => v.sha256!)).find((x) => !valid.has(x))!;
      assert.deepEqual([(await get(ana, `${base}/img/${foreign}`)).statusCode, (await get(cy, `${base}/img/${foreign}`)).statusCode, (await get(cy, `/reviews/${other.queue.id}/img/${foreign}`)).statusCode], [404, 404, 200]);

      // CSRF: missing or another session's token → 403, nothing stored.
      const count = async () => Number((await store.db.selectFrom('review_decisions').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
      assert.equal((await post(ana, `${base}/items/${anaFirst! + 1}`, form(undefined))).statusCode, 403);
      assert.equal((await post(ana, `${base}/items/${anaFirst! + 1}`, form(ben.csrf))).statusCode, 403);
      assert.equal((await post(admin, `${base}/versions`, { disputed: 'keep', pending: 'keep' })).statusCode, 403);
      assert.equal(await count(), 0);

      // A broken edit: option D emptied and the question cleared → 400, reasons shown and tied to the fields, typed text kept, nothing stored.
      const broken = await post(ana, `${base}/items/${anaFirst! + 1}`, form(ana.csrf, { decision: 'edit', edit_question: '', edit_a: 'First <b>typed</b>', edit_b: 'Second', edit_c: 'Third', edit_d: '', edit_answer: 'A', edit_explanation: 'An explanation of a sentence or more.' }));
      assert.equal(broken.statusCode, 400);
      assert.match(broken.body, /<div class="problems" role="alert" id="review-errors">/);
      assert.match(broken.body, /<li id="err-edit_question">question is empty<\/li>/);
      assert.match(broken.body, /<li id="err-edit_options">option D has a letter but no text<\/li>/);
      assert.match(broken.body, /<textarea name="edit_question" id="field-edit_question" maxlength="4000" aria-invalid="true" aria-describedby="err-edit_question" rows="3"><\/textarea>/);
      assert.match(broken.body, /value="First &lt;b&gt;typed&lt;\/b&gt;"/, 'the typed option is kept (escaped)');
      assert.match(broken.body, /<input type="radio" name="decision" value="edit" checked required>/);
      assert.equal(await count(), 0);

      // A good decision goes on to the reviewer's next item; the admin sees it in the report and makes a version.
      const saved = await post(ana, `${base}/items/${anaFirst! + 1}`, form(ana.csrf));
      assert.deepEqual([saved.statusCode, saved.headers.location], [303, `${base}/items/${anaSecond! + 1}`]);
      assert.equal(await count(), 1);
      assert.match((await get(ana, '/reviews')).body, /<td class="num">3<\/td><td class="num">1<\/td>/);
      assert.equal((await get(ana, `${base}/report`)).statusCode, 404, 'the report is for admins');
      const report = await get(admin, `${base}/report`);
      assert.equal(report.statusCode, 200);
      assert.match(report.body, /Decisions made 1 of 6/);
      const made = await post(admin, `${base}/versions`, { _csrf: admin.csrf, disputed: 'keep', pending: 'retire' });
      assert.deepEqual([made.statusCode, made.headers.location], [303, `${base}/report#versions`]);
      const download = await get(admin, `${base}/versions/1/export.json`);
      assert.equal(download.statusCode, 200);
      assert.match(String(download.headers['content-disposition']), /^attachment; filename="review-[0-9a-f]{8}-v1-export\.json"$/);
      assert.deepEqual(Object.keys(JSON.parse(download.body) as object), ['metadata/valid_vqa_data.json']);
      assert.deepEqual(Object.keys((JSON.parse(download.body) as Record<string, object>)['metadata/valid_vqa_data.json']!), [items[anaFirst!]!.question_id]);
      const one = await get(admin, `${base}/versions/1/export.json?split=valid`);
      assert.deepEqual(JSON.parse(one.body), (JSON.parse(download.body) as Record<string, unknown>)['metadata/valid_vqa_data.json']);
      assert.equal((await get(admin, `${base}/versions/9/export.json`)).statusCode, 404);

      // An admin who reviews nothing adjudicates: the form says so, and the decision is stored as an adjudication.
      const adjudicate = await get(admin, `${base}/items/${benFirst + 1}`);
      assert.match(adjudicate.body, /<input type="hidden" name="adjudication" value="1">/);
      const ruled = await post(admin, `${base}/items/${benFirst + 1}`, form(admin.csrf, { decision: 'reject', reason: 'other', note: 'seen twice' }));
      assert.deepEqual([ruled.statusCode, ruled.headers.location], [303, `${base}/report`]);
      const row = await store.db.selectFrom('review_decisions').select(['adjudication', 'decision', 'reason', 'note']).where('queue_id', '=', queue.id).where('position', '=', benFirst).executeTakeFirstOrThrow();
      assert.deepEqual(row, { adjudication: 1, decision: 'reject', reason: 'other', note: 'seen twice' });
    } finally {
      await board.close();
    }
  });
}
