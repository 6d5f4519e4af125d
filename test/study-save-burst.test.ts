import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { answerEvents, readerAnswers } from '../src/store/study-answers.js';
import { studyReaders } from '../src/store/study-readers.js';
import { demoBoard, DIALECTS, lazyCluster } from './helpers/board.js';
import { openDemoStudy, readerCookie, readerCsrf } from './helpers/study.js';

const cluster = lazyCluster();
after(() => cluster.stop());

for (const dialect of DIALECTS) {
  describe(`a reader's saves in a burst (${dialect})`, { timeout: 120_000 }, () => {
    // Two tabs on one study, or autosave firing on every keypress: one reader's saves overlap. On PostgreSQL each
    // save once read the reader's row FOR SHARE and then updated it, so two overlapping saves deadlocked and the
    // reader got HTTP 500 for answers they had given.
    test('every overlapping save of one reader is stored, none is refused or lost', async () => {
      const board = await demoBoard(dialect, cluster.get);
      try {
        const { created, tokens } = await openDemoStudy(board.store, 6, 1);
        const id = created.study.id;
        const cookie = await readerCookie(board.app, tokens[0]!);
        const csrf = await readerCsrf(board.app, id, cookie);
        // The first case of this reader's order (the only one open before it has an answer).
        const first = Number(/data-position="(\d+)"/.exec((await board.app.inject({ url: `/read/${id}/case/1`, headers: { cookie } })).body)![1]);
        const burst = Array.from({ length: 48 }, (_, k) => ({ position: first, answer: 'ABCD'[k % 4]!, confidence: (k % 5) + 1, visitId: `tab-${k % 2}-visit`, elapsedMs: 100 * k }));
        const responses = await Promise.all(burst.map((payload) => board.app.inject({ method: 'POST', url: `/read/${id}/api/save`, headers: { cookie, 'x-csrf-token': csrf }, payload })));
        assert.deepEqual(responses.map((r) => r.statusCode), burst.map(() => 200), responses.filter((r) => r.statusCode !== 200).map((r) => r.body.slice(0, 200)).join('\n'));
        const [reader] = await studyReaders(board.store, id);
        const events = await answerEvents(board.store, reader!.id, first);
        assert.equal(events.length, burst.length, 'each save is in the answer history');
        // The answer kept is one stored last (saves in the same millisecond tie; any of those is right).
        const latest = events.filter((e) => e.at === events.at(-1)!.at).map((e) => e.answer);
        const current = await readerAnswers(board.store, reader!.id);
        assert.deepEqual([...current.keys()], [first]);
        assert.ok(latest.includes(current.get(first)!.answer), `${current.get(first)!.answer} is one of the last saved (${latest.join(', ')})`);
      } finally {
        await board.close();
      }
    });
  });
}
