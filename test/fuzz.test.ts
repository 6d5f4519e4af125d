import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import fc from 'fast-check';
import { parsePredictions } from '../src/core/prediction-file.js';
import { detectLayout } from '../src/dataset/layout.js';
import { validateDataset } from '../src/dataset/validate.js';
import { extractAnswer } from '../src/extract/extract.js';
import { readReportPairs, TRACKS } from '../src/rrg/report-pairs.js';
import { DIALECTS, demoBoard, lazyCluster, signUp, tokenFor, uploadForm } from './helpers/board.js';
import { paramNames, routeFixture } from './helpers/route-fixture.js';
import { officialRecord, tempDir, writeOfficialDataset } from './helpers/records.js';
import { hostSession, openDemoStudy, readerCookie, readerCsrf } from './helpers/study.js';

/**
 * Property-based fuzzing of every parser and the upload route, in a fixed time budget per property (the runs
 * stop at the budget; the seed is printed on failure, to replay it: FC_SEED=<seed>). Each property asserts that
 * no exception escapes, that a time bound holds, and (for the route) that no hidden answer comes back.
 */
const BUDGET_MS = Number(process.env.CXRBENCH_FUZZ_MS ?? 6000);
const seed = process.env.FC_SEED !== undefined ? Number(process.env.FC_SEED) : Date.now() % 2_147_483_647;
const settings = (numRuns: number) => ({ numRuns, seed, interruptAfterTimeLimit: BUDGET_MS, markInterruptAsFailure: false });
const cluster = lazyCluster();
after(() => cluster.stop());

const OPTIONS = ['Left lower lobe', 'Right upper lobe', 'Bilateral', 'No consolidation'];
/** Pieces models print around answers: the fuzzer combines them with noise into hostile outputs. */
const PIECES = ['A', 'B', 'C', 'D', 'E', 'a', 'b', '(', ')', '{', '}', '[', ']', '"answer": "', '<answer>', '</answer>', '\\boxed{', '<think>', '</think>', '**', 'The answer is ', ' or ', ' and ', 'not ', 'Final answer: ',
  'option ', 'the second option', 'none of the above', 'Right upper lobe', 'I cannot determine', 'wait, actually ', '\n', '. ', ', ', '→ ', '答案是', '或', '<|im_end|>', 'USER: ', 'ASSISTANT: ', 'N/A', 'B/C', '\u200b', '\uFF22'];
const hostileOutput = fc.array(fc.oneof(fc.constantFrom(...PIECES), fc.string({ maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 20 })), { maxLength: 400, size: 'large' }).map((parts) => parts.join(''));

test('fuzz: the answer reader returns a letter A–D or none for any output, quickly, and reads nothing from text without letters', () => {
  fc.assert(fc.property(hostileOutput, fc.boolean(), (output, withOptions) => {
    const started = performance.now();
    const got = extractAnswer(output, withOptions ? OPTIONS : undefined);
    assert.ok(performance.now() - started < 250, `${output.length} chars took ${performance.now() - started} ms`);
    assert.ok(got.letter === null || ['A', 'B', 'C', 'D'].includes(got.letter));
    assert.equal(typeof got.rule, 'string');
  }), settings(3000));
  // Soundness: an output with no Latin letter, digit or look-alike capital cannot name an option.
  const noLetters = fc.string({ unit: fc.constantFrom(...' \n\t.,;:!?()[]{}<>*_#-—→…"\'/\\|@%^&=+~`。！？、，：；（）【】'.split('')), maxLength: 300 });
  fc.assert(fc.property(noLetters, (output) => {
    assert.equal(extractAnswer(output, OPTIONS).letter, null, JSON.stringify(output));
  }), settings(2000));
});

