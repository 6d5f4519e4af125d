import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { inviteByLink, noteReaderSeen, revokeReader, SEEN_EVERY_MS, studyReaders } from '../src/store/study-readers.js';
import { saveAnswer } from '../src/store/study-answers.js';
import { setStudySettings, setStudyState, studyById, studyItems } from '../src/store/studies.js';
import { demoBoard, DIALECTS, lazyCluster, type Board } from './helpers/board.js';
import { casesInReaderOrder, hostSession, openDemoStudy, readerCookie, readerCsrf, readerWhoAnswered } from './helpers/study.js';

const cluster = lazyCluster();
after(() => cluster.stop());

/** The rows of the table with `id` (or the first table after `from` in the page), each a list of cell texts. */
function tableRows(body: string, from: string): string[][] {
  const start = body.indexOf(from);
  assert.ok(start >= 0, `the page has ${from}`);
  const table = body.slice(start, body.indexOf('</table>', start));
  const tbody = table.slice(table.indexOf('<tbody>'));
  return [...tbody.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)].map((row) => [...row[1]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((cell) => cell[1]!.replace(/<[^>]+>/g, '').replace(/\s+/g, ' ').trim()));
}

const utc = (at: string) => `${at.slice(0, 16).replace('T', ' ')} UTC`;

/** The reader's start page: its "where you stand" notice (null when the page has none) and what it invites to do. */
async function startPage(board: Board, id: string, cookie: string) {
  const body = (await board.app.inject({ url: `/read/${id}`, headers: { cookie } })).body;
  return {
    state: /<p class="notice" role="status" id="reading-state">([\s\S]*?)<\/p>/.exec(body)?.[1] ?? null,
    invites: ['You will read', 'id="continue"', 'id="keys-help"', 'id="tap-help"'].filter((s) => body.includes(s)),
    links: [...body.matchAll(/<a href="(\/read\/[^"]+)" id="([^"]+)">([^<]+)<\/a>/g)].map((m) => `${m[2]}: ${m[3]} → ${m[1]!.slice(`/read/${id}`.length)}`),
  };
}

