import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { apiUpload, demoBoard, lazyCluster, predictionsJsonl, signUp, tokenFor } from './helpers/board.js';
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
