/// <reference lib="dom" />
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import type { Page } from 'playwright-core';
import { DEMO_DATASET } from '../src/cli/commands/demo-dataset.js';
import { createReviewQueue } from '../src/review/create-queue.js';
import { reviewItems } from '../src/store/reviews.js';
import { keepScreenshot, launchChromium, seriousViolations } from './helpers/browser.js';
import { DIALECTS, demoBoard, lazyCluster } from './helpers/board.js';
import { reviewAccounts } from './helpers/review.js';
import { boxes, onPhone, signInAs } from './helpers/review-browser.js';

const cluster = lazyCluster();
after(() => cluster.stop());

/** Ticks the four ratings and the difficulty (the category comes prefilled). */
async function rate(page: Page, score: number): Promise<void> {
  for (const name of ['clinical_quality', 'explanation_clarity', 'factual_correctness', 'image_alignment']) await page.check(`input[name=${name}][value="${score}"]`);
  await page.check('input[name=difficulty][value=medium]');
}

for (const dialect of DIALECTS) {
  test(`review in Chromium (${dialect}): a reviewer accepts, edits, sees a broken edit refused, rejects (once without ratings); the admin's version export reflects all three; axe finds nothing serious`, { timeout: 180_000 }, async () => {
    const board = await demoBoard(dialect, cluster.get);
    await board.app.listen({ host: '127.0.0.1', port: 0 });
    const base = `http://127.0.0.1:${(board.app.server.address() as AddressInfo).port}`;
    const browser = await launchChromium();
    try {
      await reviewAccounts(board.store, ['rita']);
      const { queue } = await createReviewQueue(board.store, 'test', { data: DEMO_DATASET, splits: ['valid'], title: 'Valid split review', reviewersPerItem: 1, reviewers: ['rita@lab.org'] });
      const ids = (await reviewItems(board.store, queue.id)).map((i) => i.question_id);
      const reviewer = await (await browser.newContext()).newPage();
      const errors: string[] = [];
      // Errors of this page's own script (the viewer is another module's, tested in viewer-browser.test.ts).
      reviewer.on('pageerror', (e) => {
        if (!e.stack?.includes('/static/viewer.js')) errors.push(e.message);
      });
      await signInAs(reviewer, base, 'rita@lab.org');

      await reviewer.goto(`${base}/reviews`);
      await Promise.all([reviewer.waitForURL(`${base}/reviews/${queue.id}`), reviewer.click('#my-queues a')]);
      await Promise.all([reviewer.waitForURL(`${base}/reviews/${queue.id}/items/1`), reviewer.click('#continue')]);
      assert.match((await reviewer.textContent('#question-options .correct')) ?? '', /✓ correct answer/);
      assert.equal(await reviewer.isVisible('#edit-fields'), false, 'edit fields appear only for an edit');
      assert.deepEqual(await seriousViolations(reviewer), [], 'axe-core on the item page');
      await keepScreenshot(reviewer, `review-${dialect}-item`);
      // At 1280 px: images left, the report, question and form right; the images stay in sight while the form scrolls.
      const [views, form] = await boxes(reviewer, 'section.views', '#review-form');
      assert.ok(views!.right <= form!.left && views!.right - views!.left > form!.right - form!.left, 'images on the left, wider than the form');
      await reviewer.locator('#save-next').scrollIntoViewIfNeeded();
      const [stuck] = await boxes(reviewer, 'section.views');
      assert.ok(stuck!.top >= 0 && stuck!.top < 20, `the images stay at the top while the form scrolls (top ${stuck!.top})`);
      const [next, stay] = await boxes(reviewer, '#save-next', '#save-stay');
      assert.ok(next!.right <= stay!.left, 'the buttons are shown in their tab order');
      assert.ok(await reviewer.evaluate(() => getComputedStyle(document.querySelector('#save-next')!).backgroundColor === 'rgb(18, 50, 74)'), 'the primary button is styled');
      await onPhone(reviewer, `review-${dialect}-item`);
      await reviewer.setViewportSize({ width: 390, height: 844 });
      const [phoneViews, phoneForm] = await boxes(reviewer, 'section.views', '#review-form');
      assert.ok(phoneForm!.top >= phoneViews!.bottom, 'stacked on a phone');
      await reviewer.setViewportSize({ width: 1280, height: 720 });

      // 1: accept.
      await rate(reviewer, 5);
      await reviewer.check('input[name=decision][value=accept]');
      await Promise.all([reviewer.waitForURL(`${base}/reviews/${queue.id}/items/2`), reviewer.click('#save-next')]);

      // 2: edit option C's text.
      await rate(reviewer, 4);
      await reviewer.check('input[name=decision][value=edit]');
      assert.equal(await reviewer.isVisible('#edit-fields'), true);
      assert.equal(await reviewer.inputValue('input[name=edit_c]'), 'Normal');
      await reviewer.fill('input[name=edit_c]', 'Normal size and contour');
      await Promise.all([reviewer.waitForURL(`${base}/reviews/${queue.id}/items/3`), reviewer.click('#save-next')]);

      // 3: a broken edit (the question cleared) is refused and shown; then the item is rejected.
      await rate(reviewer, 2);
      await reviewer.check('input[name=decision][value=edit]');
      await reviewer.fill('textarea[name=edit_question]', '');
      await reviewer.fill('input[name=edit_a]', 'Kept as typed');
      const [refused] = await Promise.all([reviewer.waitForResponse((r) => r.request().method() === 'POST'), reviewer.click('#save-next')]);
      assert.equal(refused.status(), 400);
      assert.match((await reviewer.textContent('#review-errors')) ?? '', /Not saved — nothing was stored.*question is empty/s);
      assert.equal(await reviewer.getAttribute('textarea[name=edit_question]', 'aria-describedby'), 'err-edit_question');
      assert.equal(await reviewer.inputValue('input[name=edit_a]'), 'Kept as typed');
      assert.equal(await reviewer.isChecked('input[name=clinical_quality][value="2"]'), true, 'the ratings are kept too');
      assert.deepEqual(await seriousViolations(reviewer), [], 'axe-core on the item page with errors');
      // The message is shown right under the field too (the summary at the top links to it), and only that field is marked.
      assert.equal(await reviewer.evaluate(() => document.querySelector('#field-edit_question')!.nextElementSibling?.id), 'err-edit_question');
      assert.match((await reviewer.textContent('#err-edit_question')) ?? '', /question is empty/);
      const [field, message] = await boxes(reviewer, '#field-edit_question', '#err-edit_question');
      assert.ok(message!.top >= field!.bottom && message!.top - field!.bottom < 16, 'the message sits under its field');
      assert.equal(await reviewer.getAttribute('#review-errors a', 'href'), '#field-edit_question');
      assert.deepEqual(await reviewer.locator('#review-form [aria-invalid=true]').evaluateAll((es) => es.map((e) => e.id)), ['field-edit_question']);
      await keepScreenshot(reviewer, `review-${dialect}-refused-edit`);
      await onPhone(reviewer, `review-${dialect}-refused-edit`);
      await reviewer.check('input[name=decision][value=reject]');
      assert.equal(await reviewer.isVisible('#field-reason'), true);
      await reviewer.selectOption('#field-reason', 'several-valid-answers');
      await Promise.all([reviewer.waitForURL(`${base}/reviews/${queue.id}/items/4`), reviewer.click('#save-next')]);

      // 4: rejected straight away, no rating or difficulty ticked: the browser lets it go (accepting would not).
      const valid = () => reviewer.evaluate(() => (document.getElementById('review-form') as HTMLFormElement).checkValidity());
      await reviewer.check('input[name=decision][value=accept]');
      assert.equal(await valid(), false, 'accepting needs the ratings');
      await reviewer.check('input[name=decision][value=reject]');
      await reviewer.selectOption('#field-reason', 'comparison-content');
      assert.equal(await valid(), true, 'rejecting does not');
      await Promise.all([reviewer.waitForURL(`${base}/reviews/${queue.id}/items/5`), reviewer.click('#save-next')]);
      await reviewer.goto(`${base}/reviews/${queue.id}/items/4`);
      assert.deepEqual(await reviewer.locator('#review-form input[type=radio]:checked').evaluateAll((es) => es.map((e) => `${(e as HTMLInputElement).name}=${(e as HTMLInputElement).value}`)), ['decision=reject'], 'saved without ratings, shown without');
      await reviewer.goto(`${base}/reviews/${queue.id}`);
      assert.deepEqual(await reviewer.locator('#queue-items tbody td:nth-child(3)').allTextContents(), ['accept', 'edit', 'reject', 'reject', 'to do', 'to do']);
      assert.deepEqual(errors, []);

      // The admin makes a version (undecided items retired) and downloads it.
      const admin = await (await browser.newContext()).newPage();
      await signInAs(admin, base, 'admin@lab.org');
      await admin.goto(`${base}/reviews/${queue.id}/report`);
      // Accepted, edited, retired, disputed, pending.
      assert.deepEqual(await admin.locator('#status-counts tbody td:nth-child(2)').allTextContents(), ['1', '1', '2', '0', '2']);
      assert.deepEqual(await seriousViolations(admin), [], 'axe-core on the report page');
      await admin.check('#version-form input[name=pending][value=retire]');
      await Promise.all([admin.waitForURL(`${base}/reviews/${queue.id}/report#versions`), admin.click('#version-form button')]);
      assert.equal(await admin.locator('#version-list tbody tr').count(), 1);
      await keepScreenshot(admin, `review-${dialect}-report`);
      await onPhone(admin, `review-${dialect}-report`);
      const exported = await admin.request.get(`${base}/reviews/${queue.id}/versions/1/export.json?split=valid`);
      assert.equal(exported.status(), 200);
      const records = (await exported.json()) as Record<string, { options: string[] }>;
      const original = JSON.parse(readFileSync(`${DEMO_DATASET}/metadata/valid_vqa_data.json`, 'utf8')) as Record<string, unknown>;
      assert.deepEqual(Object.keys(records), [ids[0], ids[1]], 'accepted and edited kept; rejected and undecided left out');
      assert.deepEqual(records[ids[0]!], original[ids[0]!], 'the accepted question as it was');
      assert.deepEqual(records[ids[1]!]!.options, ['A. Enlarged', 'B. Displaced', 'C. Normal size and contour', 'D. Globular']);
      assert.equal((await reviewer.request.get(`${base}/reviews/${queue.id}/versions/1/export.json`)).status(), 404, 'not for reviewers: it holds the answers');
    } finally {
      await browser.close();
      await board.close();
    }
  });
}
