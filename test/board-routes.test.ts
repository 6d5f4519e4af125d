import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { apiUpload, DIALECTS, demoBoard, distinctPredictions, lazyCluster, predictionsJsonl, shownOnce, signUp, tokenFor } from './helpers/board.js';
import { assertMigrated, openStore } from '../src/store/connect.js';
import { CxrError } from '../src/core/errors.js';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './helpers/records.js';

const cluster = lazyCluster();
after(() => cluster.stop());

const MODEL = JSON.stringify({ name: 'Model A', organisation: 'Lab', openWeights: true, parametersBillion: 4 });

for (const dialect of DIALECTS) {
  describe(`board routes on ${dialect}`, () => {
    test('a participant signs up, creates a token, submits by API and is ranked with intervals; only aggregates come back', async () => {
      const board = await demoBoard(dialect, cluster.get);
      try {
        const session = await signUp(board.app, 'ana@lab.org', 'Team Ana');
        const token = await tokenFor(board.app, session);
        assert.match(token, /^cxr_/);
        const stored = await board.store.db.selectFrom('api_tokens').select(['token_hash', 'prefix']).execute();
        assert.equal(stored.length, 1);
        assert.notEqual(stored[0]!.token_hash, token, 'the token is stored hashed');
        // 10 right (answers as letters), then raw text for the rest
        const content = predictionsJsonl(board.questions, (q, i) => (i < 10 ? q.answer : 'I cannot tell from this image.'));
        const res = await apiUpload(board.app, token, { name: 'preds.jsonl', content }, MODEL);
        // Stored and queued at once; a worker scores it.
        assert.equal(res.statusCode, 202, res.body);
        const queued = res.json() as { submission: string; state: string; status: string };
        assert.equal(queued.state, 'queued');
        assert.equal(res.headers.location, `/api/submissions/${queued.submission}`);
        assert.equal((await board.settled(queued.submission)).state, 'scored');
        const statusRes = await board.app.inject({ url: queued.status, headers: { authorization: `Bearer ${token}` } });
        assert.equal(statusRes.statusCode, 200);
        const body = statusRes.json() as { state: string; attempts: number; entry: { rank: number; micro: number; unparseable: number; metrics: { overall: { accuracy: { lo: number; hi: number } } } } };
        assert.deepEqual([body.state, body.attempts], ['scored', 1]);
        assert.equal(body.entry.rank, 1);
        const n = board.questions.length;
        assert.equal(body.entry.micro, 10 / n);
        assert.equal(body.entry.unparseable, n - 10);
        assert.ok(body.entry.metrics.overall.accuracy.lo < 10 / n && body.entry.metrics.overall.accuracy.hi > 10 / n);
        assert.doesNotMatch(statusRes.body, /item_results|"gold"|correct_answer/);
        const id = queued.submission;
        const other = await tokenFor(board.app, await signUp(board.app, 'eve@lab.org', 'Team Eve'));
        assert.equal((await board.app.inject({ url: queued.status, headers: { authorization: `Bearer ${other}` } })).statusCode, 404, 'another team cannot see the submission');
        const one = await board.app.inject({ url: `/api/entries/${id}` });
        assert.deepEqual([one.statusCode, (one.json() as { benchmark: string; rank: number }).benchmark, (one.json() as { rank: number }).rank], [200, 'demo', 1]);
        assert.equal((await board.app.inject({ url: '/api/entries/no-such-entry' })).statusCode, 404);
        const board1 = await board.app.inject({ url: '/api/benchmarks/demo/leaderboard' });
        assert.equal((board1.json() as { entries: unknown[] }).entries.length, 1);
        const page = await board.app.inject({ url: '/b/demo' });
        assert.match(page.body, /Model A/);
        assert.ok(page.body.includes((100 * 10 / n).toFixed(1)), 'the page shows the micro accuracy');
      } finally {
        await board.close();
      }
    });

    test('the token page shows a curl command for each open benchmark that, pasted into a shell, submits (the token only once, never its hash)', async () => {
      const board = await demoBoard(dialect, cluster.get);
      try {
        const address = await board.app.listen({ host: '127.0.0.1', port: 0 });
        const session = await signUp(board.app, 'curl@lab.org', 'Team Curl');
        const created = await shownOnce(board.app, session, '/account/tokens', { name: 'script' }, 'new-token', { host: address.replace('http://', '') });
        const token = created.secret;
        const command = /<pre class="command" id="curl-demo"><code>([^<]+)<\/code><\/pre>/.exec(created.page)?.[1]?.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
        assert.equal(command, `curl -H "Authorization: Bearer ${token}" -F model='{"name": "My model"}' -F file=@rexrank-predictions.json ${address}/api/benchmarks/demo/submissions`);
        // pasted where the predictions file is, as a participant would
        const cwd = tempDir();
        writeFileSync(join(cwd, 'rexrank-predictions.json'), JSON.stringify(Object.fromEntries(board.questions.map((q) => [q.id, { model_prediction: q.answer }]))));
        const sent = await new Promise<string>((resolve, reject) => execFile('sh', ['-c', command!], { cwd }, (error, stdout) => (error ? reject(error) : resolve(stdout))));
        const queued = JSON.parse(sent) as { submission: string; state: string };
        assert.equal(queued.state, 'queued');
        assert.equal((await board.settled(queued.submission)).state, 'scored');
        // afterwards the page shows the command with a variable, never the token or what is stored of it
        const later = await board.app.inject({ url: '/account', headers: { cookie: session.cookie } });
        assert.ok(later.body.includes(`<code>curl -H "Authorization: Bearer $CXR_TOKEN" -F model='{"name": "My model"}' -F file=@rexrank-predictions.json http://localhost:80/api/benchmarks/demo/submissions</code>`), later.body);
        const hash = (await board.store.db.selectFrom('api_tokens').select('token_hash').executeTakeFirstOrThrow()).token_hash;
        assert.ok(!later.body.includes(token) && !later.body.includes(hash) && !created.page.includes(hash));
      } finally {
        await board.close();
      }
    });

    test('an invalid upload lists every problem with counts and first ids, and stores nothing', async () => {
      const board = await demoBoard(dialect, cluster.get);
      try {
        const token = await tokenFor(board.app, await signUp(board.app, 'bo@lab.org', 'Team Bo'));
        const lines = [
          ...board.questions.slice(2).map((q) => JSON.stringify({ id: q.id, prediction: q.answer })), // first two missing
          JSON.stringify({ id: 'not-a-question', prediction: 'A' }),
          JSON.stringify({ id: board.questions[5]!.id, prediction: 'B' }), // duplicate
          JSON.stringify({ id: board.questions[6]!.id.replace(/$/, ''), prediction: 'E' }), // duplicate too
          '{broken',
        ];
        const res = await apiUpload(board.app, token, { name: 'p.jsonl', content: lines.join('\n') }, MODEL);
        assert.equal(res.statusCode, 400);
        const problems = (res.json() as { problems: { code: string; count: number; firstIds: string[] }[] }).problems;
        const byCode = Object.fromEntries(problems.map((p) => [p.code, p]));
        assert.deepEqual(Object.keys(byCode).sort(), ['duplicate-ids', 'missing-ids', 'not-parseable', 'unknown-ids']);
        assert.equal(byCode['missing-ids']!.count, 2);
        assert.deepEqual(byCode['missing-ids']!.firstIds, [board.questions[0]!.id, board.questions[1]!.id]);
        assert.deepEqual(byCode['unknown-ids']!.firstIds, ['not-a-question']);
        assert.equal(byCode['duplicate-ids']!.count, 2);
        const noText = [JSON.stringify({ id: board.questions[0]!.id, prediction: null }), ...board.questions.slice(1).map((q) => JSON.stringify({ id: q.id, prediction: q.answer }))];
        const res3 = await apiUpload(board.app, token, { name: 'p.jsonl', content: noText.join('\n') }, MODEL);
        assert.deepEqual((res3.json() as { problems: { code: string; firstIds: string[] }[] }).problems.map((p) => [p.code, p.firstIds]), [['no-prediction', [board.questions[0]!.id]]], 'an id without text is not also reported missing');
        const invalidLetter = predictionsJsonl(board.questions, (q, i) => (i === 3 ? 'E' : q.answer));
        const res2 = await apiUpload(board.app, token, { name: 'p.jsonl', content: invalidLetter }, MODEL);
        assert.equal(res2.statusCode, 400);
        assert.deepEqual((res2.json() as { problems: { code: string; firstIds: string[] }[] }).problems.map((p) => [p.code, p.firstIds]), [['invalid-letters', [board.questions[3]!.id]]]);
        assert.equal((await board.store.db.selectFrom('submissions').selectAll().execute()).length, 0);
      } finally {
        await board.close();
      }
    });

    test('daily limits hold under concurrent uploads: exactly the limit is accepted', async () => {
      const board = await demoBoard(dialect, cluster.get, {}, { dailyLimit: 2, totalLimit: 10 });
      try {
        const token = await tokenFor(board.app, await signUp(board.app, 'cy@lab.org', 'Team Cy'));
        // Six different files (the same file twice would be refused as a duplicate, not counted).
        const results = await Promise.all(Array.from({ length: 6 }, (_, k) => apiUpload(board.app, token, { name: 'p.jsonl', content: distinctPredictions(board.questions, k) }, MODEL)));
        assert.deepEqual(results.map((r) => r.statusCode).sort(), [202, 202, 429, 429, 429, 429]);
        assert.match(results.find((r) => r.statusCode === 429)!.body, /daily limit/);
        assert.equal((await board.store.db.selectFrom('submissions').selectAll().execute()).length, 2);
      } finally {
        await board.close();
      }
    });

    test('teams: a member makes an invite code (shown once, stored hashed); a teammate joins with it and shares the team\'s limits', async () => {
      const board = await demoBoard(dialect, cluster.get, {}, { dailyLimit: 1, totalLimit: 10 });
      try {
        const first = await signUp(board.app, 'lead@lab.org', 'Team Invite');
        const code = (await shownOnce(board.app, first, '/account/invite', {}, 'invite-code')).secret;
        const stored = await board.store.db.selectFrom('teams').select('invite_hash').executeTakeFirstOrThrow();
        assert.ok(stored.invite_hash && stored.invite_hash !== code);
        const wrong = await board.app.inject({ method: 'POST', url: '/signup', payload: { email: 'x@lab.org', password: 'correct horse battery', invite: 'team_nope' } });
        assert.equal(wrong.statusCode, 400);
        assert.match(wrong.body, /invite code is not valid/);
        const joined = await board.app.inject({ method: 'POST', url: '/signup', payload: { email: 'mate@lab.org', password: 'correct horse battery', invite: code } });
        assert.equal(joined.statusCode, 303);
        const teams = await board.store.db.selectFrom('users').select(['email', 'team_id']).orderBy('email').execute();
        assert.equal(teams[0]!.team_id, teams[1]!.team_id);
        // one submission a day for the team, whoever submits it
        const content = predictionsJsonl(board.questions, (q) => q.answer);
        const t1 = await tokenFor(board.app, first);
        const mateSession = { cookie: String(joined.headers['set-cookie']).split(';')[0]!, csrf: '' };
        mateSession.csrf = /name="_csrf" value="([^"]+)"/.exec((await board.app.inject({ url: '/account', headers: { cookie: mateSession.cookie } })).body)![1]!;
        const t2 = await tokenFor(board.app, mateSession);
        const post = (token: string) => apiUpload(board.app, token, { name: 'p.jsonl', content }, MODEL);
        assert.equal((await post(t1)).statusCode, 202);
        assert.equal((await post(t2)).statusCode, 429);
        assert.notEqual((await shownOnce(board.app, first, '/account/invite', {}, 'invite-code')).secret, code);
        const stale = await board.app.inject({ method: 'POST', url: '/signup', payload: { email: 'late@lab.org', password: 'correct horse battery', invite: code } });
        assert.equal(stale.statusCode, 400, 'a replaced code no longer works');
      } finally {
        await board.close();
      }
    });

    test('the total limit per team holds across days', async () => {
      const board = await demoBoard(dialect, cluster.get, {}, { dailyLimit: 10, totalLimit: 2 });
      try {
        const token = await tokenFor(board.app, await signUp(board.app, 'tl@lab.org', 'Team TL'));
        let k = 0;
        const post = () => apiUpload(board.app, token, { name: 'p.jsonl', content: distinctPredictions(board.questions, k++) }, MODEL);
        assert.equal((await post()).statusCode, 202);
        await board.store.db.updateTable('submissions').set({ day: '2020-01-01' }).execute(); // an earlier day
        assert.equal((await post()).statusCode, 202);
        const third = await post();
        assert.equal(third.statusCode, 429);
        assert.match(third.body, /used all 2 submissions/);
      } finally {
        await board.close();
      }
    });

    test('limits and access: upload size, closed benchmark, revoked token, CSRF, login attempts', async () => {
      const board = await demoBoard(dialect, cluster.get, { maxUploadBytes: 6000, loginAttempts: 3 });
      try {
        const session = await signUp(board.app, 'di@lab.org', 'Team Di');
        const token = await tokenFor(board.app, session);
        const big = predictionsJsonl(board.questions, () => 'x'.repeat(300));
        const tooBig = await apiUpload(board.app, token, { name: 'p.jsonl', content: big }, MODEL);
        assert.equal(tooBig.statusCode, 413);
        assert.match(tooBig.body, /upload limit/);
        // CSRF: a form post without the session's token is refused
        const noCsrf = await board.app.inject({ method: 'POST', url: '/account/tokens', headers: { cookie: session.cookie }, payload: { name: 'x', _csrf: 'forged' } });
        assert.equal(noCsrf.statusCode, 403);
        // revoke the token: the API refuses it afterwards
        const tokens = (await board.app.inject({ url: '/api/tokens', headers: { authorization: `Bearer ${token}` } })).json() as { id: string }[];
        assert.equal((await board.app.inject({ method: 'DELETE', url: `/api/tokens/${tokens[0]!.id}`, headers: { authorization: `Bearer ${token}` } })).statusCode, 204);
        assert.equal((await board.app.inject({ url: '/api/submissions', headers: { authorization: `Bearer ${token}` } })).statusCode, 401);
        // login attempts: the 4th failure within the window is refused before checking the password
        const codes: number[] = [];
        for (let i = 0; i < 4; i++) codes.push((await board.app.inject({ method: 'POST', url: '/login', payload: { email: 'di@lab.org', password: 'wrong password!' } })).statusCode);
        assert.deepEqual(codes, [401, 401, 401, 429]);
        const right = await board.app.inject({ method: 'POST', url: '/login', payload: { email: 'di@lab.org', password: 'correct horse battery' } });
        assert.equal(right.statusCode, 429, 'even the right password waits out the window');
        // closed benchmark
        await board.store.db.updateTable('benchmarks').set({ is_open: 0 }).execute();
        const token2 = await tokenFor(board.app, session, 'second');
        const closed = await apiUpload(board.app, token2, { name: 'p.jsonl', content: predictionsJsonl(board.questions, (q) => q.answer) }, MODEL);
        assert.equal(closed.statusCode, 403);
      } finally {
        await board.close();
      }
    });

    test('uploads per address are rate-limited before anything is read; reported rows are listed as reported, not verified here', async () => {
      const board = await demoBoard(dialect, cluster.get, { uploadsPerWindow: 2 });
      try {
        const token = await tokenFor(board.app, await signUp(board.app, 'rl@lab.org', 'Team RL'));
        const codes: number[] = [];
        for (let i = 0; i < 3; i++) codes.push((await apiUpload(board.app, token, { name: 'p.jsonl', content: '{broken' }, MODEL)).statusCode);
        assert.deepEqual(codes, [400, 400, 429]);
        const { importReported } = await import('../src/board/import-reported.js');
        const { benchmarkBySlug } = await import('../src/store/benchmarks.js');
        assert.equal(await importReported(board.store, 'test', (await benchmarkBySlug(board.store, 'demo'))!), 8);
        assert.equal(await importReported(board.store, 'test', (await benchmarkBySlug(board.store, 'demo'))!), 0, 'importing twice adds nothing');
        const page = await board.app.inject({ url: '/b/demo' });
        assert.equal((page.body.match(/reported, not verified here/g) ?? []).length, 8);
        assert.match(page.body, /MedGemma-4B-it/);
        const api = (await board.app.inject({ url: '/api/benchmarks/demo/leaderboard' })).json() as { entries: { kind: string; tier: number | null; overall: number; unparseable: number; model: { name: string } }[] };
        const llava = api.entries.find((e) => e.model.name === 'LLaVA-1.5-7B')!;
        assert.deepEqual([llava.kind, llava.tier, llava.overall, llava.unparseable], ['reported', null, 0.2661, 971]);
      } finally {
        await board.close();
      }
    });

    test('injection payloads in every text field are stored as text and rendered inert', async () => {
      const board = await demoBoard(dialect, cluster.get);
      try {
        const evil = `<script>alert(1)</script>'); DROP TABLE entries; --"<img src=x onerror=alert(2)>`;
        const session = await signUp(board.app, 'ev@lab.org', `${evil} team`);
        const token = await tokenFor(board.app, session, evil);
        const model = JSON.stringify({ name: evil, organisation: evil, url: 'javascript:alert(3)', prompt: evil, notes: evil });
        const file = { name: `${evil}.jsonl`, content: predictionsJsonl(board.questions, (q) => q.answer) };
        const bad = await apiUpload(board.app, token, file, model);
        assert.equal(bad.statusCode, 400, 'a javascript: URL is refused');
        const ok = await apiUpload(board.app, token, file, JSON.stringify({ name: evil, organisation: evil, prompt: evil, notes: evil }));
        assert.equal(ok.statusCode, 202, ok.body);
        const id = (ok.json() as { submission: string }).submission;
        assert.equal((await board.settled(id)).state, 'scored');
        assert.equal((await board.store.db.selectFrom('entries').selectAll().execute()).length, 1, 'the table is still there');
        for (const url of ['/b/demo', '/b/demo/categories', `/entries/${id}`, '/submissions', `/submissions/${id}`, '/account']) {
          const page = await board.app.inject({ url, headers: { cookie: session.cookie } });
          assert.equal(page.statusCode, 200, url);
          assert.doesNotMatch(page.body, /<script>alert|<img src=x/, url);
          if (url !== '/b/demo/categories') assert.match(page.body, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/, url);
          assert.match(String(page.headers['content-security-policy']), /script-src 'self'/);
        }
      } finally {
        await board.close();
      }
    });
  });
}

test('an unmigrated database is refused with how to fix it', async () => {
  const store = await openStore({ sqliteFile: join(tempDir(), 'fresh.sqlite') });
  try {
    await assert.rejects(assertMigrated(store), (error: unknown) => error instanceof CxrError && /not migrated .*cxrbench db migrate/.test(error.message));
  } finally {
    await store.close();
  }
});

test('an unreachable PostgreSQL is refused with the address and what to check, password hidden', async () => {
  await assert.rejects(openStore({ databaseUrl: 'postgres://u:secret@127.0.0.1:9/x', sqliteFile: '' }), (error: unknown) => error instanceof CxrError && /cannot connect to PostgreSQL at postgres:\/\/u:\*\*\*@127\.0\.0\.1:9\/x/.test(error.message) && !error.message.includes('secret'));
});
