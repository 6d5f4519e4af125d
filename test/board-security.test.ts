import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { apiUpload, demoBoard, lazyCluster, predictionsJsonl, signUp, tokenFor } from './helpers/board.js';
import { openApiDocument } from '../src/server/openapi.js';

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

    const seen = new Set<string>();
    const queue = ['/', '/b/demo', '/account', '/submissions', `/submissions/${entryId}`];
    const doc = openApiDocument();
    for (const path of Object.keys(doc.paths)) {
      if (!('get' in (doc.paths as Record<string, object>)[path]!)) continue;
      queue.push(path.replace('{slug}', 'demo').replace('{id}', entryId));
    }
    queue.push('/api/openapi.json');
    const bodies: string[] = [];
    while (queue.length > 0) {
      const url = queue.shift()!;
      if (seen.has(url)) continue;
      seen.add(url);
      const res = await board.app.inject({ url, headers: url.startsWith('/api/') ? { authorization: `Bearer ${token}` } : { cookie: session.cookie } });
      assert.ok(res.statusCode < 500, `${url}: ${res.statusCode}`);
      bodies.push(`${url}\n${res.body}`);
      for (const match of res.body.matchAll(/href="(\/[^"#]*)"/g)) {
        const link = match[1]!.replace(/&amp;/g, '&');
        if (!seen.has(link) && !link.startsWith('/static/')) queue.push(link);
      }
    }
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
    const log = await board.store.db.selectFrom('audit_log').select(['actor', 'action']).orderBy('at').execute();
    assert.deepEqual(log.map((l) => [l.actor, l.action]), [['test', 'benchmark.load'], ['p@lab.org', 'benchmark.close']]);
    const page = await board.app.inject({ url: '/admin', headers: { cookie: session.cookie } });
    assert.match(page.body, /benchmark\.close/);
  } finally {
    await board.close();
  }
});
