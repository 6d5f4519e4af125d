import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { apiUpload, DIALECTS, demoBoard, lazyCluster, predictionsJsonl, signUp, tokenFor, uploadForm } from './helpers/board.js';
import { paramNames, routeFixture } from './helpers/route-fixture.js';
import { openApiDocument } from '../src/server/openapi.js';
import { crawl } from './helpers/crawl.js';
import { casesInReaderOrder, openDemoStudy, readerCookie, readerCsrf } from './helpers/study.js';
import { studyItems } from '../src/store/studies.js';
import { DEMO_DATASET } from '../src/cli/commands/demo-dataset.js';
import { createReviewQueue } from '../src/review/create-queue.js';
import { reviewItems } from '../src/store/reviews.js';
import { reviewAccounts, signIn } from './helpers/review.js';

const cluster = lazyCluster();
after(() => cluster.stop());

/**
 * With a participant's session and token, walk every page reachable by links and every GET route of the API
 * (from the OpenAPI document, parameters filled with real slugs and ids): no response may carry a gold answer
 * or an explanation of the hidden set, or the per-item results kept for tiers.
 */
test('security: a crawler with a participant token finds no hidden label, explanation or per-item result anywhere', async () => {
  const board = await demoBoard('sqlite', cluster.get);
  try {
    const session = await signUp(board.app, 'crawler@lab.org', 'Crawlers');
    const token = await tokenFor(board.app, session);
    // an entry whose per-item results exist server-side (half right, so the string is not trivial)
    const content = predictionsJsonl(board.questions, (q, i) => (i % 2 ? q.answer : 'no idea'));
    const up = await apiUpload(board.app, token, { name: 'p.jsonl', content }, JSON.stringify({ name: 'M' }));
    assert.equal(up.statusCode, 202);
    const entryId = (up.json() as { submission: string }).submission;
    assert.equal((await board.settled(entryId)).state, 'scored');
    const itemResults = (await board.store.db.selectFrom('entries').select('item_results').executeTakeFirstOrThrow()).item_results;
    const explanations = board.questions.map((q) => q.explanation).filter((e): e is string => !!e && e.length > 20);
    assert.ok(explanations.length > 5, 'the demo has explanations to look for');
    const goldPairs = board.questions.map((q) => new RegExp(`"${q.id}"\\s*:\\s*"${q.answer}"`));

    const start = ['/', '/b/demo', '/account', '/submissions', `/submissions/${entryId}`];
    const doc = openApiDocument();
    for (const path of Object.keys(doc.paths)) {
      if (!('get' in (doc.paths as Record<string, object>)[path]!)) continue;
      start.push(path.replace('{slug}', 'demo').replace('{id}', entryId));
    }
    start.push('/api/openapi.json');
    const pages = await crawl(board.app, start, (url): Record<string, string> => (url.startsWith("/api/") ? { authorization: `Bearer ${token}` } : { cookie: session.cookie }));
    const seen = new Set(pages.map((p) => p.url));
    const bodies = pages.map((p) => `${p.url}\n${p.body}`);
    assert.ok(seen.size >= 15, `crawled ${seen.size} URLs`);
    assert.ok([...seen].some((u) => u.startsWith('/entries/')) && seen.has('/b/demo/categories') && seen.has('/api/benchmarks/demo/questions'));
    for (const body of bodies) {
      const url = body.slice(0, body.indexOf('\n'));
      assert.doesNotMatch(body, /correct_answer|"gold"|item_results|itemResults/i, url);
      assert.ok(!body.includes(itemResults), `${url} contains the per-item result string`);
      for (const e of explanations) assert.ok(!body.includes(e) && !body.includes(e.replace(/&/g, '&amp;')), `${url} contains an explanation`);
      for (const pair of goldPairs) assert.doesNotMatch(body, pair, url);
    }
    // the downloadable questions carry exactly the public fields
    const questions = (await board.app.inject({ url: '/api/benchmarks/demo/questions' })).json() as Record<string, Record<string, unknown>>;
    assert.equal(Object.keys(questions).length, board.questions.length);
    for (const record of Object.values(questions)) assert.deepEqual(Object.keys(record).filter((k) => !['question', 'options', 'task_name', 'category', 'subcategory', 'study_id', 'ImagePath', 'ImageViewPosition'].includes(k)), []);
  } finally {
    await board.close();
  }
});

