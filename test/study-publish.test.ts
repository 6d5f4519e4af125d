import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { TASK_SHORT } from '../src/server/views/pages.js';
import { inviteByLink } from '../src/store/study-readers.js';
import { studyById } from '../src/store/studies.js';
import { demoBoard, DIALECTS, lazyCluster, type Board } from './helpers/board.js';
import { benchmarkWithPerfectEntry, casesInReaderOrder, hostSession, readerCookie, readerCsrf } from './helpers/study.js';

const cluster = lazyCluster();
after(() => cluster.stop());

type Host = { cookie: string; csrf: string };

/** Creates a 6-case study of the demo benchmark through the host's form, opens it, and returns its id. */
async function studyFromForm(app: FastifyInstance, host: Host, title: string, publishScores: boolean): Promise<string> {
  const created = await app.inject({ method: 'POST', url: '/studies', headers: { cookie: host.cookie }, payload: { _csrf: host.csrf, title, benchmark: 'demo', n: '6', mode: 'stratified', seed: '2', ...(publishScores ? { publishScores: 'on' } : {}) } });
  assert.equal(created.statusCode, 303, created.body.slice(0, 400));
  const id = String(created.headers.location).split('/').pop()!;
  const opened = await app.inject({ method: 'POST', url: `/studies/${id}/state`, headers: { cookie: host.cookie }, payload: { _csrf: host.csrf, action: 'open' } });
  assert.equal(opened.statusCode, 303, opened.body.slice(0, 400));
  return id;
}

/** Invites "Dr Complete" (answers all 6 cases) and "Dr Partial" (answers 3); returns their cookies. */
async function twoReaders(board: Board, id: string): Promise<{ complete: string; partial: string }> {
  const cookies: string[] = [];
  for (const [name, cases] of [['Dr Complete', 6], ['Dr Partial', 3]] as const) {
    const { token } = await inviteByLink(board.store, 'test', id, name);
    const cookie = await readerCookie(board.app, token);
    const csrf = await readerCsrf(board.app, id, cookie);
    for (const item of (await casesInReaderOrder(board.store, id, token)).slice(0, cases)) {
      const res = await board.app.inject({ method: 'POST', url: `/read/${id}/api/save`, headers: { cookie, 'x-csrf-token': csrf }, payload: { position: item.position, answer: item.gold, confidence: 4, visitId: 'publish-visit', elapsedMs: 10 } });
      assert.equal(res.statusCode, 200, res.body);
    }
    cookies.push(cookie);
  }
  return { complete: cookies[0]!, partial: cookies[1]! };
}

/** The publication notice of a reader's page, as HTML (apostrophes read back from their escapes). */
const notice = (body: string) => /<p class="notice" id="publication">(.*?)<\/p>/.exec(body)?.[1]?.replaceAll('&#39;', "'");
const humanSection = async (app: FastifyInstance) => {
  const body = (await app.inject({ url: '/b/demo' })).body;
  return body.includes('id="human-readers"') ? body.slice(body.indexOf('id="human-readers"')) : null;
};

