/// <reference lib="dom" />
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { keepScreenshot, seriousViolations } from './browser.js';
import { PASSWORD } from './review.js';

/**
 * At a 390×844 phone the page must not scroll sideways and axe-core must find nothing serious; keeps a screenshot
 * (`<name>-390`) and goes back to the 1280×720 laptop.
 */
export async function onPhone(page: Page, name: string): Promise<void> {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(300);
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 390, `${name}: ${width} px wide at 390 px (scrolls sideways)`);
  assert.deepEqual(await seriousViolations(page), [], `axe-core on ${name} at 390 px`);
  await keepScreenshot(page, `${name}-390`);
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.waitForTimeout(300);
}

/** The bounding boxes of selectors on the page. */
export async function boxes(page: Page, ...selectors: string[]): Promise<{ top: number; bottom: number; left: number; right: number }[]> {
  return Promise.all(selectors.map(async (selector) => page.locator(selector).first().evaluate((e) => {
    const r = e.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, left: r.left, right: r.right };
  })));
}

/** Signs in through the board's login form (review accounts share one password). */
export async function signInAs(page: Page, base: string, email: string): Promise<void> {
  await page.goto(`${base}/login`);
  await page.fill('#login-form input[name=email]', email);
  await page.fill('#login-form input[name=password]', PASSWORD);
  await Promise.all([page.waitForURL((url) => !url.pathname.startsWith('/login')), page.click('#login-form button')]);
}