test('security: passwords and session cookies are stored hashed (scrypt, sha256), never in the clear', async () => {
  const board = await demoBoard('sqlite', cluster.get);
  try {
    const session = await signUp(board.app, 'hash@lab.org', 'Hashers', 'a long enough password');
    const user = await board.store.db.selectFrom('users').select('password_hash').executeTakeFirstOrThrow();
    assert.match(user.password_hash, /^scrypt\$32768\$8\$1\$/);
    assert.ok(!user.password_hash.includes('a long enough password'));
    const cookieValue = session.cookie.split('=')[1]!;
    const sessions = await board.store.db.selectFrom('sessions').select('id_hash').execute();
    assert.equal(sessions.length, 1);
    assert.notEqual(sessions[0]!.id_hash, cookieValue);
    assert.match(sessions[0]!.id_hash, /^[0-9a-f]{64}$/);
  } finally {
    await board.close();
  }
});

test('security: admin actions are audited; participants cannot reach admin pages', async () => {
  const board = await demoBoard('sqlite', cluster.get);
  try {
    const session = await signUp(board.app, 'p@lab.org', 'P');
    assert.equal((await board.app.inject({ url: '/admin', headers: { cookie: session.cookie } })).statusCode, 403);
    assert.equal((await board.app.inject({ method: 'POST', url: '/admin/benchmarks/demo/close', headers: { cookie: session.cookie }, payload: { _csrf: session.csrf } })).statusCode, 403);
    await board.store.db.updateTable('users').set({ is_admin: 1 }).execute();
    assert.equal((await board.app.inject({ method: 'POST', url: '/admin/benchmarks/demo/close', headers: { cookie: session.cookie }, payload: { _csrf: session.csrf } })).statusCode, 303);
    // A benchmark that is not there: 404 naming it, not 500 (the fuzzer found it).
    const missing = await board.app.inject({ method: 'POST', url: '/admin/benchmarks/no-such-board/close', headers: { cookie: session.cookie, accept: 'application/json' }, payload: { _csrf: session.csrf } });
    assert.deepEqual([missing.statusCode, missing.json()], [404, { error: 'not-found', message: 'no benchmark "no-such-board"' }]);
    const log = await board.store.db.selectFrom('audit_log').select(['actor', 'action']).orderBy('at').execute();
    assert.deepEqual(log.map((l) => [l.actor, l.action]), [['test', 'benchmark.load'], ['p@lab.org', 'benchmark.close']]);
    const page = await board.app.inject({ url: '/admin', headers: { cookie: session.cookie } });
    assert.match(page.body, /benchmark\.close/);
  } finally {
    await board.close();
  }
});

test('security: a reader crawling an open study sees no gold, no explanation, no other reader\'s answers, and no host page', async () => {
  const board = await demoBoard('sqlite', cluster.get);
  try {
    const { created, tokens } = await openDemoStudy(board.store, 20, 2);
    const id = created.study.id;
    const items = await studyItems(board.store, id);
    const first = await readerCookie(board.app, tokens[0]!);
    const firstCsrf = await readerCsrf(board.app, id, first);
    for (const item of await casesInReaderOrder(board.store, id, tokens[0]!)) {
      const saved = await board.app.inject({ method: 'POST', url: `/read/${id}/api/save`, headers: { cookie: first, 'x-csrf-token': firstCsrf }, payload: { position: item.position, answer: item.gold, confidence: 5, visitId: 'first-reader-visit', elapsedMs: 5 } });
      assert.equal(saved.statusCode, 200, 'the first reader answers every case, in their order');
    }
    const second = await readerCookie(board.app, tokens[1]!);
    const pages = await crawl(board.app, [`/read/${id}`, `/read/${id}/case/1`, `/read/${id}/finish`, `/read/${id}/results`, '/studies', `/studies/${id}`, `/studies/${id}/results`, `/studies/${id}/export/key.jsonl`, `/studies/${id}/results/kappa.svg`], () => ({ cookie: second }));
    assert.ok(pages.some((p) => p.url.includes('/img/') && p.status === 200), 'the crawler fetched the case images');
    for (const p of pages) {
      if (p.url.startsWith('/studies')) assert.ok(p.status === 303 || p.status === 401 || p.status === 403, `${p.url} is for hosts only (got ${p.status})`);
      assert.doesNotMatch(p.body, /correct_answer|"gold"|>Reference</i, p.url);
      for (const item of items) if (item.explanation && item.explanation.length > 20) assert.ok(!p.body.includes(item.explanation), `${p.url} shows an explanation`);
    }
    const finish = pages.find((p) => p.url === `/read/${id}/finish`)!;
    const answerCells = [...finish.body.matchAll(/<tr><td><a[^>]*>\d+<\/a><\/td><td>[^<]*<\/td><td>([^<]*)<\/td>/g)].map((m) => m[1]);
    assert.equal(answerCells.length, 20);
    assert.ok(answerCells.every((a) => a === '—'), 'the second reader sees none of the first reader\'s answers');
  } finally {
    await board.close();
  }
});

