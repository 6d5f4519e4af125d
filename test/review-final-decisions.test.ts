import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { DEMO_DATASET } from '../src/cli/commands/demo-dataset.js';
import { createReviewQueue } from '../src/review/create-queue.js';
import { saveDecision } from '../src/review/decision.js';
import { queueState } from '../src/review/queue-state.js';
import { createReviewVersion } from '../src/review/version.js';
import { upsertReviewDecision } from '../src/store/review-decisions.js';
import { reviewItems, reviewQueueById } from '../src/store/reviews.js';
import type { Store } from '../src/store/connect.js';
import { DIALECTS, demoBoard, lazyCluster } from './helpers/board.js';
import { decisionInput, reviewAccounts, signIn, tableRows, textOf } from './helpers/review.js';

const cluster = lazyCluster();
after(() => cluster.stop());

/** A whole decision form as a browser sends it. */
const form = (csrf: string, fields: Record<string, string> = {}) => ({
  _csrf: csrf, clinical_quality: '4', explanation_clarity: '4', factual_correctness: '5', image_alignment: '3', difficulty: 'medium', category: 'Heart', decision: 'accept', reason: '', note: '', go: 'next', ...fields,
});

const seenRows = (store: Store) => store.db.selectFrom('review_others_seen').selectAll().orderBy('queue_id').orderBy('user_id').execute();
const decisionsOf = (store: Store, queueId: string) => store.db.selectFrom('review_decisions').selectAll().where('queue_id', '=', queueId).orderBy('position').orderBy('user_id').execute();

/** The sentence the item page gives for a final decision, as a reader reads it. */
const finalNotice = (body: string) => {
  const found = /<p class="notice" id="final-decision">([^]*?)<\/p>/.exec(body);
  return found ? textOf(found[1]!) : null;
};
const why = (at: string, did: string) =>
  `You share it with another reviewer, and on ${at.slice(0, 16).replace('T', ' ')} UTC you ${did}, which shows the other reviewers' decisions: a decision changed after seeing theirs would no longer be an independent opinion. If it must change, an admin who did not review the item can settle it by adjudication.`;

