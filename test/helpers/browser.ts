import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

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

/** Signs a new participant up (creating a team) through the board's page; ends on the account page. */
export async function signUpInBrowser(page: Page, base: string, who = { email: 'rad@hospital.org', name: 'Rad', team: 'Radiology AI' }): Promise<void> {
  await page.goto(`${base}/signup`);
  await page.fill('input[name=email]', who.email);
  await page.fill('input[name=displayName]', who.name);
  await page.fill('input[name=team]', who.team);
  await page.fill('input[name=password]', 'a strong password');
  await Promise.all([page.waitForURL(`${base}/account`), page.click('#signup-form button')]);
}
