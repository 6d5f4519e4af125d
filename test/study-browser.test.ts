/// <reference lib="dom" />
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { DEMO_DATASET } from '../src/cli/commands/demo-dataset.js';
import { benchmarkBySlug } from '../src/store/benchmarks.js';
import { addStudyModel, readerAnswers } from '../src/store/study-answers.js';
import { studyReaders } from '../src/store/study-readers.js';
import { listStudies, studyItems, type StudyItem } from '../src/store/studies.js';
import { storeBenchmarkImages } from '../src/study/benchmark-images.js';
import { keepScreenshot, launchChromium, seriousViolations, signUpInBrowser } from './helpers/browser.js';
import { DIALECTS, demoBoard, lazyCluster } from './helpers/board.js';
import { casesInReaderOrder, hostSession, openDemoStudy } from './helpers/study.js';

const cluster = lazyCluster();
after(() => cluster.stop());

/** Presses Tab until the element with `id` has focus (keyboard only, as a person without a mouse would). */
async function tabTo(page: Page, id: string, limit = 80): Promise<void> {
  for (let i = 0; i < limit; i++) {
    if (await page.evaluate((want) => document.activeElement?.id === want, id)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`#${id} never took the focus`);
}

/** Waits until the case page's status line says `pattern` (what was saved, or why not). */
async function statusSays(page: Page, pattern: RegExp): Promise<void> {
  await page.waitForFunction((source) => new RegExp(source).test(document.getElementById('save-status')?.textContent ?? ''), pattern.source);
}

/**
 * Answers the open case with the keyboard: a letter key, then — as the review's reader did on every case — a digit
 * for the confidence. Returns the letter.
 */
async function answerByKeyboard(page: Page, items: StudyItem[], pick: (item: StudyItem) => string, confidence: number | null): Promise<string> {
  const position = Number(await page.getAttribute('#answer-form', 'data-position'));
  const item = items.find((i) => i.position === position)!;
  const letter = pick(item);
  await page.keyboard.press(letter.toLowerCase());
  await statusSays(page, new RegExp(`^Answer ${letter} · saved at `));
  if (confidence !== null) {
    await page.keyboard.press(String(confidence));
    await statusSays(page, new RegExp(`^Answer ${letter}, confidence ${confidence} · saved at `));
  }
  assert.equal(await page.locator('input[name=answer]:checked').getAttribute('value'), letter, 'a digit never changes the answer');
  assert.equal(await page.locator('input[name=confidence]:checked').count(), confidence === null ? 0 : 1);
  return letter;
}

for (const dialect of DIALECTS) {
  test(`reader study in Chromium (${dialect}): host creates and invites; a reader reads 20 cases by keyboard, closes the browser mid-way and resumes; host closes and sees accuracy and the kappa heatmap`, { timeout: 240_000 }, async () => {
    const board = await demoBoard(dialect, cluster.get);
    await storeBenchmarkImages(board.store, (await benchmarkBySlug(board.store, 'demo'))!, DEMO_DATASET, 'test');
    await board.app.listen({ host: '127.0.0.1', port: 0 });
    const base = `http://127.0.0.1:${(board.app.server.address() as AddressInfo).port}`;
    const hostBrowser = await launchChromium();
    let browser: Browser | null = await launchChromium();
    const errors: string[] = [];
    const watch = (page: Page) => {
      page.on('pageerror', (e) => errors.push(e.message));
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
    };
    try {
      // The host: an administrator creates the study from the benchmark in the browser.
      const hostPage = await hostBrowser.newPage();
      watch(hostPage);
      await signUpInBrowser(hostPage, base, { email: 'host@hospital.org', name: 'Host', team: 'Host team' });
      await board.store.db.updateTable('users').set({ is_admin: 1 }).where('email', '=', 'host@hospital.org').execute();
      await hostPage.goto(`${base}/studies`);
      await hostPage.fill('#new-study input[name=title]', 'Residents vs models');
      await hostPage.fill('#new-study input[name=n]', '20');
      await hostPage.fill('#new-study input[name=seed]', '11');
      await Promise.all([hostPage.waitForURL(/\/studies\/[0-9a-f-]+$/), hostPage.click('#new-study button')]);
      const studyId = hostPage.url().split('/').pop()!;
      assert.equal(await hostPage.textContent('#study-state'), 'draft');
      assert.equal(await hostPage.locator('#missing-images').count(), 0, 'every image was stored with the benchmark');
      await Promise.all([hostPage.waitForLoadState('load'), hostPage.click('button:has-text("Open the study for reading")')]);
      assert.equal(await hostPage.textContent('#study-state'), 'open');
      await hostPage.fill('#invite-form input[name=name]', 'Resident A');
      await Promise.all([hostPage.waitForLoadState('load'), hostPage.click('#invite-form button')]);
      const link = (await hostPage.textContent('#new-link'))!;
      assert.match(link, new RegExp(`^${base}/r/cxr_read_`));
      const items = await studyItems(board.store, studyId);
      assert.equal(items.length, 20);
      const sampling = JSON.parse((await listStudies(board.store))[0]!.sampling_json);
      assert.deepEqual([sampling.mode, sampling.n, sampling.seed], ['stratified', 20, 11], 'the sample and its seed are recorded');

      // The reader, first sitting: 12 cases, by keyboard only, then the browser closes.
      let context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
      let page = await context.newPage();
      watch(page);
      await page.goto(link);
      assert.equal(new URL(page.url()).pathname, `/read/${studyId}`, 'the token leaves the address bar');
      await tabTo(page, 'continue');
      await Promise.all([page.waitForURL(/\/case\/1$/), page.keyboard.press('Enter')]);
      await page.waitForSelector('figure.cxr-view[data-ready="true"]', { timeout: 30_000 });
      assert.deepEqual(await seriousViolations(page), [], 'axe-core on the case page');
      await keepScreenshot(page, `study-case-${dialect}`);
      // On a phone the views stack above the question and nothing scrolls sideways.
      await page.setViewportSize({ width: 390, height: 800 });
      await page.waitForTimeout(200);
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 390), 'no sideways scrolling at 390 px');
      await keepScreenshot(page, `study-case-phone-${dialect}`);
      await page.setViewportSize({ width: 1280, height: 720 });
      // Next without an answer goes nowhere.
      await page.keyboard.press('n');
      await page.waitForTimeout(300);
      assert.match(page.url(), /\/case\/1$/);
      const typed = new Map<number, string>();
      const rated = new Map<number, number | null>();
      const pick = (item: StudyItem) => (item.position % 3 === 0 ? 'ABCD'[('ABCD'.indexOf(item.gold) + 1) % 4]! : item.gold);
      for (let k = 1; k <= 12; k++) {
        const confidence = k % 2 === 0 ? 1 + (k % 5) : null;
        const letter = await answerByKeyboard(page, items, pick, confidence);
        typed.set(Number(await page.getAttribute('#answer-form', 'data-position')), letter);
        rated.set(Number(await page.getAttribute('#answer-form', 'data-position')), confidence);
        await Promise.all([page.waitForURL(new RegExp(`/case/${k + 1}$`)), page.keyboard.press(k % 3 === 0 ? 'ArrowRight' : 'n')]);
      }
      // Previous, by keyboard, shows the saved answer.
      await Promise.all([page.waitForURL(/\/case\/12$/), page.keyboard.press('p')]);
      assert.equal(await page.locator('input[name=answer]:checked').getAttribute('value'), typed.get(Number(await page.getAttribute('#answer-form', 'data-position'))));
      await context.close();
      await browser.close();
      browser = null;

      // Second sitting, another browser (another device): the same link resumes at the first unanswered case.
      browser = await launchChromium();
      context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
      page = await context.newPage();
      watch(page);
      await page.goto(link);
      assert.match((await page.textContent('#continue')) ?? '', /Continue with case 13/);
      await tabTo(page, 'continue');
      await Promise.all([page.waitForURL(/\/case\/13$/), page.keyboard.press('Enter')]);
      for (let k = 13; k <= 20; k++) {
        const letter = await answerByKeyboard(page, items, pick, 4);
        typed.set(Number(await page.getAttribute('#answer-form', 'data-position')), letter);
        rated.set(Number(await page.getAttribute('#answer-form', 'data-position')), 4);
        await Promise.all([page.waitForURL(k === 20 ? /\/finish$/ : new RegExp(`/case/${k + 1}$`)), page.keyboard.press('n')]);
      }
      assert.equal(await page.locator('#my-answers tbody tr').count(), 20);
      assert.deepEqual(await seriousViolations(page), [], 'axe-core on the finish page');
      await tabTo(page, 'submit-my-answers');
      await Promise.all([page.waitForURL(new RegExp(`/read/${studyId}$`)), page.keyboard.press('Enter')]);
      assert.match((await page.textContent('.notice[role=status]')) ?? '', /You submitted your answers/);
      const reader = (await studyReaders(board.store, studyId))[0]!;
      const stored = await readerAnswers(board.store, reader.id);
      assert.deepEqual(new Map([...stored].map(([p, a]) => [p, a.answer])), typed, 'every keyboard answer is in the database');
      assert.deepEqual(new Map([...stored].map(([p, a]) => [p, a.confidence])), rated, 'and every confidence typed after it');
      assert.ok(reader.submitted_at);

      // A model on the same items (reads the key for all but every 4th case), then the host closes the study.
      await addStudyModel(board.store, 'test', studyId, 'model-x', Object.fromEntries(items.map((i) => [i.question_id, i.position % 4 === 0 ? 'ABCD'[('ABCD'.indexOf(i.gold) + 2) % 4]! : i.gold])));
      await hostPage.goto(`${base}/studies/${studyId}`);
      // Closing is for good: the button does nothing until the box is ticked (the browser asks), and the server checks it too.
      await hostPage.click('button:has-text("Close the study")');
      assert.equal(await hostPage.textContent('#study-state'), 'open');
      await hostPage.check('#close-form input[name=confirm]');
      await Promise.all([hostPage.waitForLoadState('load'), hostPage.click('button:has-text("Close the study")')]);
      assert.equal(await hostPage.textContent('#study-state'), 'closed');
      await hostPage.goto(`${base}/studies/${studyId}/results`);
      const correct = items.filter((i) => typed.get(i.position) === i.gold).length;
      const row = (await hostPage.locator('#raters tbody tr', { hasText: 'Resident A' }).locator('td').allTextContents());
      assert.match(row[0]!, /Resident A\s*human/);
      assert.equal(row[1], '20 / 20');
      assert.match(row[2]!, new RegExp(`^${((100 * correct) / 20).toFixed(1)}`));
      const heatmap = hostPage.locator('#kappa-heatmap');
      await heatmap.scrollIntoViewIfNeeded();
      assert.ok(await heatmap.evaluate((img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 100), 'the kappa heatmap is drawn');
      assert.deepEqual(await seriousViolations(hostPage), [], 'axe-core on the results page');
      await keepScreenshot(hostPage, `study-results-${dialect}`);
      // The reader now sees the reference.
      await page.goto(`${base}/read/${studyId}/results`);
      assert.match((await page.textContent('#my-score')) ?? '', new RegExp(`You answered ${correct} of 20 correctly`));
      assert.deepEqual(errors, []);
    } finally {
      await browser?.close();
      await hostBrowser.close();
      await board.close();
    }
  });
}

