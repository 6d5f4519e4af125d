import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import { after, describe, test } from 'node:test';
import { sql } from 'kysely';
import { createApp } from '../src/server/create-app.js';
import { createUser } from '../src/store/accounts.js';
import type { Store } from '../src/store/connect.js';
import { DIALECTS, demoBoard, lazyCluster, signUp } from './helpers/board.js';

const cluster = lazyCluster();
after(() => cluster.stop());

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Every value of every table of the board's database, as one text: what a copy of the database would give away. */
async function everythingStored(store: Store): Promise<string> {
  const tables = store.dialect === 'sqlite'
    ? await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(store.db)
    : await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(store.db);
  const rows = await Promise.all(tables.rows.map(async ({ name }) => (await sql`select * from ${sql.table(name)}`.execute(store.db)).rows));
  return JSON.stringify(rows);
}

/** A log stream that keeps every line the server writes. */
function keptLog(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

const shownToken = (page: string) => /<code id="new-token">([^<]+)<\/code>/.exec(page)?.[1] ?? null;
const shownInvite = (page: string) => /<code id="invite-code">([^<]+)<\/code>/.exec(page)?.[1] ?? null;

for (const dialect of DIALECTS) {
  describe(`account page on ${dialect}`, () => {
    test('a token and an invite code are made by a POST that redirects (303) to the account page, which shows each once; reloading makes nothing; the plaintext is in no table and no log line', async () => {
      const log = keptLog();
      const board = await demoBoard(dialect, cluster.get, { log: { level: 'debug', stream: log.stream } });
      try {
        const session = await signUp(board.app, 'once@lab.org', 'Team Once');
        const form = (url: string, fields: Record<string, string> = {}) => board.app.inject({ method: 'POST', url, headers: { cookie: session.cookie }, payload: { _csrf: session.csrf, ...fields } });
        const account = async () => (await board.app.inject({ url: '/account', headers: { cookie: session.cookie } }));

        const posted = await form('/account/tokens', { name: 'laptop' });
        assert.deepEqual([posted.statusCode, posted.headers.location, posted.body.includes('cxr_')], [303, '/account', false]);
        const whileWaiting = await everythingStored(board.store);
        const first = await account();
        assert.equal(first.headers['cache-control'], 'no-store');
        const token = shownToken(first.body);
        assert.match(token ?? '', /^cxr_[A-Za-z0-9_-]{43}$/);
        assert.deepEqual(await board.store.db.selectFrom('api_tokens').select(['name', 'token_hash']).execute(), [{ name: 'laptop', token_hash: sha256(token!) }]);
        assert.ok(first.body.includes(`-H "Authorization: Bearer ${token}"`), 'the curl command carries the new token this once');
        const reload = await account();
        assert.deepEqual([shownToken(reload.body), reload.body.includes(token!), reload.body.includes('Bearer $CXR_TOKEN')], [null, false, true], 'a reload shows the token no more');
        assert.equal((await board.store.db.selectFrom('api_tokens').select('id').execute()).length, 1, 'and makes no second token');
        // The token works, as the page says.
        assert.equal((await board.app.inject({ url: '/api/submissions', headers: { authorization: `Bearer ${token}` } })).statusCode, 200);

        const invited = await form('/account/invite');
        assert.deepEqual([invited.statusCode, invited.headers.location, invited.body.includes('team_')], [303, '/account', false]);
        const inviteWaiting = await everythingStored(board.store);
        const withCode = await account();
        const code = shownInvite(withCode.body);
        assert.match(code ?? '', /^team_[A-Za-z0-9_-]{24}$/);
        const hashAfterShown = (await board.store.db.selectFrom('teams').select('invite_hash').executeTakeFirstOrThrow()).invite_hash;
        assert.equal(hashAfterShown, sha256(code!));
        const codeReload = await account();
        assert.equal(shownInvite(codeReload.body), null);
        assert.equal((await board.store.db.selectFrom('teams').select('invite_hash').executeTakeFirstOrThrow()).invite_hash, hashAfterShown, 'a reload does not replace the code just shared');

        for (const [what, stored] of [['while the token waited', whileWaiting], ['while the code waited', inviteWaiting], ['afterwards', await everythingStored(board.store)]] as const) {
          assert.equal(stored.includes(token!), false, `the token is not in the database ${what}`);
          assert.equal(stored.includes(code!), false, `the invite code is not in the database ${what}`);
        }
        assert.ok(log.text().includes('"url":"/account/tokens"'), 'the log was written');
        assert.deepEqual([log.text().includes(token!), log.text().includes(code!)], [false, false], 'nor in a log line');
      } finally {
        await board.close();
      }
    });

    test('a new token is shown to the session that made it (on any replica), not to another session of the same account; an unseen one expires', async () => {
      const board = await demoBoard(dialect, cluster.get);
      try {
        const session = await signUp(board.app, 'two@lab.org', 'Team Two');
        const login = await board.app.inject({ method: 'POST', url: '/login', payload: { email: 'two@lab.org', password: 'correct horse battery' } });
        const other = String(login.headers['set-cookie']).split(';')[0]!;
        const make = (name: string) => board.app.inject({ method: 'POST', url: '/account/tokens', headers: { cookie: session.cookie }, payload: { _csrf: session.csrf, name } });
        const shown = async (cookie: string) => shownToken((await board.app.inject({ url: '/account', headers: { cookie } })).body);

        assert.equal((await make('first')).statusCode, 303);
        assert.equal(await shown(other), null, 'the other session sees no token');
        const first = await shown(session.cookie);
        assert.equal(sha256(first ?? ''), (await board.store.db.selectFrom('api_tokens').select('token_hash').where('name', '=', 'first').executeTakeFirstOrThrow()).token_hash);

        assert.equal((await make('late')).statusCode, 303);
        await board.store.db.updateTable('session_flashes').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).execute();
        assert.equal(await shown(session.cookie), null, 'a token not looked at in time is not shown');
        assert.deepEqual(await board.store.db.selectFrom('session_flashes').selectAll().execute(), [], 'and nothing of it is left');
        const listed = (await board.app.inject({ url: '/account', headers: { cookie: session.cookie } })).body;
        assert.match(listed, /<td>late<\/td>/, 'the token is listed, to be revoked');

        // Another replica of the board (its own process, the same database) shows what this one made.
        const replica = createApp({ store: board.store, queue: board.queue }, { log: { level: 'silent' } });
        try {
          assert.equal((await make('replicated')).statusCode, 303);
          const there = shownToken((await replica.inject({ url: '/account', headers: { cookie: session.cookie } })).body);
          assert.equal(sha256(there ?? ''), (await board.store.db.selectFrom('api_tokens').select('token_hash').where('name', '=', 'replicated').executeTakeFirstOrThrow()).token_hash);
          assert.equal(await shown(session.cookie), null, 'and then this one does not');
        } finally {
          await replica.close();
        }

        assert.equal((await make('signed-out')).statusCode, 303);
        await board.app.inject({ method: 'POST', url: '/logout', headers: { cookie: session.cookie }, payload: { _csrf: session.csrf } });
        assert.deepEqual(await board.store.db.selectFrom('session_flashes').selectAll().execute(), [], 'signing out takes a waiting token with the session');
      } finally {
        await board.close();
      }
    });
  });
}

for (const dialect of DIALECTS) {
  test(`account page on ${dialect}: an account without a team is told it cannot submit, and is offered no submit command or invite`, async () => {
    const board = await demoBoard(dialect, cluster.get);
    try {
      await createUser(board.store, { email: 'solo@lab.org', password: 'correct horse battery', displayName: 'Solo' });
      const login = await board.app.inject({ method: 'POST', url: '/login', payload: { email: 'solo@lab.org', password: 'correct horse battery' } });
      const page = (await board.app.inject({ url: '/account', headers: { cookie: String(login.headers['set-cookie']).split(';')[0]! } })).body;
      assert.deepEqual([/<h1>Account<\/h1><p>([^<]*)<\/p>/.exec(page)?.[1], /<p class="notice" id="no-team">([^<]*)<\/p>/.exec(page)?.[1]], ['solo@lab.org · no team', 'Your account belongs to no team, so it cannot submit to a benchmark (only teams can); reader studies and reviews need no team.']);
      assert.deepEqual([page.includes('id="curl-demo"'), page.includes('id="invite-form"')], [false, false]);
    } finally {
      await board.close();
    }
  });
}
