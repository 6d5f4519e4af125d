import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { escapeHtml } from '../src/server/views/html.js';
import { readerAnswers } from '../src/store/study-answers.js';
import { studyReaders } from '../src/store/study-readers.js';
import { setStudyState, type StudyItem } from '../src/store/studies.js';
import { demoBoard, DIALECTS, lazyCluster } from './helpers/board.js';
import { casesInReaderOrder, hostSession, openDemoStudy, readerCookie, readerCsrf } from './helpers/study.js';

const cluster = lazyCluster();
after(() => cluster.stop());

/** "B. <the option's text>", as the reader's pages show a chosen letter (HTML-escaped, as on the page). */
const withText = (item: StudyItem, letter: string) => `${letter}. ${escapeHtml((JSON.parse(item.options_json) as string[])['ABCD'.indexOf(letter)]!)}`;

for (const dialect of DIALECTS) {
  describe(`reader input (${dialect})`, { timeout: 240_000 }, () => {
    test('reading order holds on saving: the case form and the autosave refuse a case the reader may not open yet (409), and store nothing of it', async () => {
      const board = await demoBoard(dialect, cluster.get);
      try {
        const { created, tokens } = await openDemoStudy(board.store, 5, 1);
        const id = created.study.id;
        const cookie = await readerCookie(board.app, tokens[0]!);
        const csrf = await readerCsrf(board.app, id, cookie);
        const order = await casesInReaderOrder(board.store, id, tokens[0]!);
        const reader = (await studyReaders(board.store, id))[0]!;
        const autosave = (k: number, answer: string | null) => board.app.inject({ method: 'POST', url: `/read/${id}/api/save`, headers: { cookie, 'x-csrf-token': csrf }, payload: { position: order[k - 1]!.position, answer, confidence: 3, visitId: 'order-visit-1', elapsedMs: 100 } });
        const form = (k: number, answer: string) => board.app.inject({ method: 'POST', url: `/read/${id}/case/${k}`, headers: { cookie }, payload: { _csrf: csrf, go: 'next', answer, confidence: '3', visit: 'order-visit-2', elapsed: '100' } });
        const refusal = (k: number, next: number) => `Not saved: case ${k} opens once every case before it has an answer; case ${next} is next.`;

        const ahead = await autosave(3, 'A');
        assert.deepEqual([ahead.statusCode, ahead.json()], [409, { error: 'not-yet-open', message: refusal(3, 1) }]);
        const aheadForm = await form(3, 'A');
        assert.equal(aheadForm.statusCode, 409);
        assert.ok(aheadForm.body.includes(`<p class="problems" role="alert">${refusal(3, 1)}</p>`), aheadForm.body.slice(0, 600));
        const timeOnly = await autosave(2, null);
        assert.deepEqual([timeOnly.statusCode, timeOnly.json().error], [409, 'not-yet-open'], 'not even the time on a case the reader cannot open');
        assert.deepEqual(await board.store.db.selectFrom('study_answer_events').select('position').where('reader_id', '=', reader.id).execute(), [], 'no save of any kind was stored');

        // In order it goes: case 1 by the form, case 2 by the autosave; case 4 is still ahead (case 3 is next).
        const first = await form(1, 'B');
        assert.deepEqual([first.statusCode, first.headers.location], [303, `/read/${id}/case/2`]);
        assert.equal((await autosave(2, 'C')).statusCode, 200);
        const skip = await autosave(4, 'D');
        assert.deepEqual([skip.statusCode, skip.json().message], [409, refusal(4, 3)]);
        assert.equal((await form(4, 'D')).statusCode, 409);
        // Going back to an answered case is reading in order too.
        assert.equal((await autosave(1, 'A')).statusCode, 200);
        const stored = await readerAnswers(board.store, reader.id);
        assert.deepEqual(new Map([...stored].map(([position, a]) => [position, a.answer])), new Map([[order[0]!.position, 'A'], [order[1]!.position, 'C']]));
      } finally {
        await board.close();
      }
    });

    test('confidence from the form (no JavaScript) and from the autosave is stored and shown: host results, the reader\'s finish and results pages (with the options\' text), every export row {id, answer, confidence, seconds}', async () => {
      const board = await demoBoard(dialect, cluster.get);
      try {
        const { created, tokens } = await openDemoStudy(board.store, 3, 1);
        const id = created.study.id;
        const cookie = await readerCookie(board.app, tokens[0]!);
        const csrf = await readerCsrf(board.app, id, cookie);
        const order = await casesInReaderOrder(board.store, id, tokens[0]!);
        const reader = (await studyReaders(board.store, id))[0]!;
        // Case 1 by the plain form, cases 2 and 3 by the autosave (case 3 without a confidence).
        const posted = await board.app.inject({ method: 'POST', url: `/read/${id}/case/1`, headers: { cookie }, payload: { _csrf: csrf, go: 'next', answer: 'B', confidence: '5', visit: 'form-visit-01', elapsed: '1500' } });
        assert.equal(posted.statusCode, 303, posted.body.slice(0, 300));
        for (const [k, answer, confidence, elapsedMs] of [[2, 'C', 2, 2500], [3, 'A', null, 4000]] as const) {
          const res = await board.app.inject({ method: 'POST', url: `/read/${id}/api/save`, headers: { cookie, 'x-csrf-token': csrf }, payload: { position: order[k - 1]!.position, answer, confidence, visitId: `api-visit-${k}`, elapsedMs } });
          assert.equal(res.statusCode, 200, res.body);
        }
        const expected = [{ answer: 'B', confidence: 5, seconds: 1.5 }, { answer: 'C', confidence: 2, seconds: 2.5 }, { answer: 'A', confidence: null, seconds: 4 }];
        const stored = await readerAnswers(board.store, reader.id);
        assert.deepEqual(order.map((item) => [stored.get(item.position)!.answer, stored.get(item.position)!.confidence]), expected.map((e) => [e.answer, e.confidence]));

        // The reader's finish page: the chosen option's text beside the letter, and the confidence.
        const finish = (await board.app.inject({ url: `/read/${id}/finish`, headers: { cookie } })).body;
        for (const [k, item] of order.entries()) {
          assert.ok(finish.includes(`<tr><td><a href="/read/${id}/case/${k + 1}">${k + 1}</a></td><td>${escapeHtml(item.question)}</td><td>${withText(item, expected[k]!.answer)}</td><td>${expected[k]!.confidence ?? '—'}</td></tr>`), `finish page, case ${k + 1}`);
        }

        // Every export of answers: the reader's file has one row per case, in the study's order.
        const host = await hostSession(board.app, board.store);
        const exported = await board.app.inject({ url: `/studies/${id}/export/reader-reader-1.jsonl`, headers: { cookie: host.cookie } });
        const expectedAt = new Map(order.map((item, k) => [item.position, expected[k]!]));
        const studyOrder = [...order].sort((a, b) => a.position - b.position);
        assert.deepEqual(exported.body.trim().split('\n').map((l) => JSON.parse(l)), studyOrder.map((item) => ({ id: item.question_id, ...expectedAt.get(item.position)! })));

        // The host's results: confidence in the per-reader table, and each case's answer, confidence and seconds.
        const results = (await board.app.inject({ url: `/studies/${id}/results`, headers: { cookie: host.cookie } })).body;
        assert.ok(results.includes('<tr><td>Reader 1</td><td class="num">3</td><td class="num">2.5</td><td class="num">2.7</td><td class="num">0.1</td><td class="num">2</td><td class="num">3.5</td></tr>'), 'cases timed, median, mean, total; cases rated, mean confidence');
        for (const [k, item] of order.entries()) {
          const e = expected[k]!;
          assert.ok(results.includes(`<tr><td class="num">${k + 1}</td><td><code>${escapeHtml(item.question_id)}</code></td><td>${escapeHtml(item.task)}</td><td>${e.answer}</td><td>${item.gold}</td><td class="num">${e.confidence ?? '—'}</td><td class="num">${e.seconds.toFixed(1)}</td></tr>`), `the host's row of case ${k + 1}`);
        }

        // After closing: the reader's results, with the options' text, their confidence and the reference.
        await setStudyState(board.store, 'test', id, 'closed');
        const mine = (await board.app.inject({ url: `/read/${id}/results`, headers: { cookie } })).body;
        for (const [k, item] of order.entries()) {
          assert.ok(mine.includes(`<tr><td>${k + 1}</td><td>${escapeHtml(item.question)}</td><td>${withText(item, expected[k]!.answer)}</td><td>${expected[k]!.confidence ?? '—'}</td><td>${withText(item, item.gold)}</td>`), `results page, case ${k + 1}`);
        }
      } finally {
        await board.close();
      }
    });
  });
}
