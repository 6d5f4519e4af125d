/// <reference lib="dom" />
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { inChromium, keepScreenshot, signUpInBrowser } from './helpers/browser.js';
import { DIALECTS, demoBoard, lazyCluster, predictionsJsonl } from './helpers/board.js';

const cluster = lazyCluster();
after(() => cluster.stop());

for (const dialect of DIALECTS) {
  test(`browser (${dialect}): sign up, create a token, upload, see the entry ranked, open its category page — in Chromium`, { timeout: 120_000 }, async () => {
    await inChromium(() => demoBoard(dialect, cluster.get), async (page, base, board, errors) => {
      await signUpInBrowser(page, base);

      await page.fill('#token-form input[name=name]', 'laptop');
      await Promise.all([page.waitForLoadState('load'), page.click('#token-form button')]);
      const token = await page.textContent('#new-token');
      assert.match(token ?? '', /^cxr_/);
      assert.equal(await page.locator('#tokens tbody tr').count(), 1);

      await page.goto(`${base}/b/demo/submit`);
      const content = predictionsJsonl(board.questions, (q, i) => (i < 12 ? `{"answer": "${q.answer}", "explanation": "seen on the film"}` : 'unsure'));
      await page.setInputFiles('input[name=file]', { name: 'preds.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(content) });
      await page.fill('input[name=name]', 'RadVLM-7B');
      await page.fill('input[name=organisation]', 'Hospital <b>Lab</b>');
      await page.check('input[name=openWeights][value=true]');
      // The upload returns at once to the submission's page, which refreshes itself until a worker has scored it.
      await Promise.all([page.waitForURL(/\/submissions\/[0-9a-f-]+$/), page.click('#submit-form button[type=submit]')]);
      assert.match((await page.textContent('#state')) ?? '', /Queued|Scoring|Scored/);
      await page.waitForSelector('#entry-link', { timeout: 30_000 });
      assert.match((await page.textContent('#state')) ?? '', /Scored/);
      assert.match((await page.textContent('#placed')) ?? '', /Ranked 1 of 1 \(tier 1\), overall \d+\.\d%/, 'the submitter sees the rank among the ranked entries');
      await Promise.all([page.waitForURL(/\/entries\//), page.click('#entry-link')]);
      assert.match((await page.textContent('h1')) ?? '', /RadVLM-7B/);
      assert.match((await page.textContent('dl.card')) ?? '', /Hospital <b>Lab<\/b>/, 'markup in a field is shown as text');

      await page.goto(`${base}/b/demo`);
      const row = page.locator('#leaderboard tbody tr', { hasText: 'RadVLM-7B' });
      assert.equal(await row.count(), 1);
      const cells = await row.locator('td').allTextContents();
      assert.equal(cells[0], '1'); // tier
      assert.equal(cells[1], '1'); // rank
      assert.match(cells[3]!, /^\d+\.\d+ \d+\.\d–\d+\.\d/); // overall with its interval, right after the model
      const header = await page.locator('#leaderboard thead th').allTextContents();
      const cell = (name: RegExp) => cells[header.findIndex((h) => name.test(h))]!;
      assert.match(cell(/^Unparseable/), new RegExp(`^${board.questions.length - 12} of ${board.questions.length}`));
      assert.equal(cell(/^Open weights/), 'yes');
      assert.equal(await row.locator('td.num').first().evaluate((td) => getComputedStyle(td).textAlign), 'right', 'numbers are right-aligned');
      // Sorting by a column puts it in the URL, marks the column (arrow, aria-sort); a second click reverses it.
      await Promise.all([page.waitForURL(`${base}/b/demo?sort=name`), page.click('a[data-sort=name]')]);
      assert.equal(await page.getAttribute('th:has(a[data-sort=name])', 'aria-sort'), 'ascending');
      assert.match((await page.textContent('a[data-sort=name]')) ?? '', /▲/);
      await Promise.all([page.waitForURL(`${base}/b/demo?sort=name&dir=desc`), page.click('a[data-sort=name]')]);
      assert.equal(await page.getAttribute('th:has(a[data-sort=name])', 'aria-sort'), 'descending');
      assert.equal(await page.locator('#leaderboard tbody tr', { hasText: 'RadVLM-7B' }).count(), 1);

      await page.click('text=per category');
      await page.waitForURL(`${base}/b/demo/categories`);
      assert.ok((await page.locator('#categories tbody tr').count()) > 0);
      assert.match((await page.textContent('#categories thead')) ?? '', /RadVLM-7B/);
      await keepScreenshot(page, `board-${dialect}-categories`);
      assert.deepEqual(errors, []);
    });
  });
}
