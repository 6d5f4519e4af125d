import assert from 'node:assert/strict';
import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { DEMO_DATASET } from '../src/cli/commands/demo-dataset.js';
import { addStudyModel, answerEvents, caseTimes, readerAnswers } from '../src/store/study-answers.js';
import { studyReaders } from '../src/store/study-readers.js';
import { setStudySettings, setStudyState, studyItems } from '../src/store/studies.js';
import { readerOrder } from '../src/study/sample.js';
import { createStudyFromBenchmark, createStudyFromSet } from '../src/study/create-study.js';
import { inviteByLink } from '../src/store/study-readers.js';
import { runCli } from './helpers/cli.js';
import { demoBoard, DIALECTS, lazyCluster, signUp } from './helpers/board.js';
import { tempDir } from './helpers/records.js';
import { benchmarkWithPerfectEntry, casesInReaderOrder, hostSession, openDemoStudy, readerCookie, readerCsrf } from './helpers/study.js';

const cluster = lazyCluster();
after(() => cluster.stop());

for (const dialect of DIALECTS) {
  describe(`reader studies (${dialect})`, { timeout: 240_000 }, () => {
    test('a study with missing images: the host is told which before inviting; opening and inviting are refused until they are removed', async () => {
      const board = await demoBoard(dialect, cluster.get);
      try {
        const copy = join(tempDir(), 'demo');
        cpSync(DEMO_DATASET, copy, { recursive: true });
        const created0 = await createStudyFromSet(board.store, 'test', { data: copy, splits: ['test'], title: 'probe', plan: { mode: 'random', n: 1000, task: null, seed: 1 } });
        const items0 = await studyItems(board.store, created0.study.id);
        // delete one image that a case of the sample uses, and empty another (a file that is there but no image)
        const pathsOf = (i: { images_json: string }) => (JSON.parse(i.images_json) as { path: string }[]).map((v) => v.path);
        const victim = pathsOf(items0[0]!)[0]!;
        const emptied = items0.flatMap(pathsOf).find((p) => p !== victim)!;
        rmSync(join(copy, 'metadata', victim), { force: true });
        writeFileSync(join(copy, 'metadata', emptied), '');
        const created = await createStudyFromSet(board.store, 'test', { data: copy, splits: ['test'], title: 'With a missing image', plan: { mode: 'random', n: 1000, task: null, seed: 1 } });
        const affected = items0.filter((i) => pathsOf(i).some((p) => p === victim || p === emptied)).map((i) => i.question_id).sort();
        assert.deepEqual(created.missing.map((m) => m.questionId).sort(), affected);
        assert.ok(created.missing.every((m) => m.paths.includes(victim) || m.paths.some((p) => p.startsWith(`${emptied} (not a readable image`))), JSON.stringify(created.missing));
        const host = await hostSession(board.app, board.store);
        const page = await board.app.inject({ url: `/studies/${created.study.id}`, headers: { cookie: host.cookie } });
        assert.match(page.body, /id="missing-images"/);
        for (const id of affected) assert.ok(page.body.includes(id), `the page names ${id}`);
        assert.ok(page.body.includes(`${emptied} (not a readable image`), 'and says why a file that is there cannot be shown');
        const invite = await board.app.inject({ method: 'POST', url: `/studies/${created.study.id}/invite`, headers: { cookie: host.cookie }, payload: { _csrf: host.csrf, name: 'R' } });
        assert.equal(invite.statusCode, 400);
        assert.match(invite.body, /missing images/);
        const open = await board.app.inject({ method: 'POST', url: `/studies/${created.study.id}/state`, headers: { cookie: host.cookie }, payload: { _csrf: host.csrf, action: 'open' } });
        assert.equal(open.statusCode, 409);
        assert.equal((await studyReaders(board.store, created.study.id)).length, 0);
        const drop = await board.app.inject({ method: 'POST', url: `/studies/${created.study.id}/drop-missing`, headers: { cookie: host.cookie }, payload: { _csrf: host.csrf } });
        assert.equal(drop.statusCode, 303);
        const left = await studyItems(board.store, created.study.id);
        assert.equal(left.length, items0.length - affected.length);
        assert.deepEqual(left.map((i) => i.position), left.map((_, i) => i), 'positions renumbered');
        const reopen = await board.app.inject({ method: 'POST', url: `/studies/${created.study.id}/state`, headers: { cookie: host.cookie }, payload: { _csrf: host.csrf, action: 'open' } });
        assert.equal(reopen.statusCode, 303);
      } finally {
        await board.close();
      }
    });

    test('reading: link → cookie, no skipping ahead, autosave with CSRF, two tabs last-write-wins with both times, submit locks, hidden gold', async () => {
      const board = await demoBoard(dialect, cluster.get);
      try {
        const { created, tokens } = await openDemoStudy(board.store, 12, 2);
        const id = created.study.id;
        const items = await studyItems(board.store, id);
        const cookie = await readerCookie(board.app, tokens[0]!);
        assert.match(cookie, /^cxr_reader=cxr_read_/);
        const home = await board.app.inject({ url: `/read/${id}`, headers: { cookie } });
        assert.equal(home.statusCode, 200);
        assert.match(home.body, /Start reading/);
        const csrf = await readerCsrf(board.app, id, cookie);
        const reader = (await studyReaders(board.store, id))[0]!;
        const order = readerOrder(items.length, reader.order_seed).map((p) => items[p]!);
        // nothing on any reader page or answer says what the gold is
        for (const url of [`/read/${id}`, `/read/${id}/case/1`, `/read/${id}/finish`]) {
          const body = (await board.app.inject({ url, headers: { cookie } })).body;
          for (const item of items) if (item.explanation) assert.ok(!body.includes(item.explanation.slice(0, 40)), `${url} shows no explanation`);
          assert.doesNotMatch(body, /gold|correct_answer|reference answer is/i);
        }
        assert.equal((await board.app.inject({ url: `/read/${id}/results`, headers: { cookie } })).statusCode, 403);
        // case 3 before case 1 is answered: sent back to case 1
        const skip = await board.app.inject({ url: `/read/${id}/case/3`, headers: { cookie } });
        assert.equal(skip.statusCode, 303);
        assert.equal(skip.headers.location, `/read/${id}/case/1`);
        const save = (body: Record<string, unknown>, token = csrf) => board.app.inject({ method: 'POST', url: `/read/${id}/api/save`, headers: { cookie, 'x-csrf-token': token }, payload: body });
        assert.equal((await save({ position: order[0]!.position, answer: 'A', confidence: null, visitId: 'tab-one-0001', elapsedMs: 1000 }, 'forged')).statusCode, 403);
        const bad = await save({ position: order[0]!.position, answer: 'E', confidence: 9, visitId: 'tab-one-0001', elapsedMs: 1000 });
        assert.equal(bad.statusCode, 400);
        assert.match(bad.json().message, /answer/);
        // two tabs on case 1: tab one says A at 4 s, tab two says C at 2.5 s later; then tab one's heartbeat at 6 s
        assert.equal((await save({ position: order[0]!.position, answer: 'A', confidence: 2, visitId: 'tab-one-0001', elapsedMs: 4000 })).statusCode, 200);
        assert.equal((await save({ position: order[0]!.position, answer: 'C', confidence: 4, visitId: 'tab-two-0002', elapsedMs: 2500, clientAt: '2026-01-01T00:00:00.000Z' })).statusCode, 200);
        assert.equal((await save({ position: order[0]!.position, answer: null, confidence: null, visitId: 'tab-one-0001', elapsedMs: 6000 })).statusCode, 200);
        const answers = await readerAnswers(board.store, reader.id);
        assert.deepEqual([answers.get(order[0]!.position)!.answer, answers.get(order[0]!.position)!.confidence, answers.get(order[0]!.position)!.visit_id], ['C', 4, 'tab-two-0002'], 'the last write wins');
        const events = await answerEvents(board.store, reader.id, order[0]!.position);
        assert.deepEqual(events.map((e) => [e.visit_id, e.answer, e.elapsed_ms]), [['tab-one-0001', 'A', 4000], ['tab-two-0002', 'C', 2500], ['tab-one-0001', null, 6000]]);
        assert.equal(events[1]!.client_at, '2026-01-01T00:00:00.000Z', 'both clocks kept');
        assert.equal((await caseTimes(board.store, id)).get(reader.id)!.get(order[0]!.position), 8500, 'time per case: longest per visit, summed over visits');
        // the plain form: next without an answer is refused; with one, it moves on
        const noAnswer = await board.app.inject({ method: 'POST', url: `/read/${id}/case/2`, headers: { cookie }, payload: { _csrf: csrf, go: 'next' } });
        assert.equal(noAnswer.statusCode, 400);
        assert.match(noAnswer.body, /Choose an answer before going on/);
        for (let k = 2; k <= order.length; k++) {
          const res = await board.app.inject({ method: 'POST', url: `/read/${id}/case/${k}`, headers: { cookie }, payload: { _csrf: csrf, go: 'next', answer: order[k - 1]!.gold, visit: 'form-visit-1', elapsed: '1500' } });
          assert.equal(res.statusCode, 303, `case ${k}: ${res.body.slice(0, 200)}`);
          assert.equal(res.headers.location, k === order.length ? `/read/${id}/finish` : `/read/${id}/case/${k + 1}`);
        }
        const submit = await board.app.inject({ method: 'POST', url: `/read/${id}/submit`, headers: { cookie }, payload: { _csrf: csrf } });
        assert.equal(submit.statusCode, 303);
        const locked = await save({ position: order[1]!.position, answer: 'B', confidence: null, visitId: 'tab-one-0001', elapsedMs: 1 });
        assert.equal(locked.statusCode, 409);
        assert.match(locked.json().message, /submitted/);
        await setStudySettings(board.store, 'test', id, { allowEdits: true, invitesExpireAt: null });
        assert.equal((await save({ position: order[1]!.position, answer: order[1]!.gold as 'A', confidence: null, visitId: 'tab-one-0001', elapsedMs: 1 })).statusCode, 200, 'the host allows changes');
        // another reader's cookie cannot reach this study's pages as this reader, and a made-up token is refused
        const other = await readerCookie(board.app, tokens[1]!);
        const otherHome = await board.app.inject({ url: `/read/${id}`, headers: { cookie: other } });
        assert.match(otherHome.body, /Start reading/, 'the second reader starts from nothing');
        assert.equal((await board.app.inject({ url: '/r/cxr_read_notarealtoken' })).statusCode, 404);
        // closing shows the reader the reference and the explanation
        await setStudyState(board.store, 'test', id, 'closed');
        const results = await board.app.inject({ url: `/read/${id}/results`, headers: { cookie } });
        assert.equal(results.statusCode, 200);
        const correct = order.filter((item, i) => (i === 0 ? 'C' : item.gold) === item.gold).length;
        assert.match(results.body, new RegExp(`You answered ${correct} of ${order.length} correctly`));
      } finally {
        await board.close();
      }
    });

    test('hardening: pages never depend on the gold; tokens stay out of the log; locked changes refused aloud; expired links stop saving; no save lands after the close', async () => {
      const chunks: string[] = [];
      const stream = new Writable({ write: (c: Buffer, _e, cb) => (chunks.push(c.toString()), cb()) });
      const board = await demoBoard(dialect, cluster.get, { log: { level: 'info', stream } });
      try {
        const { created, tokens } = await openDemoStudy(board.store, 6, 2);
        const id = created.study.id;
        const cookie = await readerCookie(board.app, tokens[0]!);
        assert.ok(!chunks.join('').includes(tokens[0]!.slice(9)), 'the invite token is not in the request log');
        assert.match(chunks.join(''), /\/r\/\[redacted\]/);
        const csrf = await readerCsrf(board.app, id, cookie);
        // Every case page, read twice with the gold changed in between: the page is the same.
        const strip = (body: string) => body.replace(/name="visit" value="[^"]+"/, '');
        for (let k = 1; k <= 6; k++) {
          const before = (await board.app.inject({ url: `/read/${id}/case/${k}`, headers: { cookie } })).body;
          const position = Number(/data-position="(\d+)"/.exec(before)![1]);
          const item = (await studyItems(board.store, id))[position]!;
          await board.store.db.updateTable('study_items').set({ gold: 'ABCD'[('ABCD'.indexOf(item.gold) + 1) % 4]!, explanation: 'CHANGED EXPLANATION' }).where('study_id', '=', id).where('position', '=', position).execute();
          const after = (await board.app.inject({ url: `/read/${id}/case/${k}`, headers: { cookie } })).body;
          assert.equal(strip(after), strip(before), `case ${k} does not depend on the gold or the explanation`);
          await board.app.inject({ method: 'POST', url: `/read/${id}/api/save`, headers: { cookie, 'x-csrf-token': csrf }, payload: { position, answer: 'A', confidence: null, visitId: 'hardening-visit', elapsedMs: 1 } });
        }
        assert.equal((await board.app.inject({ method: 'POST', url: `/read/${id}/submit`, headers: { cookie }, payload: { _csrf: csrf } })).statusCode, 303);
        const changed = await board.app.inject({ method: 'POST', url: `/read/${id}/case/1`, headers: { cookie }, payload: { _csrf: csrf, answer: 'B', go: 'next' } });
        assert.equal(changed.statusCode, 409);
        assert.match(changed.body, /Not saved: You submitted your answers; they are locked/);
        assert.equal((await board.app.inject({ method: 'POST', url: `/read/${id}/case/1`, headers: { cookie }, payload: { _csrf: csrf, answer: 'A', go: 'next' } })).statusCode, 303, 'the same answer simply moves on');
        // The second reader holds the cookie when the links expire: saving stops, with the reason.
        const second = await readerCookie(board.app, tokens[1]!);
        const secondCsrf = await readerCsrf(board.app, id, second);
        const firstCase = Number(/data-position="(\d+)"/.exec((await board.app.inject({ url: `/read/${id}/case/1`, headers: { cookie: second } })).body)![1]);
        const save = (k: number) => board.app.inject({ method: 'POST', url: `/read/${id}/api/save`, headers: { cookie: second, 'x-csrf-token': secondCsrf }, payload: { position: firstCase, answer: 'ABCD'[k % 4], confidence: null, visitId: `race-visit-${k}`, elapsedMs: k } });
        await setStudySettings(board.store, 'test', id, { allowEdits: false, invitesExpireAt: '2020-01-01T00:00:00.000Z' });
        const expired = await save(0);
        assert.equal(expired.statusCode, 410);
        assert.match(expired.json().message, /expired/);
        await setStudySettings(board.store, 'test', id, { allowEdits: false, invitesExpireAt: null });
        // Saves racing the close: each lands before it or is refused; none after.
        const racing = Array.from({ length: 30 }, (_, k) => save(k + 1));
        await setStudyState(board.store, 'test', id, 'closed');
        const codes = (await Promise.all(racing)).map((r) => r.statusCode);
        assert.ok(codes.every((c) => c === 200 || c === 409), codes.join(','));
        const closedAt = (await board.store.db.selectFrom('studies').select('closed_at').where('id', '=', id).executeTakeFirstOrThrow()).closed_at!;
        const events = await board.store.db.selectFrom('study_answer_events').select('at').execute();
        assert.ok(events.every((e) => e.at <= closedAt), 'no answer saved after the close');
        const host = await hostSession(board.app, board.store);
        for (const task of ['constructor', '__proto__', 'toString', 'no such task']) assert.equal((await board.app.inject({ url: `/studies/${id}/results/kappa.svg?task=${encodeURIComponent(task)}`, headers: { cookie: host.cookie } })).statusCode, 404, task);
      } finally {
        await board.close();
      }
    });

    test('account readers: invited by email, the study on their account page; a link cookie planted in their browser does not take their answers', async () => {
      const board = await demoBoard(dialect, cluster.get);
      try {
        const { created, tokens } = await openDemoStudy(board.store, 4, 1);
        const id = created.study.id;
        const host = await hostSession(board.app, board.store);
        const rad = await signUp(board.app, 'rad@hospital.org', 'Radiology');
        const invite = await board.app.inject({ method: 'POST', url: `/studies/${id}/invite`, headers: { cookie: host.cookie }, payload: { _csrf: host.csrf, email: 'rad@hospital.org', name: 'Dr Rad' } });
        assert.equal(invite.statusCode, 200);
        assert.match(invite.body, new RegExp(`<code id="new-link">http://[^<]+/read/${id}</code>`));
        const account = await board.app.inject({ url: '/account', headers: { cookie: rad.cookie } });
        assert.match(account.body, new RegExp(`<a href="/read/${id}">Demo reader study</a>`));
        // an attacker's own link cookie in the victim's browser: the account still reads as itself
        const planted = (await readerCookie(board.app, tokens[0]!)).split('=')[1]!;
        const both = `${rad.cookie}; cxr_reader=${planted}`;
        const page = await board.app.inject({ url: `/read/${id}/case/1`, headers: { cookie: both } });
        const csrf = /data-csrf="([^"]+)"/.exec(page.body)![1]!;
        const position = Number(/data-position="(\d+)"/.exec(page.body)![1]);
        assert.equal((await board.app.inject({ method: 'POST', url: `/read/${id}/api/save`, headers: { cookie: both, 'x-csrf-token': csrf }, payload: { position, answer: 'D', confidence: null, visitId: 'account-visit', elapsedMs: 1 } })).statusCode, 200);
        const readers = await studyReaders(board.store, id);
        const mine = readers.find((r) => r.name === 'Dr Rad')!;
        const linkReader = readers.find((r) => r.name !== 'Dr Rad')!;
        assert.equal((await readerAnswers(board.store, mine.id)).size, 1);
        assert.equal((await readerAnswers(board.store, linkReader.id)).size, 0, 'nothing went to the planted link\'s reader');
      } finally {
        await board.close();
      }
    });

    test('revoked and expired links are refused with the reason; host pages are for admins only', async () => {
      const board = await demoBoard(dialect, cluster.get);
      try {
        const { created, tokens } = await openDemoStudy(board.store, 5, 2);
        const id = created.study.id;
        const host = await hostSession(board.app, board.store);
        const cookie = await readerCookie(board.app, tokens[0]!);
        const readers = await studyReaders(board.store, id);
        const revoke = await board.app.inject({ method: 'POST', url: `/studies/${id}/readers/${readers[0]!.id}/revoke`, headers: { cookie: host.cookie }, payload: { _csrf: host.csrf } });
        assert.equal(revoke.statusCode, 303);
        const afterRevoke = await board.app.inject({ url: `/read/${id}/case/1`, headers: { cookie } });
        assert.equal(afterRevoke.statusCode, 403);
        assert.match(afterRevoke.body, /withdrawn/);
        assert.equal((await board.app.inject({ url: `/r/${tokens[0]}` })).statusCode, 403);
        const expire = await board.app.inject({ method: 'POST', url: `/studies/${id}/settings`, headers: { cookie: host.cookie }, payload: { _csrf: host.csrf, expires: '2020-01-01 10:00' } });
        assert.equal(expire.statusCode, 303);
        const expired = await board.app.inject({ url: `/r/${tokens[1]}` });
        assert.equal(expired.statusCode, 410);
        assert.match(expired.body, /expired on 2020-01-01 10:00 UTC/);
        const badDate = await board.app.inject({ method: 'POST', url: `/studies/${id}/settings`, headers: { cookie: host.cookie }, payload: { _csrf: host.csrf, expires: 'tomorrow' } });
        assert.equal(badDate.statusCode, 400);
        assert.match(badDate.body, /YYYY-MM-DD HH:MM/);
        for (const impossible of ['2030-02-31', '2030-01-01 25:00', '2030-13-01 10:00']) {
          const res = await board.app.inject({ method: 'POST', url: `/studies/${id}/settings`, headers: { cookie: host.cookie }, payload: { _csrf: host.csrf, expires: impossible } });
          assert.equal(res.statusCode, 400, impossible);
          assert.match(res.body, /is not a real date and time/, impossible);
        }
        assert.equal((await board.store.db.selectFrom('studies').select('invites_expire_at').where('id', '=', id).executeTakeFirstOrThrow()).invites_expire_at, '2020-01-01T10:00:00.000Z', 'nothing rolled over into another day');
        const page = await board.app.inject({ url: `/studies/${id}`, headers: { cookie: host.cookie } });
        assert.match(page.body, /2020-01-01 10:00 UTC — passed: reading links no longer open or save/);
        // closing wants the box ticked; a draft can be deleted, an open study cannot
        const unconfirmed = await board.app.inject({ method: 'POST', url: `/studies/${id}/state`, headers: { cookie: host.cookie }, payload: { _csrf: host.csrf, action: 'close' } });
        assert.equal(unconfirmed.statusCode, 400);
        assert.equal((await board.app.inject({ method: 'POST', url: `/studies/${id}/delete`, headers: { cookie: host.cookie }, payload: { _csrf: host.csrf, confirm: 'yes' } })).statusCode, 409);
        const draft = await createStudyFromSet(board.store, 'test', { data: DEMO_DATASET, splits: ['test'], title: 'Throwaway', plan: { mode: 'random', n: 3, task: null, seed: 1 } });
        assert.equal((await board.app.inject({ method: 'POST', url: `/studies/${draft.study.id}/delete`, headers: { cookie: host.cookie }, payload: { _csrf: host.csrf, confirm: 'yes' } })).statusCode, 303);
        assert.equal((await studyItems(board.store, draft.study.id)).length, 0, 'its cases went with it');
        // a participant (not an admin) gets no host page, no export, no image of the study
        const participant = (await import('./helpers/board.js')).signUp;
        const someone = await participant(board.app, 'someone@lab.org', 'lab');
        for (const url of [`/studies`, `/studies/${id}`, `/studies/${id}/results`, `/studies/${id}/export/key.jsonl`]) assert.equal((await board.app.inject({ url, headers: { cookie: someone.cookie } })).statusCode, 403, url);
        const sha = JSON.parse((await studyItems(board.store, id))[0]!.images_json)[0].sha256 as string;
        assert.equal((await board.app.inject({ url: `/read/${id}/img/${sha}`, headers: { cookie: someone.cookie } })).statusCode, 404, 'not a reader');
        assert.equal((await board.app.inject({ url: `/read/${id}/img/${sha}` })).statusCode, 403, 'anonymous');
        const asHost = await board.app.inject({ url: `/read/${id}/img/${sha}`, headers: { cookie: host.cookie } });
        assert.equal(asHost.statusCode, 200);
        assert.ok(Number(asHost.headers['x-image-width']) > 0);
        // without JavaScript the case page shows the image file itself
        const file = await board.app.inject({ url: `/read/${id}/file/${sha}`, headers: { cookie: host.cookie } });
        assert.deepEqual([file.statusCode, file.headers['content-type'], file.rawPayload.subarray(1, 4).toString()], [200, 'image/png', 'PNG']);
        assert.equal((await board.app.inject({ url: `/read/${id}/file/${sha}`, headers: { cookie: someone.cookie } })).statusCode, 404, 'not for a non-reader');
        // CSRF on every host form
        const forged = await board.app.inject({ method: 'POST', url: `/studies/${id}/state`, headers: { cookie: host.cookie }, payload: { _csrf: 'forged', action: 'close' } });
        assert.equal(forged.statusCode, 403);
      } finally {
        await board.close();
      }
    });

    test('a study drawn from a benchmark: its entries are the models; once closed and published, readers appear on the leaderboard as human rows on the study\'s items', async () => {
      const board = await demoBoard(dialect, cluster.get);
      try {
        const benchmark = await benchmarkWithPerfectEntry(board);
        const created = await createStudyFromBenchmark(board.store, 'test', benchmark, { title: 'Board study', plan: { mode: 'stratified', n: 8, task: null, seed: 2 }, publishScores: true });
        assert.deepEqual(created.missing, []);
        await setStudyState(board.store, 'test', created.study.id, 'open');
        const { token } = await inviteByLink(board.store, 'test', created.study.id, 'Dr Human');
        const cookie = await readerCookie(board.app, token);
        const csrf = await readerCsrf(board.app, created.study.id, cookie);
        const items = await studyItems(board.store, created.study.id);
        for (const item of await casesInReaderOrder(board.store, created.study.id, token)) await board.app.inject({ method: 'POST', url: `/read/${created.study.id}/api/save`, headers: { cookie, 'x-csrf-token': csrf }, payload: { position: item.position, answer: item.position < 6 ? item.gold : 'ABCD'[('ABCD'.indexOf(item.gold) + 1) % 4], confidence: null, visitId: 'board-visit-1', elapsedMs: 10 } });
        await addStudyModel(board.store, 'test', created.study.id, 'private-run', Object.fromEntries(items.map((i) => [i.question_id, i.gold])));
        const before = await board.app.inject({ url: '/b/demo' });
        assert.doesNotMatch(before.body, /human-readers/, 'nothing shown while the study is open');
        await setStudyState(board.store, 'test', created.study.id, 'closed', { publish: true });
        const boardPage = await board.app.inject({ url: '/b/demo' });
        const section = boardPage.body.slice(boardPage.body.indexOf('id="human-readers"'));
        assert.match(section, /Dr Human <span class="badge human"[^>]*>human<\/span><\/td><td class="num">8 \/ 8<\/td><td class="num">75\.0/);
        assert.match(section, /\[baseline\] Perfect-Model<\/td><td class="num">8 \/ 8<\/td><td class="num">100\.0/, 'the entry, on the same 8 cases');
        assert.doesNotMatch(section, /private-run/, 'a run the host added is not published');
        assert.match(section, /title="fewer than 2 cases: not shown">n=1</, 'cells smaller than the board\'s public minimum are not shown');
        // The reader of hidden test items gets a score, not the reference case by case.
        const mine = await board.app.inject({ url: `/read/${created.study.id}/results`, headers: { cookie } });
        assert.match(mine.body, /You answered 6 of 8 correctly/);
        assert.match(mine.body, /id="reference-withheld"/);
        assert.doesNotMatch(mine.body, /<th>Reference<\/th>/);
      } finally {
        await board.close();
      }
    });

    test('results: accuracy with Wilson intervals, kappa of readers and models with n per cell, exports that `cxrbench agreement` reads', async () => {
      const board = await demoBoard(dialect, cluster.get);
      try {
        const { created, tokens } = await openDemoStudy(board.store, 10, 2);
        const id = created.study.id;
        const items = await studyItems(board.store, id);
        // reader 1 answers every case right; reader 2 answers A everywhere but leaves the last case of its order
        let skipped = -1;
        for (const [r, token] of tokens.entries()) {
          const cookie = await readerCookie(board.app, token);
          const csrf = await readerCsrf(board.app, id, cookie);
          const order = await casesInReaderOrder(board.store, id, token);
          for (const [k, item] of order.entries()) {
            if (r === 1 && k === order.length - 1) {
              skipped = item.position;
              continue;
            }
            const res = await board.app.inject({ method: 'POST', url: `/read/${id}/api/save`, headers: { cookie, 'x-csrf-token': csrf }, payload: { position: item.position, answer: r === 0 ? item.gold : 'A', confidence: 3, visitId: `visit-${r}-${k}-xx`, elapsedMs: 1000 * (k + 1) } });
            assert.equal(res.statusCode, 200);
          }
        }
        // a model's predictions file on the study's items
        const pred = join(tempDir(), 'model.jsonl');
        writeFileSync(pred, items.map((i) => JSON.stringify({ id: i.question_id, prediction: `The answer is ${i.gold === 'B' ? 'C' : i.gold}` })).join('\n'));
        const dataDir = tempDir();
        void dataDir;
        const { addStudyModel } = await import('../src/store/study-answers.js');
        const { lettersOn } = await import('../src/study/model-answers.js');
        const { parsePredictions } = await import('../src/core/prediction-file.js');
        await addStudyModel(board.store, 'test', id, 'model-x', Object.fromEntries(lettersOn(items, parsePredictions((await import('node:fs')).readFileSync(pred, 'utf8'), 'jsonl').predictions)));
        const host = await hostSession(board.app, board.store);
        const page = await board.app.inject({ url: `/studies/${id}/results`, headers: { cookie: host.cookie } });
        assert.equal(page.statusCode, 200);
        const aCount = items.filter((i) => i.gold === 'A' && i.position !== skipped).length;
        assert.match(page.body, /Reader 1 <span class="badge human"[^>]*>human<\/span><\/td><td class="num">10 \/ 10<\/td><td class="num">100\.0<span class="ci"> 72\.2–100\.0/, 'Wilson interval of 10/10');
        assert.ok(page.body.includes(`<td class="num">9 / 10</td><td class="num">${(aCount * 10).toFixed(1)}`), 'reader 2: 9 answered, accuracy over all 10');
        assert.match(page.body, /model-x/);
        assert.match(page.body, /id="kappa-heatmap"/);
        const svg = await board.app.inject({ url: `/studies/${id}/results/kappa.svg`, headers: { cookie: host.cookie } });
        assert.equal(svg.headers['content-type'], 'image/svg+xml');
        assert.match(svg.body, /<svg/);
        // the exports, read back by the agreement command: reader 1 equals the key, so its kappa with the key's answers is 1
        const out = tempDir();
        for (const file of ['key.jsonl', 'reader-reader-1.jsonl', 'reader-reader-2.jsonl', 'model-model-x.jsonl']) {
          const res = await board.app.inject({ url: `/studies/${id}/export/${file}`, headers: { cookie: host.cookie } });
          assert.equal(res.statusCode, 200, file);
          writeFileSync(join(out, file), res.body);
        }
        const reader2 = (await import('node:fs')).readFileSync(join(out, 'reader-reader-2.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
        assert.equal(reader2.length, 10);
        assert.equal(reader2.filter((r) => r.answer === null).length, 1, 'unanswered exported as null');
        const agreement = await runCli(['agreement', join(out, 'reader-reader-1.jsonl'), join(out, 'model-model-x.jsonl'), '--gold', join(out, 'key.jsonl'), '--format', 'json']);
        assert.equal(agreement.code, 0, agreement.stderr);
        const json = JSON.parse(agreement.stdout);
        const modelCorrect = items.filter((i) => i.gold !== 'B').length;
        assert.ok(JSON.stringify(json).includes(String(modelCorrect / items.length).slice(0, 5)), `accuracy of model-x ${modelCorrect}/10 in ${agreement.stdout.slice(0, 400)}`);
      } finally {
        await board.close();
      }
    });
  });
}
