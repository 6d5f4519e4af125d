import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { DEMO_DATASET } from '../src/cli/commands/demo-dataset.js';
import { createReviewQueue } from '../src/review/create-queue.js';
import { editableText } from '../src/review/edit.js';
import { queueState } from '../src/review/queue-state.js';
import { createReviewVersion } from '../src/review/version.js';
import { reviewItems, reviewQueueById, reviewViewsOf, type ReviewQueue } from '../src/store/reviews.js';
import { formValues, itemPage } from '../src/server/views/review-views.js';
import { DIALECTS, demoBoard, lazyCluster } from './helpers/board.js';
import { crawl } from './helpers/crawl.js';
import { reviewAccounts, signIn } from './helpers/review.js';

const cluster = lazyCluster();
after(() => cluster.stop());

/** A whole decision form as a browser sends it. */
const form = (csrf: string | undefined, fields: Record<string, string> = {}) => ({
  ...(csrf === undefined ? {} : { _csrf: csrf }),
  clinical_quality: '4', explanation_clarity: '4', factual_correctness: '5', image_alignment: '3', difficulty: 'medium', category: 'Heart', decision: 'accept', reason: '', note: '', go: 'next', ...fields,
});

for (const dialect of DIALECTS) {
  test(`review routes (${dialect}): only assigned reviewers and admins see an item and its answer; CSRF on every POST; a refused edit keeps the typed text and stores nothing`, { timeout: 120_000 }, async () => {
    const board = await demoBoard(dialect, cluster.get);
    const { app, store } = board;
    try {
      await reviewAccounts(store, ['ana', 'ben', 'cy']);
      // One reviewer per item over the valid split: ana and ben get three items each; cy reviews nothing.
      const { queue } = await createReviewQueue(store, 'test', { data: DEMO_DATASET, splits: ['valid'], title: 'Routes queue', reviewersPerItem: 1, reviewers: ['ana@lab.org', 'ben@lab.org'] });
      const items = await reviewItems(store, queue.id);
      const assignments = await store.db.selectFrom('review_assignments').innerJoin('users', 'users.id', 'review_assignments.user_id').select(['position', 'email']).where('queue_id', '=', queue.id).execute();
      const of = (email: string) => assignments.filter((a) => a.email === email).map((a) => a.position).sort((a, b) => a - b);
      const [anaFirst, anaSecond] = of('ana@lab.org');
      const benFirst = of('ben@lab.org')[0]!;
      const explanations = items.map((i) => String((JSON.parse(i.record_json) as { correct_answer_explanation: string }).correct_answer_explanation));
      const sha = reviewViewsOf(items[anaFirst!]!)[0]!.sha256!;
      const base = `/reviews/${queue.id}`;

      const anonymous = await app.inject({ url: '/reviews' });
      assert.deepEqual([anonymous.statusCode, anonymous.headers.location], [303, '/login?next=%2Freviews']);
      assert.equal((await app.inject({ url: `${base}/items/1` })).statusCode, 303);
      assert.equal((await app.inject({ url: `${base}/img/${sha}` })).statusCode, 404);

      const ana = await signIn(app, 'ana@lab.org');
      const ben = await signIn(app, 'ben@lab.org');
      const cy = await signIn(app, 'cy@lab.org');
      const admin = await signIn(app, 'admin@lab.org');
      const get = (who: { cookie: string }, url: string) => app.inject({ url, headers: { cookie: who.cookie } });
      const post = (who: { cookie: string }, url: string, payload: Record<string, string>) => app.inject({ method: 'POST', url, headers: { cookie: who.cookie }, payload });

      const list = await get(ana, '/reviews');
      assert.equal(list.statusCode, 200);
      assert.match(list.body, new RegExp(`<a href="${base}">Routes queue</a></td><td class="num">3</td><td class="num">0</td>`));
      assert.doesNotMatch(list.body, /All queues/, 'a reviewer does not see the admins\' list');
      const page = await get(ana, `${base}/items/${anaFirst! + 1}`);
      assert.equal(page.statusCode, 200);
      assert.ok(page.body.includes(explanations[anaFirst!]!.replaceAll('"', '&quot;').replaceAll("'", '&#39;')), 'the assigned reviewer sees the explanation');
      assert.match(page.body, /✓ correct answer/);
      assert.match(page.body, new RegExp(`class="cxr-view" data-src="${base}/img/${sha}"`));
      assert.match(page.body, /<script type="module" src="\/static\/viewer.js"><\/script>/);
      assert.equal((await get(ana, `${base}/img/${sha}`)).headers['x-image-bits'], '8');
      assert.equal((await get(admin, `${base}/img/${sha}`)).statusCode, 200);

      // Another reviewer, and an account with no item, get 404 for everything of ana's — and no answer anywhere.
      for (const [who, urls] of [[ben, [`${base}/items/${anaFirst! + 1}`, `${base}/report`, `${base}/versions/1/export.json`]], [cy, ['/reviews', base, ...items.map((i) => `${base}/items/${i.position + 1}`), `${base}/img/${sha}`, `${base}/report`, `${base}/versions/1/export.json`, `${base}/versions/1/review-version.json`]]] as const) {
        for (const url of urls) {
          const res = await get(who, url);
          if (url !== '/reviews') assert.equal(res.statusCode, 404, url);
          for (const e of explanations) assert.ok(!res.body.includes(e.slice(0, 40).replaceAll("'", '&#39;')) && !res.body.includes(e.slice(0, 40)), `${url} shows no explanation`);
        }
      }
      assert.equal((await post(cy, `${base}/items/1`, form(cy.csrf))).statusCode, 404);
      // An image is served only through a queue whose items hold it: cy's own queue's image is not ana's through hers, nor cy's through it.
      const other = await createReviewQueue(store, 'test', { data: DEMO_DATASET, splits: ['test'], title: 'Other', reviewersPerItem: 1, reviewers: ['cy@lab.org'] });
      const valid = new Set(items.flatMap((i) => reviewViewsOf(i).map((v) => v.sha256)));
      const foreign = (await reviewItems(store, other.queue.id)).flatMap((i) => reviewViewsOf(i).map((v) => v.sha256!)).find((x) => !valid.has(x))!;
      assert.deepEqual([(await get(ana, `${base}/img/${foreign}`)).statusCode, (await get(cy, `${base}/img/${foreign}`)).statusCode, (await get(cy, `/reviews/${other.queue.id}/img/${foreign}`)).statusCode], [404, 404, 200]);

      // CSRF: missing or another session's token → 403, nothing stored.
      const count = async () => Number((await store.db.selectFrom('review_decisions').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
      assert.equal((await post(ana, `${base}/items/${anaFirst! + 1}`, form(undefined))).statusCode, 403);
      assert.equal((await post(ana, `${base}/items/${anaFirst! + 1}`, form(ben.csrf))).statusCode, 403);
      assert.equal((await post(admin, `${base}/versions`, { include_disputed: '1', pending: 'keep' })).statusCode, 403);
      assert.equal(await count(), 0);

      // A broken edit: option D emptied and the question cleared → 400, reasons shown and tied to the fields, typed text kept, nothing stored.
      const broken = await post(ana, `${base}/items/${anaFirst! + 1}`, form(ana.csrf, { decision: 'edit', edit_question: '', edit_a: 'First <b>typed</b>', edit_b: 'Second', edit_c: 'Third', edit_d: '', edit_answer: 'A', edit_explanation: 'An explanation of a sentence or more.' }));
      assert.equal(broken.statusCode, 400);
      assert.match(broken.body, /<div class="problems" role="alert" id="review-errors">/);
      // The summary at the top links to each field; each message is shown again right after its field, which it describes.
      assert.match(broken.body, /<li><a href="#field-edit_question">question is empty<\/a><\/li>/);
      assert.match(broken.body, /<li><a href="#field-edit_d">option D has a letter but no text<\/a><\/li>/);
      assert.match(broken.body, /<textarea name="edit_question" id="field-edit_question" maxlength="4000" aria-invalid="true" aria-describedby="err-edit_question" rows="3"><\/textarea><span class="field-error" id="err-edit_question">question is empty<\/span>/);
      assert.equal(errorAfter(broken.body, 'edit_question'), 'question is empty');
      assert.equal(errorAfter(broken.body, 'edit_d'), 'option D has a letter but no text');
      assert.deepEqual(invalidControls(broken.body), ['edit_question', 'edit_d'], 'only the emptied option is marked, not all four');
      assert.ok(['edit_a', 'edit_b', 'edit_c'].every((name) => errorAfter(broken.body, name) === null));
      assert.match(broken.body, /value="First &lt;b&gt;typed&lt;\/b&gt;"/, 'the typed option is kept (escaped)');
      assert.match(broken.body, /<input type="radio" name="decision" value="edit" checked required>/);
      assert.equal(await count(), 0);

      // Two options alike and a short explanation: A and B are marked (C and D are not), each with the message after it; the explanation's says the minimum.
      const record = JSON.parse(items[anaFirst!]!.record_json) as Record<string, unknown>;
      const clash = await post(ana, `${base}/items/${anaFirst! + 1}`, editForm(ana.csrf, record, { options: ['Same text', 'same  text', 'Third', 'Fourth'], explanation: 'Short' }));
      assert.equal(clash.statusCode, 400);
      assert.deepEqual(invalidControls(clash.body), ['edit_a', 'edit_b', 'edit_explanation']);
      assert.equal(errorAfter(clash.body, 'edit_a'), 'options A and B have the same text &quot;same  text&quot;');
      assert.equal(errorAfter(clash.body, 'edit_b'), 'options A and B have the same text &quot;same  text&quot;');
      assert.deepEqual([errorAfter(clash.body, 'edit_c'), errorAfter(clash.body, 'edit_d')], [null, null]);
      assert.equal(errorAfter(clash.body, 'edit_explanation'), 'the explanation needs at least 20 characters (it has 5)');
      assert.match(clash.body, /<li><a href="#field-edit_a">options A and B have the same text [^<]*<\/a><\/li>\s*<li><a href="#field-edit_explanation">the explanation needs at least 20 characters \(it has 5\)<\/a><\/li>/);
      assert.doesNotMatch(clash.body, /<fieldset[^>]*class="edit-options"[^>]*aria-invalid/);
      // A rating left out: its group is marked and linked, the message at the end of the group.
      const unrated = await post(ana, `${base}/items/${anaFirst! + 1}`, form(ana.csrf, { clinical_quality: '' }));
      assert.equal(unrated.statusCode, 400);
      assert.match(unrated.body, /<fieldset class="choices inline" id="field-clinical_quality" aria-invalid="true" aria-describedby="err-clinical_quality">[^]*?<\/div>\s*<span class="field-error" id="err-clinical_quality">Clinical quality: choose a rating from 1 to 5 \(needed to accept or edit\)<\/span><\/fieldset>/);
      assert.match(unrated.body, /<li><a href="#field-clinical_quality">Clinical quality: choose a rating from 1 to 5 \(needed to accept or edit\)<\/a><\/li>/);
      for (const body of [broken.body, clash.body, unrated.body]) {
        const ids = [...body.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]);
        assert.equal(new Set(ids).size, ids.length, 'ids are unique');
      }
      assert.equal(await count(), 0);

      // A good decision goes on to the reviewer's next item; the admin sees it in the report and makes a version.
      const saved = await post(ana, `${base}/items/${anaFirst! + 1}`, form(ana.csrf));
      assert.deepEqual([saved.statusCode, saved.headers.location], [303, `${base}/items/${anaSecond! + 1}`]);
      assert.equal(await count(), 1);
      assert.match((await get(ana, '/reviews')).body, /<td class="num">3<\/td><td class="num">1<\/td>/);
      assert.equal((await get(ana, `${base}/report`)).statusCode, 404, 'the report is for admins');
      const report = await get(admin, `${base}/report`);
      assert.equal(report.statusCode, 200);
      assert.match(report.body, /Decisions made 1 of 6/);
      const made = await post(admin, `${base}/versions`, { _csrf: admin.csrf, include_disputed: '1', pending: 'retire' });
      assert.deepEqual([made.statusCode, made.headers.location], [303, `${base}/report#versions`]);
      const download = await get(admin, `${base}/versions/1/export.json`);
      assert.equal(download.statusCode, 200);
      assert.match(String(download.headers['content-disposition']), /^attachment; filename="review-[0-9a-f]{8}-v1-export\.json"$/);
      assert.deepEqual(Object.keys(JSON.parse(download.body) as object), ['metadata/valid_vqa_data.json']);
      assert.deepEqual(Object.keys((JSON.parse(download.body) as Record<string, object>)['metadata/valid_vqa_data.json']!), [items[anaFirst!]!.question_id]);
      const one = await get(admin, `${base}/versions/1/export.json?split=valid`);
      assert.deepEqual(JSON.parse(one.body), (JSON.parse(download.body) as Record<string, unknown>)['metadata/valid_vqa_data.json']);
      assert.equal((await get(admin, `${base}/versions/9/export.json`)).statusCode, 404);

      // An admin who reviews nothing adjudicates: the form says so, and the decision is stored as an adjudication.
      const adjudicate = await get(admin, `${base}/items/${benFirst + 1}`);
      assert.match(adjudicate.body, /<input type="hidden" name="adjudication" value="1">/);
      const ruled = await post(admin, `${base}/items/${benFirst + 1}`, form(admin.csrf, { decision: 'reject', reason: 'other', note: 'seen twice' }));
      assert.deepEqual([ruled.statusCode, ruled.headers.location], [303, `${base}/report`]);
      const row = await store.db.selectFrom('review_decisions').select(['adjudication', 'decision', 'reason', 'note']).where('queue_id', '=', queue.id).where('position', '=', benFirst).executeTakeFirstOrThrow();
      assert.deepEqual(row, { adjudication: 1, decision: 'reject', reason: 'other', note: 'seen twice' });
    } finally {
      await board.close();
    }
  });
}

/** The names of the form controls (input, textarea, select) marked aria-invalid, in page order. */
const invalidControls = (body: string) => [...body.matchAll(/<(?:input|textarea|select) name="(\w+)"[^>]*aria-invalid="true"/g)].map((m) => m[1]);

/**
 * The error message shown right after a control (after its closing tag for a textarea or select), or null when
 * none follows it; also checks the control is described by exactly that message.
 */
function errorAfter(body: string, name: string): string | null {
  const open = new RegExp(`<(input|textarea|select) name="${name}"[^>]*>`).exec(body);
  assert.ok(open, `no control ${name}`);
  let end = open.index + open[0].length;
  if (open[1] !== 'input') end = body.indexOf(`</${open[1]}>`, end) + `</${open[1]}>`.length;
  const message = new RegExp(`^<span class="field-error" id="err-${name}">([^<]*)</span>`).exec(body.slice(end));
  assert.equal(/aria-describedby="([^"]*)"/.exec(open[0])?.[1]?.split(' ').includes(`err-${name}`) ?? false, message !== null, `${name} is described by its message`);
  return message ? message[1]! : null;
}