test('fuzz: the predictions-file parser lists problems for any file, in every format, and never throws', () => {
  const line = fc.oneof(fc.json(), fc.string({ maxLength: 80 }), fc.record({ id: fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.constant(null)), prediction: fc.oneof(fc.string({ maxLength: 30 }), fc.integer(), fc.constant(null), fc.array(fc.string())) }).map((r) => JSON.stringify(r)));
  const file = fc.tuple(fc.array(line, { maxLength: 60, size: 'large' }), fc.constantFrom('\n', '\r\n'), fc.boolean()).map(([lines, eol, bom]) => `${bom ? '\uFEFF' : ''}${lines.join(eol)}`);
  fc.assert(fc.property(file, fc.constantFrom('jsonl', 'csv', 'rexrank-json' as const), (text, format) => {
    const started = performance.now();
    const parsed = parsePredictions(text, format as 'jsonl' | 'csv' | 'rexrank-json');
    assert.ok(performance.now() - started < 250);
    for (const p of parsed.problems) assert.equal(typeof p.message, 'string');
    for (const [id, prediction] of parsed.predictions) assert.ok(typeof id === 'string' && typeof prediction === 'string');
  }), settings(3000));
});

test('fuzz: the dataset validator reports on any mutated ReXVQA file and never throws', async () => {
  const base = JSON.stringify(Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`q${i}`, officialRecord({ study_id: `s${i}`, question: `Question ${i}?` })])), null, 1);
  const mutation = fc.array(fc.record({ at: fc.nat(), kind: fc.constantFrom('delete', 'insert', 'replace', 'truncate'), text: fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('NaN', 'None', '"', '{', '}', '[', ']', ',', ':', '\\', 'null', '1e999', '"options": "[]"', '\u0000')) }), { minLength: 1, maxLength: 8 });
  const root = tempDir();
  await fc.assert(fc.asyncProperty(mutation, async (edits) => {
    let text = base;
    for (const e of edits) {
      const at = e.at % (text.length + 1);
      text = e.kind === 'delete' ? text.slice(0, at) + text.slice(at + 5) : e.kind === 'insert' ? text.slice(0, at) + e.text + text.slice(at) : e.kind === 'replace' ? text.slice(0, at) + e.text + text.slice(at + e.text.length) : text.slice(0, at);
    }
    writeOfficialDataset({ test: text }, root);
    const started = performance.now();
    const report = await validateDataset(detectLayout(root));
    assert.ok(performance.now() - started < 2000);
    assert.equal(report.counts.questions + report.counts.excluded, report.counts.records);
  }), settings(600));
  writeFileSync(join(root, 'done'), '');
});

test('fuzz: the upload route answers any body with a status below 500, quickly, and never tells a hidden answer', { timeout: 120_000 }, async () => {
  const board = await demoBoard('sqlite', cluster.get, { uploadsPerWindow: 1_000_000 });
  try {
    const token = await tokenFor(board.app, await signUp(board.app, 'fuzz@lab.org', 'Fuzzers'));
    const ids = board.questions.map((q) => q.id);
    const golds = board.questions.map((q) => new RegExp(`"${q.id}"\\s*:\\s*\\{?[^}]{0,40}"(?:correct_answer|gold|answer)"\\s*:\\s*"${q.answer}"`));
    const explanations = board.questions.map((q) => q.explanation).filter((e): e is string => !!e && e.length > 20);
    const prediction = fc.oneof(fc.constantFrom('A', 'B', 'C', 'D', 'E', ''), hostileOutput);
    const predictionLine = fc.tuple(fc.oneof(fc.constantFrom(...ids), fc.string({ maxLength: 10 })), prediction).map(([id, p]) => JSON.stringify({ id, prediction: p }));
    const fileText = fc.oneof(fc.array(predictionLine, { maxLength: 30, size: 'large' }).map((l) => l.join('\n')), fc.string({ maxLength: 500 }), fc.json());
    const model = fc.oneof(fc.constant(JSON.stringify({ name: 'Fuzz', openWeights: true })), fc.json(), fc.string({ maxLength: 100 }));
    const rawBody = fc.tuple(fc.constantFrom('multipart/form-data', 'multipart/form-data; boundary=x', 'multipart/form-data; boundary=', 'application/json', 'text/plain', 'application/x-www-form-urlencoded'), fc.string({ maxLength: 300 }));
    await fc.assert(fc.asyncProperty(fc.oneof(
      fc.record({ kind: fc.constant('form' as const), file: fileText, model, name: fc.constantFrom('p.jsonl', 'p.csv', 'p.json', 'x') }),
      fc.record({ kind: fc.constant('raw' as const), body: rawBody }),
    ), async (input) => {
      const started = performance.now();
      const res = input.kind === 'form'
        ? await board.app.inject({ method: 'POST', url: '/api/benchmarks/demo/submissions', headers: { authorization: `Bearer ${token}` }, payload: uploadForm({ name: input.name, content: input.file }, { model: input.model }) })
        : await board.app.inject({ method: 'POST', url: '/api/benchmarks/demo/submissions', headers: { authorization: `Bearer ${token}`, 'content-type': input.body[0] }, payload: input.body[1] });
      assert.ok(res.statusCode < 500, `${res.statusCode}: ${res.body.slice(0, 300)}`);
      assert.ok(performance.now() - started < 2000);
      for (const g of golds) assert.doesNotMatch(res.body, g);
      for (const e of explanations) assert.ok(!res.body.includes(e));
    }), settings(400));
  } finally {
    await board.close();
  }
});

