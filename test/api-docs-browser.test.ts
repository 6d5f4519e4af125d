/// <reference lib="dom" />
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { openApiDocument } from '../src/server/openapi.js';
import { keepScreenshot, launchChromium, seriousViolations } from './helpers/browser.js';
import { demoBoard, lazyCluster } from './helpers/board.js';

const cluster = lazyCluster();
after(() => cluster.stop());

test('API page in Chromium: every operation of /api/openapi.json is listed by the bundled Swagger UI, linked from every board page, no request leaves the board, no CSP violation', { timeout: 120_000 }, async () => {
  const board = await demoBoard('sqlite', cluster.get);
  await board.app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(board.app.server.address() as AddressInfo).port}`;
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error' || /Content Security Policy/i.test(m.text())) problems.push(`console: ${m.text()}`);
    });
    const elsewhere: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(base) && !r.url().startsWith('data:')) elsewhere.push(r.url());
    });

    await page.goto(`${base}/b/demo`);
    await Promise.all([page.waitForURL(`${base}/api/docs`), page.click('footer a[href="/api/docs"]')]);
    await page.waitForSelector('.opblock', { timeout: 30_000 });
    const document = openApiDocument();
    const expected = Object.entries(document.paths).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`)).sort();
    const shown = (await page.locator('.opblock-summary').evaluateAll((blocks) => blocks.map((b) => `${b.querySelector('.opblock-summary-method')?.textContent?.trim()} ${b.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`))).sort();
    assert.deepEqual(shown, expected, 'every operation of the document, and only those');
    assert.equal(await page.locator('.info .title').first().evaluate((t) => t.firstChild?.textContent?.trim()), document.info.title);
    assert.deepEqual(elsewhere, [], 'the page asks nothing of other hosts');
    assert.deepEqual(problems, []);
    // Swagger UI nests its operation's copy button inside the operation's summary control, which axe calls
    // nested-interactive: an open upstream issue (swagger-api/swagger-ui#9576) this page cannot fix from outside.
    assert.deepEqual((await seriousViolations(page)).filter((v) => !v.startsWith('nested-interactive')), []);
    await keepScreenshot(page, 'api-docs-1280');
  } finally {
    await browser.close();
    await board.close();
  }
});