/** The reviewers' decisions on the demo valid split's six items as the form sends them, by the test's plan. */
const editForm = (csrf: string, record: Record<string, unknown>, change: Partial<{ question: string; options: string[]; explanation: string }>, fields: Record<string, string> = {}) => {
  const text = { ...editableText(record), ...change };
  return form(csrf, { decision: 'edit', edit_question: text.question, edit_a: text.options[0]!, edit_b: text.options[1]!, edit_c: text.options[2]!, edit_d: text.options[3]!, edit_answer: text.answer, edit_explanation: text.explanation, ...fields });
};

for (const dialect of DIALECTS) {
  test(`review routes (${dialect}): disagreement is never resolved silently — accept vs edit, different edits and reject vs accept are disputed, listed on the report with the reason and a link to adjudicate; identical edits are edited`, { timeout: 120_000 }, async () => {
    const board = await demoBoard(dialect, cluster.get);
    const { app, store } = board;
    try {
      await reviewAccounts(store, ['ana', 'ben']);
      const { queue } = await createReviewQueue(store, 'test', { data: DEMO_DATASET, splits: ['valid'], title: 'Disputes', reviewersPerItem: 2, reviewers: ['ana@lab.org', 'ben@lab.org'] });
      const records = (await reviewItems(store, queue.id)).map((i) => JSON.parse(i.record_json) as Record<string, unknown>);
      const base = `/reviews/${queue.id}`;
      const ana = await signIn(app, 'ana@lab.org');
      const ben = await signIn(app, 'ben@lab.org');
      const admin = await signIn(app, 'admin@lab.org');
      const post = (who: { cookie: string }, url: string, payload: Record<string, string>) => app.inject({ method: 'POST', url, headers: { cookie: who.cookie }, payload });
      // Item k: ana's form, ben's form.
      const plan: [Record<string, string>, Record<string, string>][] = [
        [form(ana.csrf), editForm(ben.csrf, records[0]!, { question: 'Is the heart enlarged on this radiograph?' })],
        [editForm(ana.csrf, records[1]!, { question: 'Ana rewrote this question?' }), editForm(ben.csrf, records[1]!, { question: 'Ben rewrote this question?' })],
        [form(ana.csrf, { decision: 'reject', reason: 'other', note: 'Asks about a <b>prior</b> & needs one' }), form(ben.csrf)],
        [editForm(ana.csrf, records[3]!, { explanation: 'Both reviewers wrote this same explanation.' }), editForm(ben.csrf, records[3]!, { explanation: '  Both reviewers wrote this same explanation. ' })],
        [form(ana.csrf), form(ben.csrf)],
        [form(ana.csrf, { decision: 'reject', reason: 'several-valid-answers' }), editForm(ben.csrf, records[5]!, { question: 'Ben only edits this one?' })],
      ];
      for (const [k, [a, b]] of plan.entries()) {
        for (const [who, payload] of [[ana, a], [ben, b]] as const) assert.equal((await post(who, `${base}/items/${k + 1}`, payload)).statusCode, 303, `item ${k + 1}`);
      }
      const state = await queueState(store, (await reviewQueueById(store, queue.id))!);
      assert.deepEqual(state.resolved.map((r) => [r.status, r.dispute]), [
        ['disputed', 'accept vs edit'], ['disputed', 'different edits'], ['disputed', 'reject vs accept'], ['edited', null], ['accepted', null], ['disputed', 'reject vs edit'],
      ]);
      assert.equal(state.resolved[3]!.record.correct_answer_explanation, 'Both reviewers wrote this same explanation.');
      assert.deepEqual([state.resolved[0]!.record, state.resolved[1]!.record], [records[0], records[1]], 'a disputed item stands as queued: no edit goes in on one reviewer\'s word');

      const report = await app.inject({ url: `${base}/report`, headers: { cookie: admin.cookie } });
      assert.equal(report.statusCode, 200);
      const rows = [...report.body.matchAll(/<tr><td class="num">(\d+)<\/td><td>[^]*?<td class="dispute">([^<]+)<\/td><td>([^<]*)<\/td><td><a href="([^"]+)" aria-label="Adjudicate item \d+">Adjudicate<\/a><\/td><\/tr>/g)].map((m) => [m[1], m[2], m[3], m[4]]);
      assert.deepEqual(rows, [
        ['1', 'accept vs edit', 'Ana: accept; Ben: edit', `${base}/items/1`],
        ['2', 'different edits', 'Ana: edit; Ben: edit', `${base}/items/2`],
        ['3', 'reject vs accept', 'Ana: reject (other), note: “Asks about a &lt;b&gt;prior&lt;/b&gt; &amp; needs one”; Ben: accept', `${base}/items/3`],
        ['6', 'reject vs edit', 'Ana: reject (several-valid-answers); Ben: edit', `${base}/items/6`],
      ]);
      assert.match(report.body, /<th>Disagreement<\/th>/);
      // Accepted, edited, retired, disputed, pending.
      assert.deepEqual([...report.body.matchAll(/<tr><td>[^<]+<\/td><td class="num">(\d+)<\/td><td class="num">[\d.—]+<\/td><\/tr>/g)].map((m) => m[1]).slice(0, 5), ['1', '1', '0', '4', '0']);

      // The adjudication page shows both edits; the admin's edit settles the item and it leaves the list.
      const adjudicate = await app.inject({ url: `${base}/items/2`, headers: { cookie: admin.cookie } });
      assert.ok(adjudicate.body.includes('Ana rewrote this question?') && adjudicate.body.includes('Ben rewrote this question?'));
      const ruled = await post(admin, `${base}/items/2`, editForm(admin.csrf, records[1]!, { question: 'The admin settles this question?' }));
      assert.deepEqual([ruled.statusCode, ruled.headers.location], [303, `${base}/report`]);
      const after = await app.inject({ url: `${base}/report`, headers: { cookie: admin.cookie } });
      assert.deepEqual([...after.body.matchAll(/aria-label="Adjudicate item (\d+)"/g)].map((m) => m[1]), ['1', '3', '6']);
      const version = await createReviewVersion(store, 'admin@lab.org', queue.id, { disputed: 'retire', pending: 'keep' });
      assert.deepEqual(version.items.map((x) => [x.status, x.included, x.dispute, String(x.record.question).slice(0, 32)]), [
        ['disputed', false, 'accept vs edit', String(records[0]!.question).slice(0, 32)],
        ['edited', true, null, 'The admin settles this question?'],
        ['disputed', false, 'reject vs accept', String(records[2]!.question).slice(0, 32)],
        ['edited', true, null, String(records[3]!.question).slice(0, 32)],
        ['accepted', true, null, String(records[4]!.question).slice(0, 32)],
        ['disputed', false, 'reject vs edit', String(records[5]!.question).slice(0, 32)],
      ]);
    } finally {
      await board.close();
    }
  });

  test(`review routes (${dialect}): the second reviewer of a shared item never sees the first one's decision, ratings, note, category or edited text on any page they can reach`, { timeout: 120_000 }, async () => {
    const board = await demoBoard(dialect, cluster.get);
    const { app, store } = board;
    try {
      await reviewAccounts(store, ['ana', 'ben']);
      const { queue } = await createReviewQueue(store, 'test', { data: DEMO_DATASET, splits: ['valid'], title: 'Blind second opinion', reviewersPerItem: 2, reviewers: ['ana@lab.org', 'ben@lab.org'] });
      const items = await reviewItems(store, queue.id);
      const base = `/reviews/${queue.id}`;
      const ana = await signIn(app, 'ana@lab.org');
      const ben = await signIn(app, 'ben@lab.org');
      // Ana decides every item first, with text found nowhere else: edits on even items, rejections with a note on odd ones.
      const marks = ['Zanzibarquux', 'Ana-note-Qwyxx', 'AnaCategoryVrrb'];
      for (const item of items) {
        const k = item.position + 1;
        const fields = { clinical_quality: '1', explanation_clarity: '2', factual_correctness: '1', image_alignment: '2', difficulty: 'hard', category: `AnaCategoryVrrb ${k}`, note: `Ana-note-Qwyxx ${k}` };
        const payload = item.position % 2 === 0
          ? editForm(ana.csrf, JSON.parse(item.record_json) as Record<string, unknown>, { question: `Zanzibarquux question ${k}?`, explanation: `Zanzibarquux explanation of item ${k}, long enough.` }, fields)
          : form(ana.csrf, { ...fields, decision: 'reject', reason: 'other' });
        assert.equal((await app.inject({ method: 'POST', url: `${base}/items/${k}`, headers: { cookie: ana.cookie }, payload })).statusCode, 303);
      }
      assert.equal(Number((await store.db.selectFrom('review_decisions').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n), 6);

      const start = ['/reviews', base, ...items.map((i) => `${base}/items/${i.position + 1}`), `${base}/report`, `${base}/versions/1/export.json`, `${base}/versions/1/review-version.json`];
      const look = async (expectChecked: (url: string) => string[]) => {
        const pages = await crawl(app, start, () => ({ cookie: ben.cookie }), (url) => url.startsWith('/read/'));
        assert.ok(pages.filter((p) => /\/items\/\d+$/.test(p.url)).length === 6 && pages.every((p) => !/\/items\/\d+$/.test(p.url) || p.status === 200), 'ben reaches all six shared items');
        for (const page of pages) {
          for (const mark of marks) assert.ok(!page.body.includes(mark), `${page.url} shows ana's ${mark}`);
          if (/\/items\/\d+$/.test(page.url)) {
            // No control of the form is set from ana's decision: only ben's own values are checked.
            const checked = [...page.body.matchAll(/<input type="radio" name="(\w+)" value="(\w+)" checked/g)].map((m) => `${m[1]}=${m[2]}`);
            assert.deepEqual(checked, expectChecked(page.url), `${page.url}: checked controls`);
            assert.doesNotMatch(page.body, /id="reviewer-decisions"|adjudication/, `${page.url} is ben's own review form`);
          }
        }
        return pages;
      };
      const pages = await look(() => []);
      const queuePage = pages.find((p) => p.url === base)!;
      assert.deepEqual([...queuePage.body.matchAll(/<td>(to do|accept|edit|reject)<\/td><\/tr>/g)].map((m) => m[1]), Array(6).fill('to do'), 'the queue page shows ben\'s own state');
      assert.match(queuePage.body, /Decided 0 of 6/);
      assert.match(pages.find((p) => p.url === '/reviews')!.body, new RegExp(`<a href="${base}">Blind second opinion</a></td><td class="num">6</td><td class="num">0</td>`));
      assert.ok(pages.filter((p) => p.url.endsWith('/report') || p.url.includes('/versions/')).every((p) => p.status === 404));

      // Once ben decided item 1 himself, his page shows his own ratings, still nothing of ana's.
      assert.equal((await app.inject({ method: 'POST', url: `${base}/items/1`, headers: { cookie: ben.cookie }, payload: form(ben.csrf) })).statusCode, 303);
      await look((url) => (url.endsWith('/items/1') ? ['clinical_quality=4', 'explanation_clarity=4', 'factual_correctness=5', 'image_alignment=3', 'difficulty=medium', 'decision=accept'] : []));
    } finally {
      await board.close();
    }
  });

  test(`review routes (${dialect}): an admin who also reviews a queue gets its report, versions and downloads only after deciding their own items`, { timeout: 120_000 }, async () => {
    const board = await demoBoard(dialect, cluster.get);
    const { app, store } = board;
    try {
      await reviewAccounts(store, ['ana']);
      const { queue } = await createReviewQueue(store, 'test', { data: DEMO_DATASET, splits: ['valid'], title: 'Admin reviews too', reviewersPerItem: 2, reviewers: ['ana@lab.org', 'admin@lab.org'] });
      const items = await reviewItems(store, queue.id);
      const base = `/reviews/${queue.id}`;
      const ana = await signIn(app, 'ana@lab.org');
      const admin = await signIn(app, 'admin@lab.org');
      const get = (url: string) => app.inject({ url, headers: { cookie: admin.cookie } });
      for (const item of items) {
        const payload = editForm(ana.csrf, JSON.parse(item.record_json) as Record<string, unknown>, { question: `Anaedit-Plover question ${item.position + 1}?` }, { note: 'Ana-note-Plover' });
        assert.equal((await app.inject({ method: 'POST', url: `${base}/items/${item.position + 1}`, headers: { cookie: ana.cookie }, payload })).statusCode, 303);
      }
      // A version made earlier (e.g. by another admin): its download would show ana's edits too.
      await createReviewVersion(store, 'other@lab.org', queue.id, { disputed: 'keep', pending: 'keep' });

      const refused = await get(`${base}/report`);
      assert.equal(refused.statusCode, 403);
      assert.match(refused.body, /<p class="problems" role="alert" id="own-items-first">You review 6 items of this queue with other reviewers: decide your own 6 items first\./);
      assert.match(refused.body, new RegExp(`<a class="button" id="continue" href="${base}/items/1">Continue with item 1</a>`));
      const made = await app.inject({ method: 'POST', url: `${base}/versions`, headers: { cookie: admin.cookie }, payload: { _csrf: admin.csrf, include_disputed: '1', pending: 'keep' } });
      assert.equal(made.statusCode, 403);
      assert.equal(Number((await store.db.selectFrom('review_versions').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n), 1, 'no version made');
      for (const url of [`${base}/versions/1/export.json`, `${base}/versions/1/export.json?split=valid`, `${base}/versions/1/review-version.json`]) {
        const res = await get(url);
        assert.equal(res.statusCode, 403, url);
        assert.equal((JSON.parse(res.body) as { error: string }).error, 'decide-own-items-first');
      }
      // Nothing of ana's anywhere the admin can reach while deciding.
      const crawled = await crawl(app, ['/reviews', base, ...items.map((i) => `${base}/items/${i.position + 1}`), `${base}/report`, `${base}/versions/1/export.json`, `${base}/versions/1/review-version.json`], () => ({ cookie: admin.cookie }), (url) => url.startsWith('/read/') || url.startsWith('/admin') || url.startsWith('/studies'));
      for (const page of crawled) assert.ok(!page.body.includes('Anaedit-Plover') && !page.body.includes('Ana-note-Plover'), `${page.url} shows ana's decision`);

      for (const item of items.slice(0, 5)) assert.equal((await app.inject({ method: 'POST', url: `${base}/items/${item.position + 1}`, headers: { cookie: admin.cookie }, payload: form(admin.csrf) })).statusCode, 303);
      assert.match((await get(`${base}/report`)).body, /decide your own 1 item first\..*href="[^"]+\/items\/6">Continue with item 6/s);
      assert.equal((await app.inject({ method: 'POST', url: `${base}/items/6`, headers: { cookie: admin.cookie }, payload: form(admin.csrf) })).statusCode, 303);
      const open = await get(`${base}/report`);
      assert.equal(open.statusCode, 200);
      assert.match(open.body, /Decisions made 12 of 12/);
      assert.equal((await get(`${base}/versions/1/export.json`)).statusCode, 200);
      assert.equal((await app.inject({ method: 'POST', url: `${base}/versions`, headers: { cookie: admin.cookie }, payload: { _csrf: admin.csrf, include_disputed: '1', pending: 'keep' } })).statusCode, 303);
      // An admin who reviews nothing in a queue is never held back, nor one whose items nobody else reviews (as the demo's host).
      const other = await createReviewQueue(store, 'test', { data: DEMO_DATASET, splits: ['valid'], title: 'Ana alone', reviewersPerItem: 1, reviewers: ['ana@lab.org'] });
      assert.equal((await get(`/reviews/${other.queue.id}/report`)).statusCode, 200);
      const alone = await createReviewQueue(store, 'test', { data: DEMO_DATASET, splits: ['valid'], title: 'Admin alone', reviewersPerItem: 1, reviewers: ['admin@lab.org'] });
      assert.equal((await get(`/reviews/${alone.queue.id}/report`)).statusCode, 200);
      // Items split between the admin and ana (one reviewer each): nothing shared, nothing held back.
      const split = await createReviewQueue(store, 'test', { data: DEMO_DATASET, splits: ['valid'], title: 'Split', reviewersPerItem: 1, reviewers: ['ana@lab.org', 'admin@lab.org'] });
      assert.equal((await get(`/reviews/${split.queue.id}/report`)).statusCode, 200);
    } finally {
      await board.close();
    }
  });
}

test('review item page: the difficulty and category pre-filled from the question say so next to them, until the reviewer has decided', () => {
  const record = { question: 'Is there a pleural effusion?', options: ['A. Yes, small', 'B. Yes, large', 'C. No effusion', 'D. Cannot be determined'], correct_answer: 'C', correct_answer_explanation: 'The findings state that there is no pleural effusion.', difficulty: 'hard', category: 'Pleura' };
  const page = (decided: boolean, values = formValues(record, null)) => itemPage({
    queue: { id: 'q1', title: 'Queue' } as ReviewQueue, k: 1, total: 1, prevK: null, nextK: null, questionId: 'q1', split: 'test', record, reportText: null, views: [], mode: 'review',
    values, decided, problems: [], message: null, saved: false, others: [], dispute: null, csrf: 'token',
  }).text;
  const fresh = page(false);
  assert.match(fresh, /<fieldset class="choices inline" id="field-difficulty" aria-describedby="hint-difficulty"><legend>Difficulty<\/legend>\s*<p class="hint" id="hint-difficulty">Pre-filled from the generator \(hard\): check it\.<\/p>/);
  assert.match(fresh, /<input type="radio" name="difficulty" value="hard" checked>/);
  assert.match(fresh, /<span class="hint" id="hint-category">pre-filled from the question: check it<\/span>\s*<input name="category" id="field-category" maxlength="120" required aria-describedby="hint-category" value="Pleura">/);
  // Ratings: each radio right before its own number; the legends say what 1 and 5 mean.
  assert.match(fresh, /<legend>Clinical quality <span class="scale">\(1 poor – 5 excellent\)<\/span><\/legend>/);
  assert.match(fresh, /<label class="rating"><input type="radio" name="clinical_quality" value="1"> 1<\/label><label class="rating">/);
  // Save-and-next comes first in the page as on the screen (no reversed row).
  assert.match(fresh, /<div class="review-actions"><button type="submit" name="go" value="next" id="save-next" class="button">Save and go to the next item<\/button> <button type="submit" name="go" value="stay" id="save-stay" class="button secondary">Save<\/button><\/div>/);
  // Once decided (even with the same values), or with another difficulty chosen, no hint.
  assert.doesNotMatch(page(true), /hint-difficulty|hint-category/);
  assert.doesNotMatch(page(false, { ...formValues(record, null), difficulty: 'easy', category: 'Other' }), /hint-difficulty|hint-category/);
});