test('fuzz: the reader routes (autosave API, case form, invite link) answer any input below 500 and store only letters A–D', { timeout: 120_000 }, async () => {
  const board = await demoBoard('sqlite', cluster.get);
  try {
    const { created, tokens } = await openDemoStudy(board.store, 10, 1);
    const id = created.study.id;
    const cookie = await readerCookie(board.app, tokens[0]!);
    const csrf = await readerCsrf(board.app, id, cookie);
    const value = fc.oneof(fc.json(), fc.string({ maxLength: 50 }), fc.integer(), fc.double(), fc.constant(null), fc.constantFrom('A', 'B', 'C', 'D', 'E', ''));
    const saveBody = fc.oneof(
      fc.record({ position: fc.oneof(fc.integer({ min: -3, max: 40 }), value), answer: value, confidence: value, visitId: fc.oneof(fc.constant('fuzz-visit-01'), fc.string({ maxLength: 80 })), elapsedMs: fc.oneof(fc.nat(), value) }, { requiredKeys: [] }),
      fc.json(),
    );
    const formBody = fc.dictionary(fc.constantFrom('_csrf', 'answer', 'confidence', 'go', 'visit', 'elapsed', 'x'), fc.oneof(fc.string({ maxLength: 40 }), fc.constant(csrf), fc.constantFrom('A', 'next', 'prev', '3')));
    await fc.assert(fc.asyncProperty(fc.oneof(
      fc.record({ kind: fc.constant('save' as const), body: saveBody, goodCsrf: fc.boolean() }),
      fc.record({ kind: fc.constant('form' as const), k: fc.oneof(fc.integer({ min: -2, max: 14 }).map(String), fc.string({ maxLength: 12 })), body: formBody }),
      fc.record({ kind: fc.constant('link' as const), token: fc.string({ maxLength: 300 }) }),
    ), async (input) => {
      const res = input.kind === 'save'
        ? await board.app.inject({ method: 'POST', url: `/read/${id}/api/save`, headers: { cookie, 'x-csrf-token': input.goodCsrf ? csrf : 'nope', 'content-type': 'application/json' }, payload: typeof input.body === 'string' ? input.body : JSON.stringify(input.body) })
        : input.kind === 'form'
          ? await board.app.inject({ method: 'POST', url: `/read/${id}/case/${encodeURIComponent(input.k)}`, headers: { cookie }, payload: input.body })
          : await board.app.inject({ url: `/r/${encodeURIComponent(input.token)}` });
      assert.ok(res.statusCode < 500, `${res.statusCode}: ${res.body.slice(0, 300)}`);
    }), settings(500));
    // the host's forms: create a study, invite, settings — any values, a clear answer, never a crash
    const host = await hostSession(board.app, board.store);
    const hostForm = fc.dictionary(fc.constantFrom('title', 'benchmark', 'n', 'mode', 'task', 'seed', 'name', 'email', 'expires', 'allowEdits', 'action'), fc.oneof(fc.string({ maxLength: 60 }), fc.constantFrom('demo', '5', '-1', '1e9', 'random', 'stratified', 'on', 'open', 'close', '2030-01-01 10:00', '2030-02-31', 'a@b.c')));
    await fc.assert(fc.asyncProperty(fc.constantFrom('/studies', `/studies/${id}/invite`, `/studies/${id}/settings`, `/studies/${id}/state`), hostForm, async (url, body) => {
      const res = await board.app.inject({ method: 'POST', url, headers: { cookie: host.cookie }, payload: { ...body, _csrf: host.csrf } });
      assert.ok(res.statusCode < 500, `${url} ${JSON.stringify(body)} → ${res.statusCode}: ${res.body.slice(0, 300)}`);
    }), settings(300));
    const stored = await board.store.db.selectFrom('study_answers').select(['answer', 'confidence']).execute();
    for (const a of stored) {
      assert.match(a.answer, /^[ABCD]$/);
      assert.ok(a.confidence === null || (Number.isInteger(a.confidence) && a.confidence >= 1 && a.confidence <= 5));
    }
  } finally {
    await board.close();
  }
});

