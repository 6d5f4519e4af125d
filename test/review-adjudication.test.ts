import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { DEMO_DATASET } from '../src/cli/commands/demo-dataset.js';
import { createReviewQueue } from '../src/review/create-queue.js';
import { saveDecision } from '../src/review/decision.js';
import { editableText } from '../src/review/edit.js';
import { createReviewVersion } from '../src/review/version.js';
import { createUser } from '../src/store/accounts.js';
import { reviewItems } from '../src/store/reviews.js';
import { DIALECTS, demoBoard, lazyCluster } from './helpers/board.js';
import { PASSWORD, reviewAccounts, signIn, tableRows } from './helpers/review.js';

const cluster = lazyCluster();
after(() => cluster.stop());

/** A whole decision form as a browser sends it. */
const form = (csrf: string, fields: Record<string, string> = {}) => ({
  _csrf: csrf, clinical_quality: '4', explanation_clarity: '4', factual_correctness: '5', image_alignment: '3', difficulty: 'medium', category: 'Heart', decision: 'accept', reason: '', note: '', go: 'next', ...fields,
});

for (const dialect of DIALECTS) {
  test(`review adjudication (${dialect}): a disputed item is settled only by an admin who did not review it — never offered to, and refused from, the admin in the dispute; the page shows every reviewer's decision side by side; versions leave disputed items out unless the host ticks them in`, { timeout: 120_000 }, async () => {
    const board = await demoBoard(dialect, cluster.get);
    const { app, store } = board;
    try {
      const who = await reviewAccounts(store, ['ana']);
      await createUser(store, { email: 'judge@lab.org', password: PASSWORD, displayName: 'Judge', admin: true });
      // The admin reviews every item with ana.
      const { queue } = await createReviewQueue(store, 'test', { data: DEMO_DATASET, splits: ['valid'], title: 'Admin in the dispute', reviewersPerItem: 2, reviewers: ['ana@lab.org', 'admin@lab.org'] });
      const items = await reviewItems(store, queue.id);
      const records = items.map((i) => JSON.parse(i.record_json) as Record<string, unknown>);
      const base = `/reviews/${queue.id}`;
      const ana = await signIn(app, 'ana@lab.org');
      const admin = await signIn(app, 'admin@lab.org');
      const judge = await signIn(app, 'judge@lab.org');
      const get = (as: { cookie: string }, url: string) => app.inject({ url, headers: { cookie: as.cookie } });
      const post = (as: { cookie: string }, url: string, payload: Record<string, string>) => app.inject({ method: 'POST', url, headers: { cookie: as.cookie }, payload });
      const anaEdit = { ...editableText(records[1]!), question: 'Ana rewrote this question?' };
      // Item 1: ana accepts, the admin rejects. Item 2: ana edits, the admin accepts. Items 3–6: both accept.
      const plan: [{ cookie: string }, number, Record<string, string>][] = [
        [ana, 1, form(ana.csrf)], [admin, 1, form(admin.csrf, { decision: 'reject', reason: 'several-valid-answers', clinical_quality: '2' })],
        [ana, 2, form(ana.csrf, { decision: 'edit', note: 'Ana: the wording was vague', edit_question: anaEdit.question, edit_a: anaEdit.options[0]!, edit_b: anaEdit.options[1]!, edit_c: anaEdit.options[2]!, edit_d: anaEdit.options[3]!, edit_answer: anaEdit.answer, edit_explanation: anaEdit.explanation })],
        [admin, 2, form(admin.csrf, { category: 'Cardiac', difficulty: 'easy', clinical_quality: '2' })],
        ...[3, 4, 5, 6].flatMap((k): [{ cookie: string }, number, Record<string, string>][] => [[ana, k, form(ana.csrf)], [admin, k, form(admin.csrf)]]),
      ];
      for (const [as, k, payload] of plan) assert.equal((await post(as, `${base}/items/${k}`, payload)).statusCode, 303, `item ${k}`);
      const question = (k: number) => `${String(records[k - 1]!.question)} ${items[k - 1]!.question_id}`;

      // The admin in the dispute sees both disputes on the report, and neither is offered to them.
      const header = ['Item', 'Question', 'Disagreement', 'Reviewers: decision (reason), note', 'Adjudication'];
      const ownReport = await get(admin, `${base}/report`);
      assert.equal(ownReport.statusCode, 200);
      assert.deepEqual(tableRows(ownReport.body, 'disputed'), [
        header,
        ['1', question(1), 'reject vs accept', 'Ana: accept; Admin: reject (several-valid-answers)', 'You reviewed it: another admin adjudicates it'],
        ['2', question(2), 'accept vs edit', 'Ana: edit, note: “Ana: the wording was vague”; Admin: accept', 'You reviewed it: another admin adjudicates it'],
      ]);
      assert.doesNotMatch(ownReport.body, /aria-label="Adjudicate item/);
      // Their own item page is their own review form, not an adjudication.
      const own = await get(admin, `${base}/items/1`);
      assert.doesNotMatch(own.body, /name="adjudication"|id="reviewer-decisions"/);

      // An adjudication sent anyway (a stale page, a crafted form) is refused: 409, the reason, what was typed kept, nothing changed.
      const decisionsBefore = await store.db.selectFrom('review_decisions').selectAll().where('queue_id', '=', queue.id).orderBy('position').orderBy('user_id').execute();
      const refused = await post(admin, `${base}/items/1`, form(admin.csrf, { adjudication: '1', note: 'Admin-typed-ruling', clinical_quality: '5' }));
      assert.equal(refused.statusCode, 409);
      assert.match(refused.body, /<p class="problems" role="alert" id="review-message">You are one of the reviewers of item 1, so you cannot adjudicate it: an admin who did not review it settles its dispute\. Nothing was saved\. The form below is your own review\.<\/p>/);
      // What was typed is kept, read-only: having opened the report, the admin's own decision is final (review-final-decisions.test.ts).
      assert.match(refused.body, /<textarea name="note" id="field-note" maxlength="2000" readonly rows="3">Admin-typed-ruling<\/textarea>/);
      assert.match(refused.body, /<input type="radio" name="clinical_quality" value="5" checked disabled>/);
      // The field sent twice (a crafted form) is refused too: by the board's request guard, before the route (400).
      const twice = await app.inject({ method: 'POST', url: `${base}/items/1`, headers: { cookie: admin.cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams([...Object.entries(form(admin.csrf)), ['adjudication', '1'], ['adjudication', '1']]).toString() });
      assert.equal(twice.statusCode, 400);
      assert.match(twice.body, /adjudication/);
      assert.deepEqual(await store.db.selectFrom('review_decisions').selectAll().where('queue_id', '=', queue.id).orderBy('position').orderBy('user_id').execute(), decisionsBefore, 'the admin\'s own vote is unchanged and no adjudication stored');
      // The library refuses it too, before looking at the form.
      await assert.rejects(saveDecision(store, { id: who.admin.id, email: who.admin.email, isAdmin: true }, queue.id, 0, {}, { adjudication: true }), {
        code: 'conflict', message: 'You are one of the reviewers of item 1, so you cannot adjudicate it: an admin who did not review it settles its dispute. Nothing was saved.',
      });

      // An admin who reviewed nothing here gets both, with every reviewer's decision side by side.
      const judgeReport = await get(judge, `${base}/report`);
      assert.deepEqual(tableRows(judgeReport.body, 'disputed')!.map((r) => r.at(-1)), ['Adjudication', 'Adjudicate', 'Adjudicate']);
      assert.deepEqual([...judgeReport.body.matchAll(/<a href="([^"]+)" aria-label="Adjudicate item (\d+)">/g)].map((m) => [m[1], m[2]]), [[`${base}/items/1`, '1'], [`${base}/items/2`, '2']]);
      const page = await get(judge, `${base}/items/2`);
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /<p id="dispute">The reviewers disagree: accept vs edit\.<\/p>/);
      assert.deepEqual(tableRows(page.body, 'reviewer-decisions'), [
        ['', 'Admin', 'Ana'],
        ['Decision', 'Accept', 'Edit'],
        ['Reason for rejecting', '—', '—'],
        ['Note', '—', 'Ana: the wording was vague'],
        ['Clinical quality', '2', '4'],
        ['Explanation clarity', '4', '4'],
        ['Factual correctness', '5', '5'],
        ['Image alignment', '3', '3'],
        ['Difficulty', 'easy', 'medium'],
        ['Category', 'Cardiac', 'Heart'],
        ['Question', 'as queued', 'Ana rewrote this question?'],
        ['Option A', 'as queued', 'unchanged'],
        ['Option B', 'as queued', 'unchanged'],
        ['Option C', 'as queued', 'unchanged'],
        ['Option D', 'as queued', 'unchanged'],
        ['Correct answer', 'as queued', 'unchanged'],
        ['Explanation', 'as queued', 'unchanged'],
      ]);
      assert.match(page.body, /<input type="hidden" name="adjudication" value="1">/);
      const ruled = await post(judge, `${base}/items/2`, form(judge.csrf, { adjudication: '1' }));
      assert.deepEqual([ruled.statusCode, ruled.headers.location], [303, `${base}/report`]);
      assert.deepEqual(tableRows((await get(judge, `${base}/report`)).body, 'disputed')!.map((r) => r[0]), ['Item', '1']);

      // A version by default leaves the disputed item out (the box is unticked); ticked, it goes in as queued. Each says which.
      const versionForm = /<form method="post" action="[^"]+\/versions" id="version-form">[^]*?<\/form>/.exec(judgeReport.body)![0];
      assert.match(versionForm, /<label><input type="checkbox" name="include_disputed" value="1" aria-describedby="hint-disputed"> Include the 2 disputed questions not adjudicated, as queued<\/label>/);
      assert.equal((await post(judge, `${base}/versions`, { _csrf: judge.csrf, pending: 'keep' })).statusCode, 303);
      assert.equal((await post(judge, `${base}/versions`, { _csrf: judge.csrf, pending: 'keep', include_disputed: '1' })).statusCode, 303);
      const ids = async (n: number) => Object.keys((JSON.parse((await get(judge, `${base}/versions/${n}/export.json?split=valid`)).body) as object));
      assert.deepEqual(await ids(1), items.slice(1).map((i) => i.question_id));
      assert.deepEqual(await ids(2), items.map((i) => i.question_id));
      const manifest = async (n: number) => {
        const m = JSON.parse((await get(judge, `${base}/versions/${n}/review-version.json`)).body) as Record<string, unknown>;
        return { policy: m.policy, retired: m.retired, keptUnsettled: m.keptUnsettled };
      };
      assert.deepEqual(await manifest(1), { policy: { disputed: 'retire', pending: 'keep' }, retired: [{ id: items[0]!.question_id, split: 'valid', status: 'disputed', reasons: ['several-valid-answers'], dispute: 'reject vs accept' }], keptUnsettled: [] });
      assert.deepEqual(await manifest(2), { policy: { disputed: 'keep', pending: 'keep' }, retired: [], keptUnsettled: [{ id: items[0]!.question_id, split: 'valid', status: 'disputed', dispute: 'reject vs accept' }] });
      assert.deepEqual(tableRows((await get(judge, `${base}/report`)).body, 'version-list')!.map((r) => r.slice(3, 6)), [['Included', 'Left out', 'Disputed · pending'], ['5', '1', 'left out · kept'], ['6', '0', 'included · kept']]);
      // The library's default is the same: disputed items left out (and pending ones).
      assert.deepEqual((await createReviewVersion(store, 'admin@lab.org', queue.id)).summary.policy, { disputed: 'retire', pending: 'retire' });
    } finally {
      await board.close();
    }
  });
}
