import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { Board } from './board.js';

/** Debian's Chromium (installed by .ci/run when missing); tests never download a browser. */
export const CHROMIUM = process.env.CXRBENCH_CHROMIUM ?? '/usr/bin/chromium';

/** Launches the system Chromium headless with the flags this machine needs (no background networking). */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} not found: install Debian's chromium (apt-get install -y chromium), as .ci/run does`);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/**
 * Serves a board (made by `open`) on a free port and opens a Chromium page on it that collects the page's script
 * errors and console errors; `run` gets the page, the board's address, the board and those errors. Everything is
 * closed afterwards, whatever happened.
 */
export async function inChromium(open: () => Promise<Board>, run: (page: Page, base: string, board: Board, errors: string[]) => Promise<void>): Promise<void> {
  const board = await open();
  await board.app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(board.app.server.address() as AddressInfo).port}`;
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    await run(page, base, board, errors);
  } finally {
    await browser.close();
    await board.close();
  }
}

/** Signs a new participant up (creating a team) through the board's page; ends on the account page. */
export async function signUpInBrowser(page: Page, base: string, who = { email: 'rad@hospital.org', name: 'Rad', team: 'Radiology AI' }): Promise<void> {
  await page.goto(`${base}/signup`);
  await page.fill('input[name=email]', who.email);
  await page.fill('input[name=displayName]', who.name);
  await page.fill('input[name=team]', who.team);
  await page.fill('input[name=password]', 'a strong password');
  await Promise.all([page.waitForURL(`${base}/account`), page.click('#signup-form button')]);
}

/**
 * Where page screenshots are kept for people to look at after a run: `test-artifacts/screenshots/` in the
 * checkout (git-ignored), or CXRBENCH_SCREENSHOT_DIR. Kept on every run, so a CI run always leaves them.
 */
export const SCREENSHOT_DIR = process.env.CXRBENCH_SCREENSHOT_DIR ?? fileURLToPath(new URL('../../test-artifacts/screenshots/', import.meta.url));

/** Saves a full-page screenshot named `<name>.png` (characters outside [a-z0-9-] become `_`). */
export async function keepScreenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name.replace(/[^a-z0-9-]+/gi, '_')}.png`), fullPage: true });
}

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's serious and critical violations on the open page (run through the debugger, so the page's CSP allows it). */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const result = await page.evaluate(async () => (globalThis as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[] }> } }).axe.run());
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
}