test('fuzz: the report-pairs reader (ReXrank RRG JSON and JSONL) never throws, and every pair it returns has text on both sides', () => {
  const value = fc.oneof(fc.string({ maxLength: 40 }), fc.constant(null), fc.constant('None'), fc.integer(), fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }));
  const record = fc.record({ model_prediction: value, section_findings: value, section_impression: value, report: value }, { requiredKeys: [] });
  const file = fc.oneof(
    fc.dictionary(fc.string({ maxLength: 12 }), fc.oneof(record, value)).map((o) => ({ name: 'p.json', text: JSON.stringify(o) })),
    fc.array(fc.record({ id: fc.oneof(fc.string({ maxLength: 8 }), fc.integer()), prediction: value, reference: value }, { requiredKeys: [] }), { maxLength: 10 }).map((lines) => ({ name: 'p.jsonl', text: lines.map((l) => JSON.stringify(l)).join('\n') })),
    fc.string({ maxLength: 300 }).map((text) => ({ name: fc.sample(fc.constantFrom('p.json', 'p.jsonl'), 1)[0]!, text })),
  );
  fc.assert(fc.property(file, fc.constantFrom(...TRACKS), fc.option(fc.dictionary(fc.string({ maxLength: 12 }), record).map((o) => JSON.stringify(o))), (f, track, refs) => {
    const read = readReportPairs(f.text, f.name, track, refs === null ? undefined : { content: refs, fileName: 'refs.json' });
    for (const pair of read.pairs) {
      assert.equal(typeof pair.prediction, 'string');
      assert.ok(typeof pair.reference === 'string' && pair.reference.trim().length > 0);
    }
    assert.ok(read.problems.every((p) => typeof p === 'string' && p.length < 2000));
  }), settings(3000));
});

/** Text a client may put anywhere: noise, graphemes, names of Object's prototype, numbers out of range, NUL bytes, long and odd Unicode. */
const hostileText = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom('__proto__', 'constructor', 'hasOwnProperty', 'toString', '..', '.', '%', '%00', '-1', '0', '1e999', 'NaN', 'Infinity', '', ' ', 'null', 'A', 'D', 'E', '5', 'close', 'open', 'next', 'prev', 'yes', 'key.jsonl', 'reader-1.jsonl', '\u0000', 'a\u0000b', '\uFEFF', '\u202Eevil', '𝔸𝔹', 'ｄｅｍｏ', '2030-02-31'),
  fc.nat({ max: 20_000 }).map((n) => 'x'.repeat(n)),
);
const FIELDS = ['_csrf', 'title', 'name', 'email', 'password', 'displayName', 'team', 'invite', 'next', 'answer', 'confidence', 'go', 'visit', 'elapsed', 'position', 'visitId', 'elapsedMs', 'benchmark', 'n', 'mode', 'task', 'seed', 'expires', 'allowEdits', 'action', 'confirm', 'decision', 'reason', 'difficulty', 'category', 'clinical_quality', 'note', 'split', 'model', 'organisation'];
const hasNul = (value: unknown): boolean => JSON.stringify(value).includes('\\u0000');