test('security: reviewers crawling the review pages see answers and explanations only of the items assigned to them', async () => {
  const board = await demoBoard('sqlite', cluster.get);
  try {
    await reviewAccounts(board.store, ['ana', 'ben']);
    const { queue } = await createReviewQueue(board.store, 'test', { data: DEMO_DATASET, splits: ['test'], title: 'Crawled queue', reviewersPerItem: 1, reviewers: ['ana@lab.org', 'ben@lab.org'] });
    const items = await reviewItems(board.store, queue.id);
    const assigned = await board.store.db.selectFrom('review_assignments').innerJoin('users', 'users.id', 'review_assignments.user_id').select(['position', 'email']).where('queue_id', '=', queue.id).execute();
    const explanation = (position: number) => String((JSON.parse(items[position]!.record_json) as { correct_answer_explanation: string }).correct_answer_explanation);
    for (const email of ['ana@lab.org', 'ben@lab.org']) {
      const session = await signIn(board.app, email);
      const mine = new Set(assigned.filter((a) => a.email === email).map((a) => a.position));
      const others = items.filter((i) => !mine.has(i.position));
      assert.ok(mine.size > 0 && others.length > 0);
      const start = ['/reviews', `/reviews/${queue.id}`, `/reviews/${queue.id}/report`, ...items.map((i) => `/reviews/${queue.id}/items/${i.position + 1}`), `/reviews/${queue.id}/versions/1/export.json`];
      const pages = await crawl(board.app, start, () => ({ cookie: session.cookie }), (url) => url.startsWith('/read/'));
      const seen = pages.map((p) => p.body).join('\n');
      for (const position of mine) assert.ok(seen.includes(explanation(position).slice(0, 30).replaceAll("'", '&#39;')), `${email} sees the explanation of an item of theirs`);
      let checked = 0;
      for (const item of others) {
        const text = explanation(item.position);
        // an explanation quoting the report (or the explanation) of one of the reviewer's own items tells nothing
        if ([...mine].some((p) => explanation(p).includes(text) || (items[p]!.report_text ?? '').includes(text))) continue;
        checked++;
        assert.ok(!seen.includes(text) && !seen.includes(text.replaceAll("'", '&#39;')), `${email} sees nothing of item ${item.position + 1}, not theirs`);
      }
      assert.ok(checked >= 10, `${email}: ${checked} other items' explanations could be looked for`);
      assert.ok(pages.filter((p) => p.url.endsWith('/report') || p.url.includes('/versions/')).every((p) => p.status === 404), 'report and exports are for admins');
    }
  } finally {
    await board.close();
  }
});

/**
 * What each page answers an API token: public pages are shown, a reading link still opens (its token is in the
 * path), a review image is as unknown as to anyone without access, and every other page refuses it (403).
 */
const PUBLIC_PAGES = new Set(['/', '/b/:slug', '/b/:slug/categories', '/entries/:id', '/signup', '/login']);
const pageStatusWithToken = (url: string) => (PUBLIC_PAGES.has(url) ? 200 : url === '/r/:token' ? 303 : url === '/reviews/:queue/img/:sha' ? 404 : 403);

/** The JSON refusal of a request with a NUL byte at `where` (as every route gives it, before any lookup). */
const nulRefusal = (where: string) => ({ error: 'bad-request', message: `${where} holds a NUL byte (\\0), which no name, id or text here may contain; nothing was done` });

