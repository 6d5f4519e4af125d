/// <reference lib="dom" />
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import type { Page } from 'playwright-core';
import { launchChromium, signUpInBrowser } from './helpers/browser.js';
import { DIALECTS, demoBoard, distinctPredictions, lazyCluster, predictionsJsonl } from './helpers/board.js';

const cluster = lazyCluster();
after(() => cluster.stop());

/** Whether the browser's own validation lets the form be sent (what a person meets before the server does). */
const formValid = (page: Page) => page.$eval('#submit-form', (f) => (f as HTMLFormElement).checkValidity());
const fieldValid = (page: Page, name: string) => page.$eval(`#submit-form [name=${name}]`, (e) => (e as HTMLInputElement).validity.valid);

for (const dialect of DIALECTS) {
  test(`submit form (${dialect}): every field filled is accepted by the browser and stored; each invalid value is named next to its field; by keyboard alone — in Chromium`, { timeout: 180_000 }, async () => {
    const board = await demoBoard(dialect, cluster.get);
    await board.app.listen({ host: '127.0.0.1', port: 0 });
    const base = `http://127.0.0.1:${(board.app.server.address() as AddressInfo).port}`;
    const browser = await launchChromium();
    try {
      // A fixed locale: how a number field reads "7.5" follows it.
      const page = await browser.newPage({ locale: 'en-US' });
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await signUpInBrowser(page, base);
      const file = { name: 'preds.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(predictionsJsonl(board.questions, (q) => q.answer)) };

      /** A fresh form with the file chosen, these fields filled and open weights "yes". */
      const fillForm = async (fields: Record<string, string>) => {
        await page.goto(`${base}/b/demo/submit`);
        await page.setInputFiles('input[name=file]', file);
        for (const [selector, value] of Object.entries(fields)) await page.fill(selector, value);
        await page.check('input[name=openWeights][value=true]');
      };

      // 1. The browser's own checks: the attributes are real attributes, so good values pass and bad ones do not.
      await page.goto(`${base}/b/demo/submit`);
      assert.equal(await page.getAttribute('input[name=name]', 'maxlength'), '120');
      assert.equal(await page.getAttribute('input[name=parametersBillion]', 'step'), 'any');
      await page.fill('input[name=parametersBillion]', '7.5');
      assert.ok(await fieldValid(page, 'parametersBillion'), '7.5 billion parameters is a valid value');
      await page.fill('input[name=date]', '2025-06-01');
      assert.ok(await fieldValid(page, 'date'), 'a typed date is valid');
      await page.fill('input[name=date]', '1/6/2025');
      assert.equal(await fieldValid(page, 'date'), false, 'a date in another form is refused by the browser');
      await page.fill('input[name=parametersBillion]', '-1');
      assert.equal(await fieldValid(page, 'parametersBillion'), false, 'a negative size is refused by the browser');
      await page.fill('input[name=url]', 'not a link');
      assert.equal(await fieldValid(page, 'url'), false, 'a model URL that is not a URL is refused by the browser');
      assert.equal(await formValid(page), false, 'the form is not sent with a missing file and bad values');

      // 2. Every field filled with a good value: sent, stored, shown on the model card.
      await fillForm({
        'input[name=name]': 'RadVLM-7B', 'input[name=organisation]': 'Hospital Lab', 'input[name=url]': 'https://example.org/radvlm', 'input[name=paper]': 'https://arxiv.org/abs/2506.00001',
        'input[name=parametersBillion]': '7.5', 'input[name=date]': '2025-06-01', 'textarea[name=prompt]': 'Answer with one letter.', 'textarea[name=notes]': 'Fine-tuned on CXR reports.',
      });
      assert.ok(await formValid(page), 'every field filled: the browser lets it go');
      await Promise.all([page.waitForURL(/\/submissions\/[0-9a-f-]+$/), page.click('#submit-form button[type=submit]')]);
      await page.waitForSelector('#entry-link', { timeout: 30_000 });
      await Promise.all([page.waitForURL(/\/entries\//), page.click('#entry-link')]);
      const card = (await page.textContent('dl.card')) ?? '';
      for (const shown of ['Hospital Lab', 'https://example.org/radvlm', 'https://arxiv.org/abs/2506.00001', '7.5 billion', '2025-06-01']) assert.ok(card.includes(shown), `the card shows ${shown}`);

      // 3. A value only the server refuses (an ftp link is a URL to the browser): named next to its field, in words;
      //    everything typed is kept, the chosen file is named.
      await fillForm({ 'input[name=name]': 'RadVLM-8B', 'input[name=paper]': 'ftp://example.org/paper.pdf', 'input[name=parametersBillion]': '8', 'input[name=date]': '2025-07-01' });
      await Promise.all([page.waitForLoadState('load'), page.click('#submit-form button[type=submit]')]);
      assert.match((await page.textContent('.problems')) ?? '', /Nothing was stored: the model card has 1 problem\.\s*The paper URL must start with http:\/\/ or https:\/\//);
      assert.equal(await page.getAttribute('input[name=paper]', 'aria-invalid'), 'true');
      assert.match((await page.textContent('#paper-error')) ?? '', /paper URL must start/);
      assert.equal(await page.inputValue('input[name=name]'), 'RadVLM-8B');
      assert.equal(await page.inputValue('input[name=date]'), '2025-07-01');
      assert.equal(await page.inputValue('input[name=parametersBillion]'), '8');
      assert.ok(await page.isChecked('input[name=openWeights][value=true]'), 'the open-weights choice is kept');
      assert.match((await page.textContent('#file-again')) ?? '', /You had chosen preds\.jsonl/);

      // 4. By keyboard alone (the file is picked in the system dialog, which a test cannot drive): Tab moves through
      //    the fields in reading order, the arrow keys choose open weights (from "not said", the default), Enter on the button sends it.
      await page.goto(`${base}/b/demo/submit`);
      await page.setInputFiles('input[name=file]', { ...file, buffer: Buffer.from(distinctPredictions(board.questions, 1)) });
      await page.focus('input[name=file]');
      const typeNext = async (text: string) => {
        await page.keyboard.press('Tab');
        if (text) await page.keyboard.type(text);
      };
      await typeNext('KeyboardVLM');
      await typeNext('Keyboard Lab');
      await typeNext('https://example.org/kb');
      await typeNext('https://example.org/kb-paper');
      await typeNext('13');
      await typeNext('2025-06-01');
      await typeNext('');
      assert.ok(await page.isChecked('input[name=openWeights][value=""]'), 'open weights starts as not said');
      await page.keyboard.press('ArrowUp');
      await page.keyboard.press('ArrowUp');
      await typeNext('Answer with one letter.');
      await typeNext('typed');
      await page.keyboard.press('Tab');
      assert.equal(await page.evaluate(() => document.activeElement?.tagName), 'BUTTON');
      assert.equal(await page.inputValue('input[name=date]'), '2025-06-01');
      assert.ok(await page.isChecked('input[name=openWeights][value=true]'));
      await Promise.all([page.waitForURL(/\/submissions\/[0-9a-f-]+$/), page.keyboard.press('Enter')]);
      assert.deepEqual(errors, []);
    } finally {
      await browser.close();
      await board.close();
    }
  });
}
