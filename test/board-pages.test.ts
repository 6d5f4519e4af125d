/// <reference lib="dom" />
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { scoreHere, submitPredictions } from '../src/board/submit.js';
import { benchmarkBySlug } from '../src/store/benchmarks.js';
import { categoriesPage } from '../src/server/views/pages.js';
import { keepScreenshot, launchChromium, seriousViolations, signUpInBrowser } from './helpers/browser.js';
import { DIALECTS, demoBoard, lazyCluster, predictionsJsonl } from './helpers/board.js';

const cluster = lazyCluster();
after(() => cluster.stop());

test('categories page: with nothing to show it says why (no entry yet; no category large enough)', async () => {
  const benchmark = { slug: 'demo', title: 'Demo', version: '1', item_count: 14, is_open: 1, content_sha256: 'x' } as unknown as Parameters<typeof categoriesPage>[0];
  assert.match(categoriesPage(benchmark, []).text, /No scored entry yet/);
  const row = { id: 'e', rank: 1, tier: 1, kind: 'participant', model: { name: 'M', openWeights: false }, metrics: { byCategory: {}, settings: { minPublicCell: 10 } } } as unknown as Parameters<typeof categoriesPage>[1][number];
  const page = categoriesPage(benchmark, [row]).text;
  assert.match(page, /No category of this benchmark has 10 or more questions/);
  assert.doesNotMatch(page, /<table/);
});

for (const dialect of DIALECTS) {
  test(`board pages (${dialect}) at 1280 and 390 px: axe-core finds no serious or critical violation; no page scrolls sideways on a phone (tables scroll in their own box); a baseline's card claims nothing it is not`, { timeout: 120_000 }, async () => {
    const board = await demoBoard(dialect, cluster.get);
    const benchmark = (await benchmarkBySlug(board.store, 'demo'))!;
    const baseline = await submitPredictions(board.store, scoreHere(board.store, { resamples: 200, seed: 0, minPublicCell: 2, strict: false }), benchmark, {
      fileName: 'b.jsonl', content: predictionsJsonl(board.questions, () => 'A'), model: { name: 'always-A with a rather long name that would push a narrow page wide', openWeights: true }, teamId: null, userId: null, kind: 'baseline',
    });
    assert.ok(baseline.ok);
    await board.app.listen({ host: '127.0.0.1', port: 0 });
    const base = `http://127.0.0.1:${(board.app.server.address() as AddressInfo).port}`;
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await signUpInBrowser(page, base);
      const pages = ['/', '/b/demo', '/b/demo?sort=micro&dir=asc', '/b/demo/categories', `/entries/${baseline.submission.id}`, '/b/demo/submit', '/submissions', '/account', '/no/such/page'];
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 900 });
        for (const path of pages) {
          await page.goto(`${base}${path}`);
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
          assert.ok(overflow <= 0, `${path} at ${width} px is ${overflow} px wider than the screen`);
          if (width === 1280) assert.deepEqual(await seriousViolations(page), [], `axe-core on ${path}`);
          await keepScreenshot(page, `board-${dialect}-${width}-${path}`);
        }
      }
      await page.goto(`${base}/entries/${baseline.submission.id}`);
      const card = (await page.textContent('dl.card')) ?? '';
      assert.doesNotMatch(card, /Open weights/, 'a baseline claims no open weights');
      assert.match(card, /a baseline shipped with cxrbench, not a model/);
      assert.match(card, /Submitted\s*\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
      assert.equal(await page.locator('h1 .badge').count(), 1, 'one badge');
      await page.goto(`${base}/b/demo`);
      const row = page.locator('#leaderboard tbody tr', { hasText: 'always-A' });
      const header = await page.locator('#leaderboard thead th').allTextContents();
      assert.equal((await row.locator('td').allTextContents())[header.findIndex((h) => /^Open weights/.test(h))], '—');
    } finally {
      await browser.close();
      await board.close();
    }
  });
}
