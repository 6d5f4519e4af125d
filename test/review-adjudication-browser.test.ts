/// <reference lib="dom" />
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { DEMO_DATASET } from '../src/cli/commands/demo-dataset.js';
import { createReviewQueue } from '../src/review/create-queue.js';
import { saveDecision } from '../src/review/decision.js';
import { editableText } from '../src/review/edit.js';
import { createUser } from '../src/store/accounts.js';
import { reviewItems } from '../src/store/reviews.js';
import { keepScreenshot, launchChromium, seriousViolations } from './helpers/browser.js';
import { DIALECTS, demoBoard, lazyCluster } from './helpers/board.js';
import { decisionInput, PASSWORD, reviewAccounts } from './helpers/review.js';
import { boxes, onPhone, signInAs } from './helpers/review-browser.js';

const cluster = lazyCluster();
after(() => cluster.stop());

for (const dialect of DIALECTS) {
  test(`review adjudication in Chromium (${dialect}): the admin in a dispute is not offered it, and once they have seen the report their own decisions are final (read-only with why; a form opened before is refused, what they typed kept); another admin sees both reviewers' decisions side by side, settles it, and the version leaves the other dispute and pending items out by default`, { timeout: 180_000 }, async () => {
    const board = await demoBoard(dialect, cluster.get);
    await board.app.listen({ host: '127.0.0.1', port: 0 });
    const base = `http://127.0.0.1:${(board.app.server.address() as AddressInfo).port}`;
    const browser = await launchChromium();
    try {
      const who = await reviewAccounts(board.store, ['ana']);
      await createUser(board.store, { email: 'judge@lab.org', password: PASSWORD, displayName: 'Judge', admin: true });
      const { queue } = await createReviewQueue(board.store, 'test', { data: DEMO_DATASET, splits: ['valid'], title: 'Disputes in Chromium', reviewersPerItem: 2, reviewers: ['ana@lab.org', 'admin@lab.org'] });
      const items = await reviewItems(board.store, queue.id);
      const ana = { id: who.ana.id, email: who.ana.email, isAdmin: false };
      const admin = { id: who.admin.id, email: who.admin.email, isAdmin: true };
      const edited = { ...editableText(JSON.parse(items[1]!.record_json) as Record<string, unknown>), question: 'Ana asks it more plainly?' };
      // Item 1: ana accepts, the admin rejects. Item 2: ana edits, the admin accepts. The rest: both accept.
      const plan: [typeof ana, number, Record<string, unknown>][] = [
        [ana, 0, {}], [admin, 0, { decision: 'reject', reason: 'hallucinated-finding' }],
        [ana, 1, { decision: 'edit', note: 'clearer wording', edited }], [admin, 1, { clinical_quality: 2 }],
        ...[2, 3, 4, 5].flatMap((p): [typeof ana, number, Record<string, unknown>][] => [[ana, p, {}], [admin, p, {}]]),
      ];
      for (const [user, position, input] of plan) assert.deepEqual(await saveDecision(board.store, user, queue.id, position, decisionInput(input)), { saved: true });
      const report = `${base}/reviews/${queue.id}/report`;

      const ownContext = await browser.newContext();
      const own = await ownContext.newPage();
      await signInAs(own, base, 'admin@lab.org');
      // Their own item 1 opened in a tab before they look at the report: still their form to change.
      const item1 = `${base}/reviews/${queue.id}/items/1`;
      const stale = await ownContext.newPage();
      await stale.goto(item1);
      assert.equal(await stale.isEditable('#field-note'), true);
      await own.goto(report);
      assert.deepEqual(await own.locator('#disputed tbody td:last-child').allTextContents(), ['You reviewed it: another admin adjudicates it', 'You reviewed it: another admin adjudicates it']);
      assert.equal(await own.locator('#disputed a').count(), 0, 'no way into adjudicating their own dispute');

      // Having seen ana's decisions, the admin cannot quietly turn their rejection into an acceptance and end the dispute.
      const seenAt = (await board.store.db.selectFrom('review_others_seen').select('first_seen_at').where('queue_id', '=', queue.id).executeTakeFirstOrThrow()).first_seen_at;
      const finalText = `Your decision on this item is final; it is shown read-only. You share it with another reviewer, and on ${seenAt.slice(0, 16).replace('T', ' ')} UTC you opened this queue's report, which shows the other reviewers' decisions: a decision changed after seeing theirs would no longer be an independent opinion. If it must change, an admin who did not review the item can settle it by adjudication.`;
      await stale.check('input[name=decision][value=accept]');
      await stale.fill('#field-note', 'Accepting after all, now that I saw Ana');
      await stale.click('#save-stay');
      await stale.waitForSelector('#review-message');
      assert.equal(await stale.textContent('#review-message'), 'Not saved: your decision on this item is final, and it is unchanged. What you sent is shown below, read-only, so you can copy it; open the item again to see your saved decision.');
      assert.equal(await stale.textContent('#final-decision'), finalText);
      assert.deepEqual([await stale.inputValue('#field-note'), await stale.isEditable('#field-note'), await stale.isChecked('input[name=decision][value=accept]'), await stale.isDisabled('input[name=decision][value=accept]')], ['Accepting after all, now that I saw Ana', false, true, true]);
      await own.goto(item1);
      assert.equal(await own.textContent('#final-decision'), finalText);
      assert.deepEqual(await own.locator('#review-form input[type=radio]:checked').evaluateAll((inputs) => inputs.map((i) => `${(i as HTMLInputElement).name}=${(i as HTMLInputElement).value}`)), ['clinical_quality=4', 'explanation_clarity=4', 'factual_correctness=4', 'image_alignment=4', 'difficulty=medium', 'decision=reject']);
      assert.deepEqual([await own.locator('#review-form input[type=radio]:enabled, #review-form select:enabled').count(), await own.locator('#review-form button').count(), await own.isEditable('#field-category')], [0, 0, false]);
      assert.equal(await own.isVisible('#reason-field'), true, 'the reason of their rejection is shown');
      assert.deepEqual(await seriousViolations(own), [], 'axe-core on a final decision');
      await keepScreenshot(own, `review-${dialect}-final-decision`);
      assert.deepEqual((await board.store.db.selectFrom('review_decisions').select(['decision', 'note']).where('queue_id', '=', queue.id).where('position', '=', 0).where('user_id', '=', who.admin.id).executeTakeFirstOrThrow()), { decision: 'reject', note: null });

      const judge = await (await browser.newContext()).newPage();
      const errors: string[] = [];
      judge.on('pageerror', (e) => {
        if (!e.stack?.includes('/static/viewer.js')) errors.push(e.message);
      });
      await signInAs(judge, base, 'judge@lab.org');
      await judge.goto(report);
      await Promise.all([judge.waitForURL(`${base}/reviews/${queue.id}/items/2`), judge.click('#disputed a[aria-label="Adjudicate item 2"]')]);
      assert.equal(await judge.textContent('#dispute'), 'The reviewers disagree: accept vs edit.');
      // One column per reviewer, side by side; a row per field.
      assert.deepEqual(await judge.locator('#reviewer-decisions thead th').allTextContents(), ['Admin', 'Ana']);
      const [left, right] = await boxes(judge, '#reviewer-decisions thead th:nth-child(2)', '#reviewer-decisions thead th:nth-child(3)');
      assert.ok(left!.right <= right!.left && Math.abs(left!.top - right!.top) < 2, 'the two reviewers\' columns sit side by side');
      const row = async (label: string) => judge.locator('#reviewer-decisions tbody tr', { has: judge.locator(`th:text-is("${label}")`) }).locator('td').allTextContents();
      assert.deepEqual(await row('Decision'), ['Accept', 'Edit']);
      assert.deepEqual(await row('Note'), ['—', 'clearer wording']);
      assert.deepEqual(await row('Clinical quality'), ['2', '4']);
      assert.deepEqual(await row('Question'), ['as queued', 'Ana asks it more plainly?']);
      assert.deepEqual(await seriousViolations(judge), [], 'axe-core on the adjudication page');
      await keepScreenshot(judge, `review-${dialect}-adjudication`);
      await onPhone(judge, `review-${dialect}-adjudication`);

      // The judge settles item 2 and is back on the report, where only item 1 waits.
      for (const name of ['clinical_quality', 'explanation_clarity', 'factual_correctness', 'image_alignment']) await judge.check(`input[name=${name}][value="4"]`);
      await judge.check('input[name=difficulty][value=medium]');
      await judge.check('input[name=decision][value=accept]');
      await Promise.all([judge.waitForURL(report), judge.click('#save-next')]);
      assert.deepEqual(await judge.locator('#disputed tbody td:first-child').allTextContents(), ['1']);
      // The version form leaves the remaining dispute out unless ticked, and pending items unless chosen.
      assert.deepEqual([await judge.isChecked('#version-form input[name=include_disputed]'), await judge.isChecked('#version-form input[name=pending][value=retire]'), await judge.isChecked('#version-form input[name=pending][value=keep]')], [false, true, false]);
      await Promise.all([judge.waitForURL(`${report}#versions`), judge.click('#version-form button')]);
      assert.deepEqual(await judge.locator('#version-list tbody td:nth-child(4), #version-list tbody td:nth-child(5), #version-list tbody td:nth-child(6)').allTextContents(), ['5', '1', 'left out · left out']);
      const exported = await judge.request.get(`${base}/reviews/${queue.id}/versions/1/export.json?split=valid`);
      assert.deepEqual(Object.keys((await exported.json()) as object), items.slice(1).map((i) => i.question_id));
      assert.deepEqual(errors, []);
    } finally {
      await browser.close();
      await board.close();
    }
  });
}