for (const dialect of DIALECTS) {
  test(`fuzz (${dialect}): every route answers hostile path parameters, queries and bodies from every kind of caller below 500, and a NUL byte anywhere with 400`, { timeout: 180_000 }, async () => {
    const board = await demoBoard(dialect, cluster.get, { uploadsPerWindow: 1_000_000, loginAttempts: 1_000_000 });
    try {
      const fixture = await routeFixture(board);
      const routes = fixture.routes.map((route) => ({ ...route, params: paramNames(route.url) }));
      const scalar = fc.oneof(hostileText, fc.integer(), fc.double(), fc.boolean(), fc.constant(null));
      const request = fc.record({
        route: fc.constantFrom(...routes),
        caller: fc.constantFrom(...fixture.callers),
        // per parameter: the real value (to get past the lookups) or hostile text
        params: fc.array(fc.option(hostileText, { freq: 2 }), { minLength: 4, maxLength: 4 }),
        query: fc.dictionary(fc.constantFrom('sort', 'dir', 'next', 'task', 'split', 'saved', 'q'), hostileText, { maxKeys: 3 }),
        body: fc.oneof(
          fc.record({ kind: fc.constant('form' as const), fields: fc.array(fc.tuple(fc.constantFrom(...FIELDS), hostileText), { maxLength: 8 }), csrf: fc.boolean() }),
          fc.record({ kind: fc.constant('json' as const), fields: fc.dictionary(fc.constantFrom(...FIELDS), fc.oneof(scalar, fc.array(scalar, { maxLength: 2 })), { maxKeys: 8 }), csrf: fc.boolean() }),
          fc.record({ kind: fc.constant('raw' as const), json: fc.json() }),
        ),
      });
      await fc.assert(fc.asyncProperty(request, async (r) => {
        const paramValues = new Map(r.route.params.map((name, i) => [name, r.params[i] ?? fixture.realParam(r.route.url, name)]));
        const search = new URLSearchParams(Object.entries(r.query)).toString();
        const url = fixture.fill(r.route.url, (name) => paramValues.get(name)!) + (search ? `?${search}` : '');
        const csrf = r.body.kind !== 'raw' && r.body.csrf && r.route.url !== '/logout' ? r.caller.csrf : null;
        const body = r.route.method === 'GET' ? undefined
          : r.body.kind === 'form' ? { type: 'application/x-www-form-urlencoded', text: new URLSearchParams([...(csrf ? [['_csrf', csrf] as [string, string]] : []), ...r.body.fields]).toString(), value: r.body.fields }
          : r.body.kind === 'json' ? { type: 'application/json', text: JSON.stringify({ ...r.body.fields, ...(csrf ? { _csrf: csrf } : {}) }), value: r.body.fields }
          : { type: 'application/json', text: r.body.json, value: JSON.parse(r.body.json) as unknown };
        const res = await board.app.inject({ method: r.route.method as 'GET', url, headers: { ...r.caller.headers, ...(body ? { 'content-type': body.type } : {}) }, ...(body ? { payload: body.text } : {}) });
        const shown = `${r.route.method} ${url.slice(0, 200)} as ${r.caller.name} ${body?.text.slice(0, 200) ?? ''} → ${res.statusCode}: ${res.body.slice(0, 300)}`;
        assert.ok(res.statusCode < 500, shown);
        // A path parameter over the router's length limit (100) is refused first, with 414.
        const tooLong = [...paramValues.values()].some((v) => encodeURIComponent(v).length > 100);
        if (hasNul([[...paramValues.values()], r.query, body?.value])) assert.ok(res.statusCode === 400 || (tooLong && res.statusCode === 414), shown);
      }), settings(3000));
    } finally {
      await board.close();
    }
  });
}
