/// <reference lib="dom" />
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { importReportedRrg } from '../src/board/import-reported-rrg.js';
import { loadRrgBenchmarkFromFile } from '../src/board/load-rrg.js';
import { scoreHere, submitPredictions } from '../src/board/submit.js';
import { createApp } from '../src/server/create-app.js';
import { keepScreenshot, launchChromium, seriousViolations } from './helpers/browser.js';
import { DIALECTS, freshStore, lazyCluster, testQueue } from './helpers/board.js';
import { tempDir } from './helpers/records.js';

const cluster = lazyCluster();
after(() => cluster.stop());

for (const dialect of DIALECTS) {
  test(`report-generation board pages in Chromium (${dialect}): leaderboard and entry at 1280 and 390 px, axe-core clean, nothing scrolls sideways`, { timeout: 120_000 }, async () => {
    const store = await freshStore(dialect, cluster.get);
    const file = join(tempDir(), 'refs.json');
    const refs = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`s${i}`, { section_findings: `Small left pleural effusion number ${i}.`, section_impression: 'None' }]));
    writeFileSync(file, JSON.stringify(refs));
    const benchmark = await loadRrgBenchmarkFromFile(store, 'test', file, 'findings', { slug: 'rrg', title: 'IU X-ray (Findings), synthetic', version: '1', dailyLimit: 5, totalLimit: 10, open: true });
    const content = JSON.stringify(Object.fromEntries(Object.keys(refs).map((id, i) => [id, { model_prediction: i % 2 ? 'Small left pleural effusion.' : 'No acute process.' }])));
    const entry = await submitPredictions(store, scoreHere(store), benchmark, { fileName: 'p.json', content, model: { name: 'A report generator with a long descriptive name', openWeights: true }, teamId: null, userId: null, kind: 'baseline' });
    assert.ok(entry.ok);
    await importReportedRrg(store, 'test', benchmark, join(import.meta.dirname, 'fixtures', 'rexrank-v1', 'published.json'), 'IU-Xray', 'Findings');
    const queue = await testQueue(store);
    const app = createApp({ store, queue }, { log: { level: 'silent' } });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const browser = await launchChromium();
    try {
      for (const width of [1280, 390]) {
        const page = await browser.newPage({ viewport: { width, height: 800 } });
        for (const path of ['/b/rrg', `/entries/${entry.ok ? entry.submission.id : ''}`]) {
          await page.goto(`${base}${path}`);
          assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), `${path} at ${width} px scrolls sideways`);
          assert.deepEqual(await seriousViolations(page), [], `axe-core on ${path} at ${width} px`);
          if (path === '/b/rrg') {
            // What shows without scrolling the table: rank, model and the ranking metric, and the not-ranked group's label whole.
            const inView = (selector: string) => page.locator(selector).first().evaluate((el) => el.getBoundingClientRect().right <= window.innerWidth);
            assert.deepEqual(await page.locator('#leaderboard thead th').evaluateAll((cells) => cells.slice(0, 3).map((c) => [c.textContent, c.getBoundingClientRect().right <= window.innerWidth])), [['#', true], ['Model', true], ['1/RadCliQ-v1', true]], `${width} px`);
            assert.ok(await inView('#not-ranked .group-label'), `the "not ranked" label is in view at ${width} px`);
            assert.equal(await page.locator('#not-ranked .group-label').textContent(), 'Not ranked: 1/RadCliQ-v1 not computed — listed by BLEU-2');
            assert.deepEqual(await page.locator('#leaderboard tbody tr').first().locator('td').evaluateAll((cells) => cells.slice(0, 3).map((c) => c.getBoundingClientRect().right <= window.innerWidth)), [true, true, true]);
          }
          await keepScreenshot(page, `rrg-${dialect}-${width}-${path.split('/')[1]}`);
        }
        await page.close();
      }
      const page = await browser.newPage();
      await page.goto(`${base}/b/rrg`);
      assert.equal(await page.locator('#leaderboard tbody tr.reported').count(), 24);
      // The BLEU-only entry is not #1 above the published models: it is listed last, unranked, and no row has a rank.
      assert.equal(await page.locator('#leaderboard tbody tr').last().getAttribute('data-id'), entry.ok ? entry.submission.id : '');
      assert.equal(await page.locator('#not-ranked tr.baseline td').first().textContent(), '—');
      assert.deepEqual([...new Set(await page.locator('#leaderboard tbody tr:not(.group) td:first-child').allTextContents())], ['—']);
      assert.match((await page.textContent('#ranking-note')) ?? '', /^Ranked by 1\/RadCliQ-v1 .* This board has no scoring service for the model-based metrics, so no entry here has it/);
    } finally {
      await browser.close();
      await app.close();
      await queue.stop(5000);
      await store.close();
    }
  });
}
