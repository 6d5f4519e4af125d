import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { DEMO_DATASET } from '../src/cli/commands/demo-dataset.js';
import { keepScreenshot, launchChromium } from './helpers/browser.js';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/records.js';

test('HTML report in real Chromium, network blocked: charts render, filters work, images enlarge; screenshot kept', { timeout: 120_000 }, async () => {
  const dir = tempDir();
  for (const m of ['report-oracle', 'text-only']) assert.equal((await runCli(['eval', '--data', DEMO_DATASET, '--model', `baseline:${m}`, '--out', join(dir, m), '--quiet'])).code, 0);
  const reportFile = join(dir, 'report.html');
  const made = await runCli(['report', join(dir, 'report-oracle'), join(dir, 'text-only'), '--out', reportFile]);
  assert.equal(made.code, 0, made.stderr);
  assert.equal(made.stdout.trim(), reportFile);

  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const outside: string[] = [];
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith('file:') || url.startsWith('data:')) return route.continue();
      outside.push(url);
      return route.abort();
    });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(pathToFileURL(reportFile).href);
    assert.deepEqual(outside, [], 'the report must not touch the network');
    assert.deepEqual(errors, []);

    // Charts: inline SVG with bars, and the kappa heatmap's cells.
    assert.ok((await page.locator('#accuracy-chart svg path, #accuracy-chart svg rect').count()) > 5);
    assert.equal(await page.locator('#kappa-heatmap svg').count(), 1);
    assert.match(await page.locator('#kappa-heatmap svg').textContent() ?? '', /1\.00/);
    assert.match(await page.locator('#tasks-0').textContent() ?? '', /Presence Assessment \*/);
    // The comparison: both runs in the summary (Table 2-style), ranked with tiers, the pair's difference.
    assert.equal(await page.locator('#summary-table tbody tr').count(), 2);
    assert.match((await page.locator('#summary-table tbody tr').nth(1).textContent()) ?? '', /text-only/);
    assert.equal(await page.locator('#ranking tbody tr').count(), 2);
    assert.equal(await page.locator('#pairs tbody tr').count(), 1);
    // Per-run tables behind a switch: one run's shown at a time.
    assert.ok(await page.locator('#tasks-0').isVisible());
    assert.equal(await page.locator('#tasks-1').isVisible(), false);
    await page.selectOption('#f-detail', '1');
    assert.ok(await page.locator('#tasks-1').isVisible());
    assert.equal(await page.locator('#tasks-0').isVisible(), false);
    // Full task names in the paper's order (wrapped, never cut), overall on its own panel, every value written.
    const chartText = (await page.locator('#accuracy-chart svg').first().textContent()) ?? '';
    const order = ['Presence', 'Negation', 'Differential', 'Location', 'Geometric'].map((w) => chartText.indexOf(w));
    assert.ok(order.every((p, i) => p >= 0 && (i === 0 || p > order[i - 1]!)), `tasks in the paper's order: ${order.join(',')}`);
    assert.match(chartText, /Distribution/);
    assert.doesNotMatch(chartText, /…/, 'no label is cut');
    assert.doesNotMatch(chartText, /ReXrank overall/, 'overall is not a task');
    assert.equal(await page.locator('#accuracy-chart svg').count(), 2);
    assert.match((await page.locator('#accuracy-chart svg').nth(1).textContent()) ?? '', /ReXrank overall/);
    assert.match(chartText, /0\.0/, 'a 0% bar is labelled, not invisible');
    // Options are lettered once, gold and the model's answer said in words too, and the legend says what the marks mean.
    const firstOptions = (await page.locator('.item .options').first().textContent()) ?? '';
    assert.doesNotMatch(firstOptions, /A\.\s*A\./);
    assert.match(firstOptions, /\(gold/);
    assert.match((await page.textContent('#items-legend')) ?? '', /gold answer is bold.*underlined/s);

    // Filters: status=unparseable shows exactly the unparseable items (counts from the first run's own summary).
    const summary = JSON.parse(readFileSync(join(dir, 'report-oracle', 'summary.json'), 'utf8')) as { overall: { n: number; unparseable: number }; byTask: Record<string, { n: number }> };
    assert.ok(summary.overall.unparseable > 0);
    assert.equal(await page.locator('.item:not(.hidden)').count(), summary.overall.n);
    await page.selectOption('#f-status', 'unparseable');
    assert.equal(await page.locator('.item:not(.hidden)').count(), summary.overall.unparseable);
    assert.equal(await page.locator('#f-count').textContent(), `${summary.overall.unparseable} shown`);
    await page.selectOption('#f-status', '');
    await page.selectOption('#f-task', 'Negation Assessment');
    assert.equal(await page.locator('.item:not(.hidden)').count(), summary.byTask['Negation Assessment']!.n);
    await page.selectOption('#f-task', '');
    // The run switch: the status filter follows the chosen run; "disagree" keeps the questions the runs answer differently.
    await page.selectOption('#f-model', '1');
    await page.selectOption('#f-status', 'correct');
    const correctOfSecond = await page.locator('.item[data-status-1="correct"]').count();
    assert.ok(correctOfSecond > 0 && correctOfSecond !== await page.locator('.item[data-status-0="correct"]').count());
    assert.equal(await page.locator('.item:not(.hidden)').count(), correctOfSecond);
    await page.selectOption('#f-status', '');
    await page.check('#f-disagree');
    const disagreements = await page.locator('.item[data-agree="no"]').count();
    assert.ok(disagreements > 0);
    assert.equal(await page.locator('.item:not(.hidden)').count(), disagreements);
    for (const answers of await page.locator('.item:not(.hidden) .answers').all()) {
      const letters = await answers.locator('tbody tr td:nth-child(2)').allTextContents();
      assert.equal(new Set(letters).size > 1, true, `a shown item has different answers: ${letters.join(',')}`);
    }
    await page.uncheck('#f-disagree');
    await page.selectOption('#f-model', '0');

    // Images enlarge: a click on a thumbnail opens the viewer with a larger image.
    await page.locator('.item .thumb').first().click();
    assert.equal(await page.locator('#viewer').evaluate((d) => (d as unknown as { open: boolean }).open), true);
    const width = await page.locator('#viewer .slot img').evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth);
    assert.ok(width > 128, `enlarged width ${width}`);
    await page.locator('#viewer .close').click();
    assert.equal(await page.locator('#viewer').evaluate((d) => (d as unknown as { open: boolean }).open), false);

    const shot = join(dir, 'report.png');
    await page.screenshot({ path: shot, fullPage: true });
    assert.ok(statSync(shot).size > 50_000, 'a real screenshot of the rendered page');
    // On a phone the page itself never scrolls sideways: wide tables and charts scroll inside their own box.
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      // An element may reach past the screen only inside a box that scrolls sideways and itself fits the screen.
      const wider = await page.evaluate(() => Array.from(document.querySelectorAll('body *')).filter((el) => {
        if (el.getBoundingClientRect().right <= window.innerWidth + 1) return false;
        for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
          if (['auto', 'scroll'].includes(getComputedStyle(a).overflowX)) return a.getBoundingClientRect().right > window.innerWidth + 1;
        }
        return true;
      }).map((el) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}`).slice(0, 8));
      assert.deepEqual(wider, [], `at ${width} px these reach past the screen outside a scroll box`);
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), `the page scrolls sideways at ${width} px`);
      await keepScreenshot(page, `report-two-runs-${width}`);
    }
  } finally {
    await browser.close();
  }
});

test('HTML report of eight runs: every run in the summary, 28 pairs, a full legend; one self-contained file', { timeout: 180_000 }, async () => {
  const dir = tempDir();
  const specs = ['report-oracle', 'text-only', 'prior', 'random', 'random', 'random', 'random', 'random'];
  const dirs: string[] = [];
  for (const [i, m] of specs.entries()) {
    const out = join(dir, `${m}-${i}`);
    assert.equal((await runCli(['eval', '--data', DEMO_DATASET, '--model', `baseline:${m}`, '--seed', String(i + 1), '--out', out, '--quiet'])).code, 0);
    dirs.push(out);
  }
  const reportFile = join(dir, 'report.html');
  const made = await runCli(['report', ...dirs, '--out', reportFile]);
  assert.equal(made.code, 0, made.stderr);
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(pathToFileURL(reportFile).href);
    assert.equal(await page.locator('#summary-table tbody tr').count(), 8);
    assert.equal(await page.locator('#pairs tbody tr').count(), 28);
    assert.equal(await page.locator('#ranking tbody tr').count(), 8);
    assert.match((await page.textContent('h1')) ?? '', /8 runs compared/);
    const legend = (await page.locator('#accuracy-chart svg').first().textContent()) ?? '';
    for (let i = 3; i < 8; i++) assert.ok(legend.includes(`random-${i})`), `the legend names random-${i} in full`);
    assert.equal(await page.locator('#f-model option').count(), 8);
    await keepScreenshot(page, 'report-eight-runs');
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});