for (const dialect of DIALECTS) {
  test(`review final decisions (${dialect}): once an admin who reviews has seen the others' decisions (report, version, download), their decisions on shared items are final — shown read-only with why, a change refused (409, what was typed kept) by the routes, the library and the store; unshared items and the other reviewer stay editable`, { timeout: 180_000 }, async () => {
    const board = await demoBoard(dialect, cluster.get);
    const { app, store } = board;
    try {
      const who = await reviewAccounts(store, ['ana', 'ben']);
      const { queue } = await createReviewQueue(store, 'test', { data: DEMO_DATASET, splits: ['valid'], title: 'Admin shares every item with ana', reviewersPerItem: 2, reviewers: ['ana@lab.org', 'admin@lab.org'] });
      const base = `/reviews/${queue.id}`;
      const ana = await signIn(app, 'ana@lab.org');
      const admin = await signIn(app, 'admin@lab.org');
      const get = (as: { cookie: string }, url: string) => app.inject({ url, headers: { cookie: as.cookie } });
      const post = (as: { cookie: string }, url: string, payload: Record<string, string>) => app.inject({ method: 'POST', url, headers: { cookie: as.cookie }, payload });
      // Item 1: ana accepts, the admin rejects (a dispute). Items 2–6: both accept.
      for (let k = 1; k <= 6; k++) {
        assert.equal((await post(ana, `${base}/items/${k}`, form(ana.csrf))).statusCode, 303);
        assert.equal((await post(admin, `${base}/items/${k}`, form(admin.csrf, k === 1 ? { decision: 'reject', reason: 'several-valid-answers', note: 'Admin-own-note' } : {}))).statusCode, 303);
      }
      // Before seeing the report the admin may still change their own decision.
      assert.equal((await post(admin, `${base}/items/2`, form(admin.csrf, { clinical_quality: '2' }))).statusCode, 303);
      assert.deepEqual(await seenRows(store), []);

      const before = new Date().toISOString();
      assert.equal((await get(admin, `${base}/report`)).statusCode, 200);
      const seen = await seenRows(store);
      assert.deepEqual(seen.map((r) => ({ ...r, first_seen_at: r.first_seen_at >= before && r.first_seen_at <= new Date().toISOString() })), [{ queue_id: queue.id, user_id: who.admin.id, first_seen_at: true, first_seen_via: 'report' }]);
      assert.equal((await get(admin, `${base}/report`)).statusCode, 200);
      assert.deepEqual(await seenRows(store), seen, 'the first time is kept');

      // The item page: the decision read-only, with why; nothing to send.
      const page = await get(admin, `${base}/items/1`);
      assert.equal(page.statusCode, 200);
      assert.equal(finalNotice(page.body), `Your decision on this item is final; it is shown read-only. ${why(seen[0]!.first_seen_at, "opened this queue's report")}`);
      const reviewForm = /<form id="review-form" class="answer review">[^]*?<\/form>/.exec(page.body)?.[0] ?? '';
      assert.doesNotMatch(reviewForm, /method=|name="_csrf"|<button/, 'a form that cannot be sent');
      assert.deepEqual([...reviewForm.matchAll(/<input type="radio" name="(\w+)" value="(\w+)" checked(?: required)? disabled>/g)].map((m) => `${m[1]}=${m[2]}`), ['clinical_quality=4', 'explanation_clarity=4', 'factual_correctness=5', 'image_alignment=3', 'difficulty=medium', 'decision=reject']);
      assert.equal([...reviewForm.matchAll(/<input type="radio"(?![^>]*disabled)/g)].length, 0, 'every choice is disabled');
      assert.deepEqual([...reviewForm.matchAll(/<(?:input|textarea) name="(\w+)"(?![^>]*readonly)/g)].map((m) => m[1]), [], 'every text field is read-only');
      assert.deepEqual([...reviewForm.matchAll(/<select name="(\w+)"[^>]* disabled>/g)].map((m) => m[1]), ['reason', 'edit_answer']);
      assert.match(page.body, /<textarea name="note" id="field-note" maxlength="2000" readonly rows="3">Admin-own-note<\/textarea>/);

      // A change sent anyway (a page opened before, a crafted form): 409, the page again with what was typed, nothing changed.
      const stored = await decisionsOf(store, queue.id);
      const refused = await post(admin, `${base}/items/1`, form(admin.csrf, { decision: 'accept', note: 'Admin-typed-after-seeing' }));
      assert.equal(refused.statusCode, 409);
      assert.match(refused.body, /<p class="problems" role="alert" id="review-message">Not saved: your decision on this item is final, and it is unchanged\. What you sent is shown below, read-only, so you can copy it; open the item again to see your saved decision\.<\/p>/);
      assert.equal(finalNotice(refused.body), finalNotice(page.body));
      assert.match(refused.body, /<textarea name="note" id="field-note" maxlength="2000" readonly rows="3">Admin-typed-after-seeing<\/textarea>/);
      assert.match(refused.body, /<input type="radio" name="decision" value="accept" checked required disabled>/);
      assert.deepEqual(await decisionsOf(store, queue.id), stored);
      assert.deepEqual((await queueState(store, (await reviewQueueById(store, queue.id))!)).resolved.map((r) => r.status), ['disputed', 'accepted', 'accepted', 'accepted', 'accepted', 'accepted'], 'the dispute stays');
      // The library and the store refuse it too (a script, or a save racing the report).
      const message = `Your decision on item 1 is final, so nothing was saved. ${why(seen[0]!.first_seen_at, "opened this queue's report")}`;
      await assert.rejects(saveDecision(store, { id: who.admin.id, email: who.admin.email, isAdmin: true }, queue.id, 0, decisionInput()), { code: 'conflict', message });
      await assert.rejects(upsertReviewDecision(store, who.admin, queue.id, 0, false, { clinical_quality: 4, explanation_clarity: 4, factual_correctness: 4, image_alignment: 4, difficulty: 'easy', category: 'Heart', decision: 'accept', reason: null, note: null, edited_json: null }), { code: 'conflict', message });
      assert.deepEqual(await decisionsOf(store, queue.id), stored);
      // Ana never saw the admin's decisions: hers stay hers to change.
      assert.equal((await post(ana, `${base}/items/2`, form(ana.csrf, { clinical_quality: '1' }))).statusCode, 303);
      assert.equal(finalNotice((await get(ana, `${base}/items/2`)).body), null);

      // Seen through a version or a download instead: the same, and the page says which.
      for (const [via, did, look] of [
        ['version', 'made a version of this queue', (b: string) => post(admin, `${b}/versions`, { _csrf: admin.csrf })],
        ['download', 'downloaded a version of this queue', (b: string) => get(admin, `${b}/versions/1/review-version.json`)],
      ] as const) {
        const other = await createReviewQueue(store, 'test', { data: DEMO_DATASET, splits: ['valid'], title: `Seen by ${via}`, reviewersPerItem: 2, reviewers: ['ben@lab.org', 'admin@lab.org'] });
        const b = `/reviews/${other.queue.id}`;
        for (let k = 1; k <= 6; k++) assert.equal((await post(admin, `${b}/items/${k}`, form(admin.csrf))).statusCode, 303);
        await createReviewVersion(store, 'other@lab.org', other.queue.id, { pending: 'keep' });
        assert.equal((await look(b)).statusCode, via === 'version' ? 303 : 200);
        const row = (await seenRows(store)).find((r) => r.queue_id === other.queue.id)!;
        assert.deepEqual([row.user_id, row.first_seen_via], [who.admin.id, via]);
        assert.equal(finalNotice((await get(admin, `${b}/items/3`)).body), `Your decision on this item is final; it is shown read-only. ${why(row.first_seen_at, did)}`);
        assert.equal((await post(admin, `${b}/items/3`, form(admin.csrf, { decision: 'reject', reason: 'clinical-validity' }))).statusCode, 409);
      }

      // Items nobody else reviews stay editable after the report: there is no other opinion to sway.
      const alone = await createReviewQueue(store, 'test', { data: DEMO_DATASET, splits: ['valid'], title: 'Split between ana and the admin', reviewersPerItem: 1, reviewers: ['ana@lab.org', 'admin@lab.org'] });
      const mine = (await store.db.selectFrom('review_assignments').select('position').where('queue_id', '=', alone.queue.id).where('user_id', '=', who.admin.id).orderBy('position').execute()).map((r) => r.position + 1);
      const a = `/reviews/${alone.queue.id}`;
      for (const k of mine) assert.equal((await post(admin, `${a}/items/${k}`, form(admin.csrf))).statusCode, 303);
      assert.equal((await get(admin, `${a}/report`)).statusCode, 200);
      assert.equal(finalNotice((await get(admin, `${a}/items/${mine[0]!}`)).body), null);
      assert.equal((await post(admin, `${a}/items/${mine[0]!}`, form(admin.csrf, { decision: 'reject', reason: 'other', note: 'changed my mind' }))).statusCode, 303);
      assert.equal((await seenRows(store)).filter((r) => r.queue_id === alone.queue.id).length, 0);
    } finally {
      await board.close();
    }
  });

  test(`review version defaults (${dialect}): the report's form leaves pending and disputed items out unless the host chooses to include them, and a form that says nothing leaves them out`, { timeout: 120_000 }, async () => {
    const board = await demoBoard(dialect, cluster.get);
    const { app, store } = board;
    try {
      await reviewAccounts(store, ['ana']);
      const { queue } = await createReviewQueue(store, 'test', { data: DEMO_DATASET, splits: ['valid'], title: 'Half reviewed', reviewersPerItem: 1, reviewers: ['ana@lab.org'] });
      const items = await reviewItems(store, queue.id);
      const base = `/reviews/${queue.id}`;
      const ana = await signIn(app, 'ana@lab.org');
      const admin = await signIn(app, 'admin@lab.org');
      for (const k of [1, 2]) assert.equal((await app.inject({ method: 'POST', url: `${base}/items/${k}`, headers: { cookie: ana.cookie }, payload: form(ana.csrf) })).statusCode, 303);
      const report = await app.inject({ url: `${base}/report`, headers: { cookie: admin.cookie } });
      const versionForm = /<form method="post" action="[^"]+\/versions" id="version-form">[^]*?<\/form>/.exec(report.body)![0];
      assert.deepEqual([...versionForm.matchAll(/<input type="(radio|checkbox)" name="(\w+)" value="(\w+)"( checked)?/g)].map((m) => `${m[2]}=${m[3]}${m[4] ? ' checked' : ''}`), ['include_disputed=1', 'pending=retire checked', 'pending=keep']);
      const make = (payload: Record<string, string>) => app.inject({ method: 'POST', url: `${base}/versions`, headers: { cookie: admin.cookie }, payload: { _csrf: admin.csrf, ...payload } });
      assert.equal((await make({})).statusCode, 303);
      assert.equal((await make({ pending: 'keep' })).statusCode, 303);
      const listed = tableRows((await app.inject({ url: `${base}/report`, headers: { cookie: admin.cookie } })).body, 'version-list')!.map((r) => r.slice(3, 6));
      assert.deepEqual(listed, [['Included', 'Left out', 'Disputed · pending'], ['2', '4', 'left out · left out'], ['6', '0', 'left out · kept']]);
      const ids = async (n: number) => Object.keys(JSON.parse((await app.inject({ url: `${base}/versions/${n}/export.json?split=valid`, headers: { cookie: admin.cookie } })).body) as object);
      assert.deepEqual(await ids(1), items.slice(0, 2).map((i) => i.question_id));
      assert.deepEqual(await ids(2), items.map((i) => i.question_id));
      // The library's default is the same.
      assert.deepEqual((await createReviewVersion(store, 'admin@lab.org', queue.id)).summary.policy, { disputed: 'retire', pending: 'retire' });
    } finally {
      await board.close();
    }
  });
}