test('two tabs of one reader on one case, in Chromium: the later choice stays; the other tab\'s timer sends only time, never its old choice', { timeout: 120_000 }, async () => {
  const board = await demoBoard('sqlite', cluster.get);
  await board.app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(board.app.server.address() as AddressInfo).port}`;
  const browser = await launchChromium();
  try {
    const { created, tokens } = await openDemoStudy(board.store, 3, 1);
    const context = await browser.newContext();
    const first = await context.newPage();
    await first.goto(`${base}/r/${tokens[0]}`);
    await first.goto(`${base}/read/${created.study.id}/case/1`);
    const second = await context.newPage();
    await second.goto(`${base}/read/${created.study.id}/case/1`);
    const position = Number(await first.getAttribute('#answer-form', 'data-position'));
    await first.bringToFront();
    await first.keyboard.press('a');
    await statusSays(first, /saved at/);
    await second.bringToFront();
    await second.keyboard.press('c');
    await statusSays(second, /saved at/);
    // Both tabs stay open past a timer tick (every 5 s of time on the case).
    await first.bringToFront();
    await new Promise((r) => setTimeout(r, 6500));
    const reader = (await studyReaders(board.store, created.study.id))[0]!;
    assert.equal((await readerAnswers(board.store, reader.id)).get(position)!.answer, 'C', 'the later choice is the answer');
    const events = await board.store.db.selectFrom('study_answer_events').select(['visit_id', 'answer', 'elapsed_ms']).where('reader_id', '=', reader.id).orderBy('at').execute();
    const visits = [...new Set(events.map((e) => e.visit_id))];
    assert.equal(visits.length, 2, 'two tabs, two visits');
    assert.deepEqual(events.filter((e) => e.answer !== null).map((e) => e.answer), ['A', 'C']);
    assert.ok(events.some((e) => e.answer === null && e.elapsed_ms >= 5000), 'a timer save carried time only');
  } finally {
    await browser.close();
    await board.close();
  }
});

for (const dialect of DIALECTS) {
  test(`keyboard in Chromium (${dialect}): letters answer and digits rate — A then 4 saves A with confidence 4; 4 before an answer saves nothing and says so; a changed answer is said aloud; a clicked confidence is saved; all in the export`, { timeout: 120_000 }, async () => {
    const board = await demoBoard(dialect, cluster.get);
    await board.app.listen({ host: '127.0.0.1', port: 0 });
    const base = `http://127.0.0.1:${(board.app.server.address() as AddressInfo).port}`;
    const browser = await launchChromium();
    try {
      const { created, tokens } = await openDemoStudy(board.store, 3, 1);
      const id = created.study.id;
      const order = await casesInReaderOrder(board.store, id, tokens[0]!);
      const reader = (await studyReaders(board.store, id))[0]!;
      const page = await (await browser.newContext({ viewport: { width: 1280, height: 720 } })).newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`${base}/r/${tokens[0]}`);
      const keys = 'Keys: A–D answer · 1–5 set the confidence, once the case has an answer (before that they change nothing) · N or → next · P or ← previous';
      assert.ok((await page.textContent('#keys-help'))!.startsWith(keys), 'the start page says which keys do what');
      await page.goto(`${base}/read/${id}/case/1`);
      assert.ok((await page.textContent('#keys-help'))!.startsWith(keys), 'and so does the case page');
      const saved = async () => new Map([...(await readerAnswers(board.store, reader.id))].map(([p, a]) => [p, [a.answer, a.confidence]]));

      // A digit before any answer changes nothing, and the page says why.
      await page.keyboard.press('4');
      await statusSays(page, /^Choose an answer \(A–D\) first: the confidence \(1–5\) is for an answer\.$/);
      assert.ok(await page.isVisible('#save-status'));
      assert.equal(await page.locator('#answer-form input:checked').count(), 0);
      await page.waitForTimeout(300);
      assert.deepEqual(await saved(), new Map());
      assert.deepEqual(await board.store.db.selectFrom('study_answer_events').select('confidence').where('reader_id', '=', reader.id).where('confidence', 'is not', null).execute(), []);

      // A, then 4: the answer stays A, the confidence is 4.
      await page.keyboard.press('a');
      await statusSays(page, /^Answer A · saved at /);
      await page.keyboard.press('4');
      await statusSays(page, /^Answer A, confidence 4 · saved at /);
      assert.deepEqual(await saved(), new Map([[order[0]!.position, ['A', 4]]]));
      // A letter changes a saved answer only aloud.
      await page.keyboard.press('d');
      await statusSays(page, /^Answer changed from A to D, confidence 4 · saved at /);
      await page.keyboard.press('a');
      await statusSays(page, /^Answer changed from D to A, confidence 4 · saved at /);

      // Case 2 by mouse: a confidence clicked first waits for the answer, then both are saved.
      await Promise.all([page.waitForURL(/\/case\/2$/), page.keyboard.press('n')]);
      await page.click('input[name=confidence][value="2"]');
      await statusSays(page, /^Choose an answer \(A–D\) first/);
      await page.click('input[name=answer][value="C"]');
      await statusSays(page, /^Answer C, confidence 2 · saved at /);
      await page.click('input[name=confidence][value="5"]');
      await statusSays(page, /^Answer C, confidence 5 · saved at /);
      assert.deepEqual(await saved(), new Map([[order[0]!.position, ['A', 4]], [order[1]!.position, ['C', 5]]]));

      // The host's export has each answer with its confidence and the seconds on the case.
      const host = await hostSession(board.app, board.store);
      const rows = (await board.app.inject({ url: `/studies/${id}/export/reader-reader-1.jsonl`, headers: { cookie: host.cookie } })).body.trim().split('\n').map((l) => JSON.parse(l) as { id: string; answer: string | null; confidence: number | null; seconds: number | null });
      const expected = new Map([[order[0]!.question_id, ['A', 4]], [order[1]!.question_id, ['C', 5]], [order[2]!.question_id, [null, null]]]);
      assert.deepEqual(new Map(rows.map((r) => [r.id, [r.answer, r.confidence]])), expected);
      assert.deepEqual(rows.map((r) => [r.id, r.id === order[2]!.question_id ? r.seconds === null : typeof r.seconds === 'number' && r.seconds > 0]), rows.map((r) => [r.id, true]), 'seconds on the cases read; null on the one never opened');
      assert.deepEqual(errors, []);
    } finally {
      await browser.close();
      await board.close();
    }
  });
}
