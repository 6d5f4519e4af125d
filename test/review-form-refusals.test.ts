import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { DEMO_DATASET } from '../src/cli/commands/demo-dataset.js';
import { createReviewQueue } from '../src/review/create-queue.js';
import { reviewItems } from '../src/store/reviews.js';
import { DIALECTS, demoBoard, lazyCluster } from './helpers/board.js';
import { reviewAccounts, signIn } from './helpers/review.js';

const cluster = lazyCluster();
after(() => cluster.stop());

/** The radios checked and the text fields' values of the review form in a page, as the browser would send them back. */
function formState(body: string): Record<string, string> {
  const form = /<form method="post" action="[^"]+" id="review-form"[^>]*>([^]*?)<\/form>/.exec(body);
  assert.ok(form, 'the page shows the review form');
  const state: Record<string, string> = {};
  for (const m of form[1]!.matchAll(/<input type="radio" name="(\w+)" value="([^"]*)" checked/g)) state[m[1]!] = m[2]!;
  for (const m of form[1]!.matchAll(/<input name="(\w+)"[^>]* value="([^"]*)">/g)) state[m[1]!] = m[2]!;
  for (const m of form[1]!.matchAll(/<textarea name="(\w+)"[^>]*>([^<]*)<\/textarea>/g)) state[m[1]!] = m[2]!;
  for (const m of form[1]!.matchAll(/<select name="(\w+)"[^>]*>([^]*?)<\/select>/g)) state[m[1]!] = /<option value="([^"]*)" selected>/.exec(m[2]!)?.[1] ?? '';
  state._csrf = /<input type="hidden" name="_csrf" value="([^"]+)">/.exec(form[1]!)![1]!;
  return state;
}

