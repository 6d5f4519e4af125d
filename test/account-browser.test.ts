/// <reference lib="dom" />
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, test } from 'node:test';
import type { Page } from 'playwright-core';
import { createUser } from '../src/store/accounts.js';
import { inChromium, keepScreenshot, seriousViolations, signUpInBrowser } from './helpers/browser.js';
import { demoBoard, lazyCluster, type Board } from './helpers/board.js';

const cluster = lazyCluster();
after(() => cluster.stop());

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** A demo board on SQLite in Chromium; the page may log no error but the 400 of a refused form. */
const onDemoBoard = (run: (page: Page, base: string, board: Board) => Promise<void>) => inChromium(() => demoBoard('sqlite', cluster.get), async (page, base, board, errors) => {
  await run(page, base, board);
  assert.deepEqual(errors.filter((e) => !e.includes('the server responded with a status of 400')), []);
});

// Browser journeys on SQLite; the same routes are tested on both dialects in board-accounts.test.ts.
test('account page in Chromium: a new token is shown once, on the account page the form redirects to; reloading it makes no second token and shows it no more; the same for an invite code', { timeout: 120_000 }, async () => {
  await onDemoBoard(async (page, base, board) => {
    await signUpInBrowser(page, base);
    assert.equal(await page.locator('#no-tokens').textContent(), 'No tokens yet.');
    await page.fill('#token-form input[name=name]', 'laptop');
    await Promise.all([page.waitForURL(`${base}/account`), page.click('#token-form button')]);
    const token = (await page.textContent('#new-token')) ?? '';
    assert.match(token, /^cxr_/);
    assert.deepEqual(await board.store.db.selectFrom('api_tokens').select(['name', 'token_hash']).execute(), [{ name: 'laptop', token_hash: sha256(token) }]);
    assert.equal(await page.textContent('#curl-demo'), `curl -H "Authorization: Bearer ${token}" -F model='{"name": "My model"}' -F file=@rexrank-predictions.json ${base}/api/benchmarks/demo/submissions`);
    await keepScreenshot(page, 'account-new-token');
    assert.deepEqual(await seriousViolations(page), []);

    await page.reload();
    assert.equal(page.url(), `${base}/account`);
    assert.deepEqual([await page.locator('#new-token').count(), (await page.content()).includes(token)], [0, false], 'the token is not shown again');
    assert.deepEqual(await page.locator('#tokens tbody td:first-child').allTextContents(), ['laptop'], 'one token: the reload made none');
    assert.equal(await page.textContent('#curl-demo'), `curl -H "Authorization: Bearer $CXR_TOKEN" -F model='{"name": "My model"}' -F file=@rexrank-predictions.json ${base}/api/benchmarks/demo/submissions`);
    assert.equal((await board.store.db.selectFrom('api_tokens').select('id').execute()).length, 1);

    await Promise.all([page.waitForURL(`${base}/account`), page.click('#invite-form button')]);
    const code = (await page.textContent('#invite-code')) ?? '';
    assert.match(code, /^team_/);
    await page.reload();
    assert.equal(await page.locator('#invite-code').count(), 0);
    assert.equal((await board.store.db.selectFrom('teams').select('invite_hash').executeTakeFirstOrThrow()).invite_hash, sha256(code), 'the code shared still works after a reload');
  });
});

test('sign-up in Chromium: the form says first that a team (a new name or an invite code) is needed; each refusal keeps what was typed but the password, and says what to do', { timeout: 120_000 }, async () => {
  await onDemoBoard(async (page, base, board) => {
    await createUser(board.store, { email: 'first@lab.org', password: 'a strong password', displayName: 'First', teamName: 'Taken Team' });
    await page.goto(`${base}/signup`);
    assert.equal((await page.textContent('#signup-needs'))?.replace(/\s+/g, ' '), 'An account here belongs to a team: you need either a name for a new team (you become its first member) or an invite code from a member of an existing team, who makes one on their account page. A team\'s submissions share its limits and are shown on the leaderboards under the team\'s name.');
    assert.deepEqual(await seriousViolations(page), []);

    /** Sends the form with these fields (and the password typed again) and returns the refusal shown, or null. */
    const send = async (fields: Record<string, string>): Promise<string | null> => {
      for (const [name, value] of Object.entries(fields)) await page.fill(`#signup-form input[name=${name}]`, value);
      await page.fill('#signup-form input[name=password]', 'a strong password');
      await Promise.all([page.waitForLoadState('load'), page.click('#signup-form button')]);
      return page.url() === `${base}/signup` ? await page.textContent('.problems') : null;
    };
    const typed = async () => Object.fromEntries(await Promise.all(['email', 'displayName', 'team', 'invite', 'password'].map(async (name) => [name, await page.inputValue(`#signup-form input[name=${name}]`)] as const)));

    assert.equal(await send({ email: 'new@hospital.org', displayName: 'Dr New' }), 'Nothing was created: an account needs a team. Give a name for a new team, or an invite code from a member of an existing team (they make one on their account page).');
    assert.deepEqual(await typed(), { email: 'new@hospital.org', displayName: 'Dr New', team: '', invite: '', password: '' });
    assert.match((await page.textContent('label:has(input[name=password])')) ?? '', /type it again: a refused form never sends a password back/);
    await keepScreenshot(page, 'signup-refused');

    assert.equal(await send({ team: 'Radiology AI', invite: 'team_abc' }), 'Nothing was created: give either a new team name or an invite code, not both. With the code you join that team; with a name you start a new one.');
    assert.deepEqual(await typed(), { email: 'new@hospital.org', displayName: 'Dr New', team: 'Radiology AI', invite: 'team_abc', password: '' });

    assert.equal(await send({ team: '' }), 'Nothing was created: that invite code is not valid (ask a team member for the current one)');
    assert.equal(await send({ team: 'Taken Team', invite: '' }), 'Nothing was created: the team name "Taken Team" is taken: choose another, or ask a member of that team for an invite code to join it');
    assert.deepEqual(await typed(), { email: 'new@hospital.org', displayName: 'Dr New', team: 'Taken Team', invite: '', password: '' });
    assert.equal(await send({ email: 'first@lab.org', team: 'Radiology AI' }), 'Nothing was created: an account for first@lab.org exists already: sign in with it, or use another email');
    assert.deepEqual(await board.store.db.selectFrom('users').select('email').execute(), [{ email: 'first@lab.org' }], 'no refused form made an account');

    assert.equal(await send({ email: 'new@hospital.org' }), null);
    assert.equal(page.url(), `${base}/account`);
    assert.equal(await page.textContent('main > p'), 'new@hospital.org · team Radiology AI');
  });
});
