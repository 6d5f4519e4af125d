/// <reference lib="dom" />
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { addStudyModel, readerAnswers } from '../src/store/study-answers.js';
import { studyReaders } from '../src/store/study-readers.js';
import { setStudyState, studyItems } from '../src/store/studies.js';
import { keepScreenshot, launchChromium, seriousViolations } from './helpers/browser.js';
import { demoBoard, lazyCluster, type Board } from './helpers/board.js';
import { casesInReaderOrder, hostSession, openDemoStudy, readerWhoAnswered } from './helpers/study.js';

const cluster = lazyCluster();
after(() => cluster.stop());

/** A laptop, and a phone as Chromium emulates one (touch, no hover, the page's own viewport width). */
const LAPTOP = { viewport: { width: 1280, height: 720 } };
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

/** Names as long as a newcomer's: readers with titles, models with their vendor prefix and date. */
const READERS = ['Dr. Alexandra Montgomery-Smith', 'Resident B (year 2)', 'Consultant radiologist C'];
const MODELS = ['Qwen2.5-VL-72B-Instruct', 'openai/gpt-4o-2024-08-06'];

async function listening(board: Board): Promise<string> {
  await board.app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(board.app.server.address() as AddressInfo).port}`;
}

/** A browser context signed in as the host (the session cookie the sign-up form left). */
async function hostContext(browser: Browser, cookie: string, base: string, options: typeof LAPTOP | typeof PHONE): Promise<BrowserContext> {
  const context = await browser.newContext(options);
  const [name, ...value] = cookie.split('=');
  await context.addCookies([{ name: name!, value: value.join('='), url: base }]);
  return context;
}

/**
 * What reaches past the sides of the screen: the page scrolling sideways, or an element beyond the viewport that
 * no scrolling box (overflow auto or scroll) inside the viewport holds.
 */
function beyondViewport(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const found: string[] = [];
    if (document.documentElement.scrollWidth > width) found.push(`the page is ${document.documentElement.scrollWidth} px wide`);
    for (const element of Array.from(document.body.querySelectorAll('*'))) {
      const box = element.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) continue;
      let [left, right] = [box.left, box.right];
      for (let up = element.parentElement; up && up !== document.body; up = up.parentElement) {
        if (!['auto', 'scroll'].includes(getComputedStyle(up).overflowX)) continue;
        const held = up.getBoundingClientRect();
        [left, right] = [Math.max(left, held.left), Math.min(right, held.right)];
      }
      if (left < -0.5 || right > width + 0.5) found.push(`${element.tagName.toLowerCase()}.${String(element.className)} ${Math.round(box.left)}–${Math.round(box.right)} px`);
    }
    return found;
  });
}

/**
 * The kappa section as drawn: each heatmap's shown and natural width; for each heatmap and kappa table, the box
 * that scrolls it sideways (its nearest ancestor with overflow auto or scroll) — its width and the width of what
 * it holds; and the tables' row and column labels cut inside their cells.
 */
function kappaSection(page: Page) {
  return page.evaluate(() => {
    const heatmaps = Array.from(document.querySelectorAll<HTMLImageElement>('img[src*="kappa.svg"]'));
    return {
      heatmaps: heatmaps.map((img) => ({ src: img.getAttribute('src')!, shown: img.width, natural: img.naturalWidth })),
      boxes: [...heatmaps, ...Array.from(document.querySelectorAll('table.kappa'))].map((element) => {
        // (a loop, not a helper: tsx names helpers with a function the page does not have)
        let box: HTMLElement | null = element.parentElement;
        while (box && !['auto', 'scroll'].includes(getComputedStyle(box).overflowX)) box = box.parentElement;
        return { what: element.tagName === 'IMG' ? element.getAttribute('src') : element.querySelector('caption')?.textContent, width: box?.clientWidth ?? null, content: box?.scrollWidth ?? null };
      }),
      cutLabels: Array.from(document.querySelectorAll<HTMLElement>('table.kappa th')).filter((th) => th.scrollWidth > th.clientWidth + 0.5).map((th) => th.textContent),
    };
  });
}

test('the host\'s results in Chromium: the kappa heatmaps and tables, overall and per task, fit a 1280 px screen with every name whole; on a phone each scrolls in its own box, the page never sideways', { timeout: 180_000 }, async () => {
  const board = await demoBoard('sqlite', cluster.get);
  const browser = await launchChromium();
  try {
    const base = await listening(board);
    const { created } = await openDemoStudy(board.store, 20, 0);
    const id = created.study.id;
    const items = await studyItems(board.store, id);
    for (const [k, name] of READERS.entries()) await readerWhoAnswered(board.app, board.store, id, name, items.length, (item) => (item.position % (k + 3) === 0 ? 'A' : item.gold));
    for (const [k, name] of MODELS.entries()) await addStudyModel(board.store, 'test', id, name, Object.fromEntries(items.map((i) => [i.question_id, i.position % (k + 4) === 0 ? 'B' : i.gold])));
    await setStudyState(board.store, 'test', id, 'closed');
    const raters = [...READERS, ...MODELS].sort();
    const host = await hostSession(board.app, board.store);

    for (const [device, options] of [['laptop', LAPTOP], ['phone', PHONE]] as const) {
      const context = await hostContext(browser, host.cookie, base, options);
      const page = await context.newPage();
      await page.goto(`${base}/studies/${id}/results`);
      await page.waitForLoadState('networkidle');
      await keepScreenshot(page, `study-results-kappa-${device}`);
      assert.deepEqual(await beyondViewport(page), [], `${device}: nothing reaches past the screen`);
      const drawn = await kappaSection(page);
      assert.equal(drawn.heatmaps.length, 1 + 5, 'all cases and each of the five tasks');
      // Each heatmap at its own size: a scaled-down one would shrink its labels past reading.
      assert.deepEqual(drawn.heatmaps.map((h) => h.shown), drawn.heatmaps.map((h) => h.natural), `${device}: heatmaps at their own size`);
      assert.deepEqual(drawn.cutLabels, [], `${device}: no table label cut`);
      // At 1280 px nothing needs scrolling; on a phone each heatmap and table scrolls in a box of its own.
      if (device === 'laptop') assert.deepEqual(drawn.boxes.filter((b) => b.content !== null && b.content > b.width!), [], 'at 1280 px every heatmap and table fits');
      else assert.deepEqual(drawn.boxes.filter((b) => b.width === null || b.width > 390), [], 'on a phone each is held by a box no wider than the screen');
      // Every heatmap names every rater whole, on both axes (vega would cut a long name with "…").
      for (const heatmap of drawn.heatmaps) {
        const svg = await (await page.request.get(`${base}${heatmap.src}`)).text();
        const labels = [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]!).filter((t) => !/^(−?\d+\.\d+|—|κ)$/.test(t));
        assert.deepEqual(labels.sort(), [...raters, ...raters].sort(), `${heatmap.src}: labels whole`);
      }
      const tableNames = (await page.locator('table.kappa').first().locator('thead th').allTextContents()).slice(1);
      assert.deepEqual(tableNames.sort(), raters);
      assert.deepEqual(await seriousViolations(page), [], `${device}: axe-core on the results page`);
      await context.close();
    }
  } finally {
    await browser.close();
    await board.close();
  }
});

test('reader hints in Chromium: on a phone the start and case pages say what to tap and speak of no key; tapping answers and rates; a laptop shows the keys', { timeout: 180_000 }, async () => {
  const board = await demoBoard('sqlite', cluster.get);
  const browser = await launchChromium();
  try {
    const base = await listening(board);
    const { created, tokens } = await openDemoStudy(board.store, 3, 2);
    const id = created.study.id;
    const tap = 'Tap an option to answer, then, if you like, a confidence from 1 (a guess) to 5 (certain); each choice is saved at once. Next and Previous move between cases. The buttons above each image zoom, fit, reset, invert and set its window.';
    const shown = (page: Page) => page.evaluate(() => ({
      text: document.querySelector('main')!.innerText,
      keysVisible: Array.from(document.querySelectorAll('kbd, .keys')).some((e) => (e as HTMLElement).offsetParent !== null),
      tapHint: (document.getElementById('tap-help') as HTMLElement | null)?.offsetParent ? document.getElementById('tap-help')!.innerText : null,
      legend: document.querySelector<HTMLElement>('fieldset.confidence legend')?.innerText ?? null,
    }));

    // A phone: no keyboard, so no key is spoken of; the taps are.
    const phone = await (await browser.newContext(PHONE)).newPage();
    await phone.goto(`${base}/r/${tokens[0]}`);
    let page = await shown(phone);
    assert.equal(page.tapHint, tap, 'the start page says what to tap');
    assert.deepEqual([page.keysVisible, /\bkeys?\b/i.test(page.text)], [false, false], page.text);
    await phone.goto(`${base}/read/${id}/case/1`);
    await phone.waitForSelector('figure.cxr-view[data-ready="true"]', { timeout: 30_000 });
    page = await shown(phone);
    assert.deepEqual([page.tapHint, page.legend, page.keysVisible, /\bkeys?\b/i.test(page.text)], [tap, 'Confidence (optional, once you have answered): 1 a guess, 5 certain', false, false], page.text);
    await keepScreenshot(phone, 'study-case-phone-hints');
    // What the hint says works: a tap answers, a tap rates.
    await phone.tap('label.option:has(input[value="C"])');
    await phone.waitForFunction(() => /^Answer C · saved at /.test(document.getElementById('save-status')?.textContent ?? ''));
    await phone.tap('fieldset.confidence label:has(input[value="4"])');
    await phone.waitForFunction(() => /^Answer C, confidence 4 · saved at /.test(document.getElementById('save-status')?.textContent ?? ''));
    const reader = (await studyReaders(board.store, id)).find((r) => r.name === 'Reader 1')!;
    const first = (await casesInReaderOrder(board.store, id, tokens[0]!))[0]!;
    assert.deepEqual([...(await readerAnswers(board.store, reader.id))].map(([p, a]) => [p, a.answer, a.confidence]), [[first.position, 'C', 4]]);

    // A laptop: the keys, and no tap hint.
    const laptop = await (await browser.newContext(LAPTOP)).newPage();
    await laptop.goto(`${base}/r/${tokens[1]}`);
    page = await shown(laptop);
    assert.deepEqual([page.tapHint, page.keysVisible], [null, true]);
    await laptop.goto(`${base}/read/${id}/case/1`);
    page = await shown(laptop);
    assert.deepEqual([page.tapHint, page.legend, page.keysVisible], [null, 'Confidence (optional, once you have answered; keys 1–5): 1 a guess, 5 certain', true]);
  } finally {
    await browser.close();
    await board.close();
  }
});