for (const dialect of DIALECTS) {
  describe(`publishing readers' scores (${dialect})`, { timeout: 240_000 }, () => {
    test('readers are told before they start; closing publishes nothing unless the study allows it and the host ticks the box; then only readers who answered every case', async () => {
      const board = await demoBoard(dialect, cluster.get);
      try {
        await benchmarkWithPerfectEntry(board);
        const host = await hostSession(board.app, board.store);
        const form = (await board.app.inject({ url: '/studies', headers: { cookie: host.cookie } })).body;
        assert.match(form, /<input type="checkbox" name="publishScores"> Readers' scores may be published on the public leaderboard/, 'the choice is on the form, unticked');

        const privateId = await studyFromForm(board.app, host, 'Private study', false);
        const unpublishedId = await studyFromForm(board.app, host, 'Allowed, not published', true);
        const publishedId = await studyFromForm(board.app, host, 'Allowed and published', true);
        assert.deepEqual(await Promise.all([privateId, unpublishedId, publishedId].map(async (id) => (await studyById(board.store, id))!.publish_scores)), [0, 1, 1]);
        const readers = { private: await twoReaders(board, privateId), unpublished: await twoReaders(board, unpublishedId), published: await twoReaders(board, publishedId) };

        // Before they start, on their start page: whether the score may go public, and under which name.
        const { token } = await inviteByLink(board.store, 'test', publishedId, 'Dr New');
        const fresh = await readerCookie(board.app, token);
        const start = (await board.app.inject({ url: `/read/${publishedId}`, headers: { cookie: fresh } })).body;
        assert.match(start, /Start reading/);
        assert.match(notice(start)!, /^Your score may be published: when the study closes, the host may show it on this board's public leaderboard under the name <strong>Dr New<\/strong>, beside the models on the same cases — only if you answered every case\. It would show your accuracy overall, and per task where a task has at least 2 of the study's cases \(here: [^)]+\) — fewer would tell which hidden answers were right\. Your answers case by case are never published\.$/);
        assert.equal(notice((await board.app.inject({ url: `/read/${privateId}`, headers: { cookie: readers.private.complete } })).body), 'Your score will not be published: only the study\'s host sees the results, where you are named <strong>Dr Complete</strong>.');

        // The host's close form offers publishing (unticked) only where readers were told it may happen.
        const closeForm = async (id: string) => /<form[^>]*id="close-form">[\s\S]*?<\/form>/.exec((await board.app.inject({ url: `/studies/${id}`, headers: { cookie: host.cookie } })).body)![0];
        assert.match(await closeForm(publishedId), /<input type="checkbox" name="publish" value="yes" id="publish-now"> Publish readers' scores now on this benchmark's public leaderboard: each reader who answered every case, under the name the Readers table shows, with accuracy overall and per task beside the models on the same cases — no figure on fewer than 2 cases/);
        assert.doesNotMatch(await closeForm(privateId), /name="publish"/);
        const close = (id: string, publish: boolean) => board.app.inject({ method: 'POST', url: `/studies/${id}/state`, headers: { cookie: host.cookie }, payload: { _csrf: host.csrf, action: 'close', confirm: 'yes', ...(publish ? { publish: 'yes' } : {}) } });

        // A study whose readers were told "not published" cannot be published, box or not; it stays open.
        const refused = await close(privateId, true);
        assert.equal(refused.statusCode, 409);
        assert.ok(refused.body.includes('readers&#39; scores cannot be published: the study was created without permission to publish readers&#39; scores, and its readers were told so'), refused.body.slice(0, 800));
        assert.equal((await studyById(board.store, privateId))!.state, 'open');
        assert.equal((await close(privateId, false)).statusCode, 303);
        // Allowed, but closed without the box: nothing public.
        assert.equal((await close(unpublishedId, false)).statusCode, 303);
        assert.equal(await humanSection(board.app), null, 'closing alone publishes nothing');
        assert.deepEqual([(await studyById(board.store, unpublishedId))!.state, (await studyById(board.store, unpublishedId))!.published_at], ['closed', null]);

        // Allowed and the box ticked: the readers who answered every case, and no one else.
        assert.equal((await close(publishedId, true)).statusCode, 303);
        const section = (await humanSection(board.app))!;
        assert.deepEqual([...section.matchAll(/<h3>([^<]+)<\/h3>/g)].map((m) => m[1]), ['Allowed and published']);
        assert.deepEqual([...section.matchAll(/<tr class="reader"><td>([^<]+) </g)].map((m) => m[1]), ['Dr Complete']);
        assert.match(section, /Dr Complete <span class="badge human"[^>]*>human<\/span><\/td><td class="num">6 \/ 6<\/td><td class="num">100\.0/);

        // The host's results mark the incomplete reader; the readers' pages say what became of their score.
        const results = (await board.app.inject({ url: `/studies/${publishedId}/results`, headers: { cookie: host.cookie } })).body;
        assert.match(results, /Dr Partial <span class="badge human"[^>]*>human<\/span> <span class="badge incomplete"[^>]*>incomplete: 3 of 6<\/span><\/td><td class="num">3 \/ 6<\/td>/);
        assert.doesNotMatch(results, /Dr Complete <span class="badge human"[^>]*>human<\/span> <span class="badge incomplete"/);
        const after = async (id: string, cookie: string) => notice((await board.app.inject({ url: `/read/${id}`, headers: { cookie } })).body);
        assert.equal(await after(publishedId, readers.published.complete), 'The host published your score on this board\'s public leaderboard under the name <strong>Dr Complete</strong>.');
        assert.equal(await after(publishedId, readers.published.partial), 'The host published the scores of the readers who answered every case; yours (3 of 6 answered) is not among them.');
        assert.equal(await after(unpublishedId, readers.unpublished.complete), 'Your score was not published: only the study\'s host sees the results, where you are named <strong>Dr Complete</strong>.');
      } finally {
        await board.close();
      }
    });

    test('the start page promises no more than the leaderboard shows: overall, and per task only where a task has the board\'s minimum of cases (its real value, named)', async () => {
      const board = await demoBoard(dialect, cluster.get);
      try {
        await benchmarkWithPerfectEntry(board);
        const host = await hostSession(board.app, board.store);
        const id = await studyFromForm(board.app, host, 'Promise kept', true);
        const { token } = await inviteByLink(board.store, 'test', id, 'Dr Promise');
        const cookie = await readerCookie(board.app, token);
        const promised = notice((await board.app.inject({ url: `/read/${id}`, headers: { cookie } })).body)!;
        const csrf = await readerCsrf(board.app, id, cookie);
        for (const item of await casesInReaderOrder(board.store, id, token)) {
          assert.equal((await board.app.inject({ method: 'POST', url: `/read/${id}/api/save`, headers: { cookie, 'x-csrf-token': csrf }, payload: { position: item.position, answer: item.gold, confidence: null, visitId: 'promise-visit', elapsedMs: 10 } })).statusCode, 200);
        }
        const closed = await board.app.inject({ method: 'POST', url: `/studies/${id}/state`, headers: { cookie: host.cookie }, payload: { _csrf: host.csrf, action: 'close', confirm: 'yes', publish: 'yes' } });
        assert.equal(closed.statusCode, 303);
        // What the leaderboard shows of the reader: the tasks whose cell has a figure, not only its n.
        const section = (await humanSection(board.app))!;
        const tasks = [...section.slice(0, section.indexOf('</thead>')).matchAll(/<th class="num">([^<]+) %<\/th>/g)].map((m) => m[1]!).slice(1);
        const row = /<tr class="reader">([\s\S]*?)<\/tr>/.exec(section)![1]!;
        const cells = [...row.matchAll(/<td class="num">([\s\S]*?)<\/td>/g)].map((m) => m[1]!).slice(2);
        assert.equal(cells.length, tasks.length);
        const shown = tasks.filter((_, k) => !cells[k]!.includes('not shown')).map((short) => Object.keys(TASK_SHORT).find((t) => TASK_SHORT[t] === short)!);
        assert.ok(shown.length > 0 && shown.length < tasks.length, `the study shows some tasks and hides others (${shown.join(', ')} of ${tasks.join(', ')}), else the test tells nothing`);
        assert.equal(promised, `Your score may be published: when the study closes, the host may show it on this board's public leaderboard under the name <strong>Dr Promise</strong>, beside the models on the same cases — only if you answered every case. It would show your accuracy overall, and per task where a task has at least 2 of the study's cases (here: ${shown.join(', ')}) — fewer would tell which hidden answers were right. Your answers case by case are never published.`);
      } finally {
        await board.close();
      }
    });
  });
}