for (const dialect of DIALECTS) {
  describe(`where each reader stands (${dialect})`, { timeout: 240_000 }, () => {
    test('the host\'s readers table: a status per reader (not opened, opened, reading, all answered, submitted, revoked); last seen is any page opened, apart from submitting', async () => {
      const board = await demoBoard(dialect, cluster.get);
      try {
        const { created } = await openDemoStudy(board.store, 4, 0);
        const id = created.study.id;
        const right = (item: { gold: string }) => item.gold;
        await inviteByLink(board.store, 'test', id, 'Never opened');
        const opened = await inviteByLink(board.store, 'test', id, 'Opened only');
        assert.equal((await board.app.inject({ url: `/read/${id}`, headers: { cookie: await readerCookie(board.app, opened.token) } })).statusCode, 200);
        await readerWhoAnswered(board.app, board.store, id, 'Part-way', 2, right);
        await readerWhoAnswered(board.app, board.store, id, 'All answered', 4, right);
        const done = await readerWhoAnswered(board.app, board.store, id, 'Submitted', 4, right);
        const submit = await board.app.inject({ method: 'POST', url: `/read/${id}/submit`, headers: { cookie: done.cookie }, payload: { _csrf: await readerCsrf(board.app, id, done.cookie) } });
        assert.equal(submit.statusCode, 303, submit.body.slice(0, 300));
        const gone = await inviteByLink(board.store, 'test', id, 'Revoked');
        await revokeReader(board.store, 'test', id, gone.reader.id);

        const host = await hostSession(board.app, board.store);
        const rows = tableRows((await board.app.inject({ url: `/studies/${id}`, headers: { cookie: host.cookie } })).body, 'id="readers"');
        const stored = new Map((await studyReaders(board.store, id)).map((r) => [r.name, r]));
        const seen = (name: string) => utc(stored.get(name)!.last_seen_at!);
        assert.deepEqual(rows, [
          ['Never opened', 'link', 'not opened yet', '0 / 4', '—', 'never', 'Revoke'],
          ['Opened only', 'link', 'opened, no answer yet', '0 / 4', '—', seen('Opened only'), 'Revoke'],
          ['Part-way', 'link', 'reading, not finished', '2 / 4', '—', seen('Part-way'), 'Revoke'],
          ['All answered', 'link', 'every case answered, not submitted', '4 / 4', '—', seen('All answered'), 'Revoke'],
          ['Submitted', 'link', 'submitted', '4 / 4', utc(stored.get('Submitted')!.submitted_at!), seen('Submitted'), 'Revoke'],
          ['Revoked', 'link', 'revoked', '0 / 4', '—', 'never', 'revoked'],
        ]);
      } finally {
        await board.close();
      }
    });

    test('a reader\'s page views move last seen at most once a minute; a save moves it at once', async () => {
      const board = await demoBoard(dialect, cluster.get);
      try {
        const { created } = await openDemoStudy(board.store, 2, 1);
        const lastSeen = async () => (await studyReaders(board.store, created.study.id))[0]!.last_seen_at;
        const reader = () => studyReaders(board.store, created.study.id).then((r) => r[0]!);
        const t0 = new Date('2030-01-01T10:00:00.000Z');
        assert.equal(await lastSeen(), null);
        await noteReaderSeen(board.store, await reader(), t0);
        await noteReaderSeen(board.store, await reader(), new Date(t0.getTime() + SEEN_EVERY_MS - 1));
        assert.equal(await lastSeen(), t0.toISOString(), 'within the minute: no write');
        const later = new Date(t0.getTime() + SEEN_EVERY_MS);
        await noteReaderSeen(board.store, await reader(), later);
        assert.equal(await lastSeen(), later.toISOString(), 'a minute on: noted');
        const item = (await studyItems(board.store, created.study.id))[0]!;
        await saveAnswer(board.store, await reader(), { position: item.position, answer: 'A', confidence: null, visitId: 'seen-visit-1', elapsedMs: 10, clientAt: null });
        const saved = await board.store.db.selectFrom('study_answer_events').select('at').executeTakeFirstOrThrow();
        assert.equal(await lastSeen(), saved.at, 'a save notes its own time, whatever the page views said');
      } finally {
        await board.close();
      }
    });

    test('the host\'s per-reader answers: rows in the reader\'s own order, numbered as the reader saw the cases', async () => {
      const board = await demoBoard(dialect, cluster.get);
      try {
        const { created } = await openDemoStudy(board.store, 6, 0);
        const id = created.study.id;
        const pick = (item: { position: number; gold: string }) => (item.position % 2 ? item.gold : 'ABCD'[('ABCD'.indexOf(item.gold) + 1) % 4]!);
        const { token } = await readerWhoAnswered(board.app, board.store, id, 'Dr Order', 6, pick);
        const order = await casesInReaderOrder(board.store, id, token);
        assert.notDeepEqual(order.map((i) => i.position), [...order.keys()], 'the reader\'s order is not the study\'s (else the test shows nothing)');
        const host = await hostSession(board.app, board.store);
        const rows = tableRows((await board.app.inject({ url: `/studies/${id}/results`, headers: { cookie: host.cookie } })).body, '<summary>Dr Order</summary>');
        assert.deepEqual(rows, order.map((item, k) => [String(k + 1), item.question_id, item.task, pick(item), item.gold, '3', '1.0']));
      } finally {
        await board.close();
      }
    });

    test('the start page once reading is over: after submitting it says so (locked, or changes allowed) and after closing that answers are final — never "start" or "continue"', async () => {
      const board = await demoBoard(dialect, cluster.get);
      try {
        const { created } = await openDemoStudy(board.store, 4, 0);
        const id = created.study.id;
        const right = (item: { gold: string }) => item.gold;
        const fresh = await readerWhoAnswered(board.app, board.store, id, 'Fresh', 0, right);
        const partial = await readerWhoAnswered(board.app, board.store, id, 'Partial', 2, right);
        const done = await readerWhoAnswered(board.app, board.store, id, 'Done', 4, right);
        const before = await startPage(board, id, fresh.cookie);
        assert.deepEqual(before, { state: null, invites: ['You will read', 'id="continue"', 'id="keys-help"', 'id="tap-help"'], links: [] });

        assert.equal((await board.app.inject({ method: 'POST', url: `/read/${id}/submit`, headers: { cookie: done.cookie }, payload: { _csrf: await readerCsrf(board.app, id, done.cookie) } })).statusCode, 303);
        const submittedAt = utc((await studyReaders(board.store, id)).find((r) => r.name === 'Done')!.submitted_at!);
        assert.deepEqual(await startPage(board, id, done.cookie), {
          state: `You submitted your answers on ${submittedAt}. Thank you. They are locked. You see your score and the reference answers here when the host closes the study.`,
          invites: [], links: ['my-answers-link: Your answers → /finish'],
        });
        await setStudySettings(board.store, 'test', id, { allowEdits: true, invitesExpireAt: null });
        assert.deepEqual(await startPage(board, id, done.cookie), {
          state: `You submitted your answers on ${submittedAt}. Thank you. The host allows changes until the study closes. You see your score and the reference answers here when the host closes the study.`,
          invites: [], links: ['my-answers-link: Your answers (change them) → /finish'],
        });

        await setStudyState(board.store, 'test', id, 'closed');
        const closedAt = utc((await studyById(board.store, id))!.closed_at!);
        const closed = (yours: string) => ({ state: `The host closed the study on ${closedAt}: your answers are final. ${yours}`, invites: [], links: ['my-results: See your score and the reference answers → /results'] });
        assert.deepEqual(await startPage(board, id, done.cookie), closed(`You submitted your answers on ${submittedAt}.`));
        assert.deepEqual(await startPage(board, id, partial.cookie), closed('You answered 2 of 4 cases without submitting them; they count as they are.'));
        assert.deepEqual(await startPage(board, id, fresh.cookie), closed('You did not answer any case.'));
      } finally {
        await board.close();
      }
    });
  });
}