for (const dialect of DIALECTS) {
  test(`review form (${dialect}): a form refused for an expired session token is shown again with everything typed and a fresh token; nothing stored`, { timeout: 120_000 }, async () => {
    const board = await demoBoard(dialect, cluster.get);
    const { app, store } = board;
    try {
      await reviewAccounts(store, ['ana']);
      const { queue } = await createReviewQueue(store, 'test', { data: DEMO_DATASET, splits: ['valid'], title: 'Refusals', reviewersPerItem: 1, reviewers: ['ana@lab.org'] });
      const base = `/reviews/${queue.id}`;
      // The page was opened in a session since ended: ana signed in again (another tab), so the form's token is stale.
      const before = await signIn(app, 'ana@lab.org');
      const now = await signIn(app, 'ana@lab.org');
      const typed = {
        clinical_quality: '2', explanation_clarity: '3', factual_correctness: '1', image_alignment: '5', difficulty: 'hard', category: 'Typed category',
        decision: 'edit', reason: '', note: 'A note I wrote <carefully>', edit_question: 'A question I rewrote?', edit_a: 'First', edit_b: 'Second', edit_c: 'Third', edit_d: 'Fourth', edit_answer: 'C',
        edit_explanation: 'An explanation I typed at some length.',
      };
      const res = await app.inject({ method: 'POST', url: `${base}/items/1`, headers: { cookie: now.cookie }, payload: { _csrf: before.csrf, go: 'next', ...typed } });
      assert.equal(res.statusCode, 403);
      assert.match(res.body, /<p class="problems" role="alert" id="review-message">Not saved: the form had expired \(it was opened before you last signed in\)\. Everything you entered is below — check it and save again\.<\/p>/);
      assert.deepEqual(formState(res.body), { ...typed, note: 'A note I wrote &lt;carefully&gt;', _csrf: now.csrf });
      assert.equal(Number((await store.db.selectFrom('review_decisions').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n), 0);
      // Sent again as shown, it is saved.
      const again = await app.inject({ method: 'POST', url: `${base}/items/1`, headers: { cookie: now.cookie }, payload: { ...typed, _csrf: now.csrf, go: 'next' } });
      assert.equal(again.statusCode, 303);
    } finally {
      await board.close();
    }
  });

  test(`review form (${dialect}): a rejection needs no ratings or difficulty; accepting and editing still do, and their refusal keeps what was typed with each reason by its field`, { timeout: 120_000 }, async () => {
    const board = await demoBoard(dialect, cluster.get);
    const { app, store } = board;
    try {
      const who = await reviewAccounts(store, ['ana']);
      const { queue } = await createReviewQueue(store, 'test', { data: DEMO_DATASET, splits: ['valid'], title: 'Quick rejections', reviewersPerItem: 1, reviewers: ['ana@lab.org'] });
      const items = await reviewItems(store, queue.id);
      const base = `/reviews/${queue.id}`;
      const ana = await signIn(app, 'ana@lab.org');
      const post = (k: number, payload: Record<string, string>) => app.inject({ method: 'POST', url: `${base}/items/${k}`, headers: { cookie: ana.cookie }, payload: { _csrf: ana.csrf, go: 'next', ...payload } });

      const rejected = await post(1, { category: 'Heart', decision: 'reject', reason: 'comparison-content', note: 'needs the prior' });
      assert.deepEqual([rejected.statusCode, rejected.headers.location], [303, `${base}/items/2`]);
      const row = await store.db.selectFrom('review_decisions').select(['user_id', 'decision', 'reason', 'note', 'clinical_quality', 'explanation_clarity', 'factual_correctness', 'image_alignment', 'difficulty', 'category'])
        .where('queue_id', '=', queue.id).where('position', '=', 0).executeTakeFirstOrThrow();
      assert.deepEqual(row, { user_id: who.ana.id, decision: 'reject', reason: 'comparison-content', note: 'needs the prior', clinical_quality: null, explanation_clarity: null, factual_correctness: null, image_alignment: null, difficulty: null, category: 'Heart' });
      // Shown again, the saved rejection has no rating ticked (not a "null" value).
      const shown = await app.inject({ url: `${base}/items/1`, headers: { cookie: ana.cookie } });
      const state = formState(shown.body);
      assert.deepEqual([state.decision, state.reason, state.clinical_quality, state.difficulty], ['reject', 'comparison-content', undefined, undefined]);
      // A rejection may still carry ratings, and they are checked as ratings.
      assert.equal((await post(2, { category: 'Heart', decision: 'reject', reason: 'other', note: 'why', clinical_quality: '2' })).statusCode, 303);
      assert.equal((await post(3, { category: 'Heart', decision: 'reject', reason: 'other', note: 'why', clinical_quality: '7' })).statusCode, 400);

      for (const decision of ['accept', 'edit']) {
        const refused = await post(4, { category: 'Heart', decision, note: `typed for ${decision}`, explanation_clarity: '3', ...(decision === 'edit' ? { edit_question: 'Rewritten?', edit_a: 'a1', edit_b: 'b1', edit_c: 'c1', edit_d: 'd1', edit_answer: 'B', edit_explanation: 'Long enough to be an explanation.' } : {}) });
        assert.equal(refused.statusCode, 400, decision);
        assert.deepEqual([...refused.body.matchAll(/<span class="field-error" id="err-(\w+)">([^<]*)<\/span>/g)].map((m) => [m[1], m[2]]), [
          ['clinical_quality', 'Clinical quality: choose a rating from 1 to 5 (needed to accept or edit)'],
          ['factual_correctness', 'Factual correctness: choose a rating from 1 to 5 (needed to accept or edit)'],
          ['image_alignment', 'Image alignment: choose a rating from 1 to 5 (needed to accept or edit)'],
          ['difficulty', 'Difficulty: choose easy, medium or hard (needed to accept or edit)'],
        ], decision);
        const kept = formState(refused.body);
        assert.deepEqual([kept.decision, kept.explanation_clarity, kept.note, kept.edit_question ?? ''], [decision, '3', `typed for ${decision}`, decision === 'edit' ? 'Rewritten?' : String(JSON.parse(items[3]!.record_json).question)], decision);
      }
      assert.equal(Number((await store.db.selectFrom('review_decisions').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n), 2);
    } finally {
      await board.close();
    }
  });
}