for (const dialect of DIALECTS) {
  test(`security (${dialect}): a NUL byte in any path parameter, query, header, cookie or form/JSON field of every route is a 400 naming where`, async () => {
    const board = await demoBoard(dialect, cluster.get);
    try {
      const fixture = await routeFixture(board);
      const admin = fixture.callers.find((c) => c.name === 'admin')!;
      const cases: { method: string; url: string; headers?: Record<string, string>; payload?: string; where: string }[] = [];
      for (const route of fixture.routes) {
        const url = fixture.fill(route.url, (name) => fixture.realParam(route.url, name));
        for (const param of paramNames(route.url)) cases.push({ method: route.method, url: fixture.fill(route.url, (name) => (name === param ? 'x\u0000y' : fixture.realParam(route.url, name))), where: `the path (at :${param})` });
        cases.push({ method: route.method, url: `${url}?next=%00`, where: 'the query parameter "next"' });
        cases.push({ method: route.method, url, headers: { authorization: 'Bearer cxr_\u0000' }, where: 'the header authorization' });
        cases.push({ method: route.method, url, headers: { 'x-csrf-token': '\u0000' }, where: 'the header x-csrf-token' });
        cases.push({ method: route.method, url, headers: { cookie: 'cxr_session=a%00b' }, where: 'the cookie cxr_session' });
        if (route.method === 'GET') continue;
        cases.push({ method: route.method, url, headers: { ...admin.headers, 'content-type': 'application/x-www-form-urlencoded' }, payload: `_csrf=${admin.csrf}&title=a%00b`, where: 'the field "title"' });
        cases.push({ method: route.method, url, headers: { ...admin.headers, 'content-type': 'application/json' }, payload: JSON.stringify({ _csrf: admin.csrf, answer: 'A\u0000' }), where: 'the field "answer"' });
        cases.push({ method: route.method, url, headers: { ...admin.headers, 'content-type': 'application/json' }, payload: JSON.stringify({ _csrf: admin.csrf, 'an\u0000swer': 'A' }), where: 'the field "an\\0swer"' });
        cases.push({ method: route.method, url, headers: { ...admin.headers, 'content-type': 'application/json' }, payload: JSON.stringify('A\u0000'), where: 'the body' });
      }
      assert.ok(fixture.routes.length >= 60 && cases.length > 5 * fixture.routes.length, `${fixture.routes.length} routes, ${cases.length} cases`);
      const got = [];
      for (const c of cases) {
        const res = await board.app.inject({ method: c.method as 'GET', url: c.url, headers: { accept: 'application/json', ...c.headers }, ...(c.payload === undefined ? {} : { payload: c.payload }) });
        got.push({ request: `${c.method} ${c.url} ${JSON.stringify(c.headers ?? {})} ${c.payload ?? ''}`, status: res.statusCode, body: res.json() as unknown });
      }
      assert.deepEqual(got, cases.map((c) => ({ request: `${c.method} ${c.url} ${JSON.stringify(c.headers ?? {})} ${c.payload ?? ''}`, status: 400, body: nulRefusal(c.where) })));
      // What a browser is shown, e.g. for the anonymous /b/%00 the probe found on PostgreSQL.
      const page = await board.app.inject({ url: '/b/%00' });
      assert.equal(page.statusCode, 400);
      assert.ok(page.body.includes('<p class="problems" role="alert">the path (at :slug) holds a NUL byte (\\0), which no name, id or text here may contain; nothing was done</p>'), page.body);
      // Uploads stream past the body parser: their fields and file name are checked as they arrive.
      const token = fixture.callers.find((c) => c.name === 'token')!;
      const content = predictionsJsonl(board.questions, (q) => q.answer);
      const uploads = [
        { form: uploadForm({ name: 'p.jsonl', content }, { model: JSON.stringify({ name: 'M' }).replace('M', 'M\u0000') }), where: 'the field "model"' },
        { form: uploadForm({ name: 'p\u0000.jsonl', content }, { model: JSON.stringify({ name: 'M' }) }), where: 'the file name' },
      ];
      for (const u of uploads) {
        const res = await board.app.inject({ method: 'POST', url: '/api/benchmarks/demo/submissions', headers: token.headers, payload: u.form });
        assert.deepEqual([res.statusCode, res.json()], [400, { error: 'bad-upload', message: `${u.where} holds a NUL byte (\\0), which no name, id or text here may contain; nothing was stored` }]);
      }
    } finally {
      await board.close();
    }
  });

  test(`security (${dialect}): a form field sent twice is a 400 saying which, on every route that takes a form (urlencoded, JSON or multipart)`, async () => {
    const board = await demoBoard(dialect, cluster.get);
    try {
      const fixture = await routeFixture(board);
      const admin = fixture.callers.find((c) => c.name === 'admin')!;
      const forms = fixture.routes.filter((r) => r.method !== 'GET');
      assert.ok(forms.length >= 25, `${forms.length} routes take a body`);
      const got = [];
      for (const route of forms) {
        const url = fixture.fill(route.url, (name) => fixture.realParam(route.url, name));
        const twice = await board.app.inject({ method: route.method as 'POST', url, headers: { ...admin.headers, accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' }, payload: `_csrf=${admin.csrf}&_csrf=${admin.csrf}&title=a&title=b&title=c` });
        const nested = await board.app.inject({ method: route.method as 'POST', url, headers: { ...admin.headers, accept: 'application/json' }, payload: { _csrf: admin.csrf, title: { a: 1 } } });
        const list = await board.app.inject({ method: route.method as 'POST', url, headers: { ...admin.headers, accept: 'application/json', 'content-type': 'application/json' }, payload: '[1]' });
        got.push({ route: `${route.method} ${route.url}`, twice: [twice.statusCode, twice.json()], nested: [nested.statusCode, nested.json()], list: [list.statusCode, list.json()] });
      }
      assert.deepEqual(got, forms.map((route) => ({
        route: `${route.method} ${route.url}`,
        twice: [400, { error: 'bad-request', message: 'the field "_csrf" was sent 2 times; send it once; nothing was done' }],
        nested: [400, { error: 'bad-request', message: 'the field "title" is an object; send it as one value (text or a number); nothing was done' }],
        list: [400, { error: 'bad-request', message: 'the body is a list; send the fields as one form or one JSON object; nothing was done' }],
      })));
      // the admin form the probe found, as a browser sees it
      const page = await board.app.inject({ method: 'POST', url: '/studies', headers: { ...admin.headers, 'content-type': 'application/x-www-form-urlencoded' }, payload: `_csrf=${admin.csrf}&title=a&title=b&benchmark=demo&n=3` });
      assert.equal(page.statusCode, 400);
      assert.ok(page.body.includes('<p class="problems" role="alert">the field &quot;title&quot; was sent 2 times; send it once; nothing was done</p>'), page.body);
      // an upload form (multipart) with a field twice
      const token = fixture.callers.find((c) => c.name === 'token')!;
      const form = uploadForm({ name: 'p.jsonl', content: predictionsJsonl(board.questions, (q) => q.answer) }, { model: JSON.stringify({ name: 'M' }) });
      form.append('model', JSON.stringify({ name: 'N' }));
      const upload = await board.app.inject({ method: 'POST', url: '/api/benchmarks/demo/submissions', headers: token.headers, payload: form });
      assert.deepEqual([upload.statusCode, upload.json()], [400, { error: 'bad-upload', message: 'the field "model" was sent twice; send it once; nothing was stored' }]);
    } finally {
      await board.close();
    }
  });

  test(`security (${dialect}): an API token on a page for signed-in browsers is a 403 saying so; /static/ names of Object's prototype are 404; over-long and badly encoded paths are refused plainly`, async () => {
    const board = await demoBoard(dialect, cluster.get);
    try {
      const fixture = await routeFixture(board);
      const token = fixture.callers.find((c) => c.name === 'token')!;
      const pages = fixture.routes.filter((r) => r.method === 'GET' && !r.url.startsWith('/api/') && !r.url.startsWith('/static/'));
      const got: Record<string, number> = {};
      for (const route of pages) got[route.url] = (await board.app.inject({ url: fixture.fill(route.url, (name) => fixture.realParam(route.url, name)), headers: token.headers })).statusCode;
      const sessionOnly = ['/account', '/admin', '/b/:slug/submit', '/submissions', '/submissions/:id'];
      for (const url of sessionOnly) {
        const path = fixture.fill(url, (name) => fixture.realParam(url, name));
        const res = await board.app.inject({ url: path, headers: token.headers });
        assert.equal(res.statusCode, 403, url);
        assert.ok(res.body.includes(`<p class="problems" role="alert">${path} is a page for a signed-in browser; an API token opens only the API (/api/…, described at /api/openapi.json).</p>`), res.body);
      }
      assert.deepEqual(got, Object.fromEntries(pages.map((r) => [r.url, pageStatusWithToken(r.url)])));
      const statics = ['__proto__', 'constructor', 'hasOwnProperty', 'toString', 'valueOf', '__defineGetter__'];
      const found = await Promise.all(statics.map(async (name) => (await board.app.inject({ url: `/static/${name}` })).statusCode));
      assert.deepEqual(found, statics.map(() => 404));
      // the router's refusals of odd paths, said as every other refusal is (without echoing the path)
      const odd = [
        { url: `/b/${'x'.repeat(101)}`, status: 414, message: 'a part of the path is longer than 100 characters; no name or id here is that long' },
        { url: '/b/%FF', status: 400, message: 'the path is not valid percent-encoding (a % must start a UTF-8 byte such as %C3%A9)' },
      ];
      for (const o of odd) {
        const page = await board.app.inject({ url: o.url });
        assert.equal(page.statusCode, o.status);
        assert.ok(page.body.includes(`<p class="problems" role="alert">${o.message}</p>`), page.body);
        const api = await board.app.inject({ url: o.url.replace('/b/', '/api/entries/') });
        assert.deepEqual([api.statusCode, api.json()], [o.status, { error: 'bad-request', message: o.message }]);
      }
    } finally {
      await board.close();
    }
  });
}
