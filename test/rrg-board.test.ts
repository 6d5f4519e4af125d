import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { importReportedRrg } from '../src/board/import-reported-rrg.js';
import { loadRrgBenchmarkFromFile } from '../src/board/load-rrg.js';
import { scoringHandler } from '../src/board/scoring-job.js';
import { SCORING_QUEUE } from '../src/jobs/queue.js';
import { sentenceBleu } from '../src/rrg/bleu.js';
import { rexrankTokens } from '../src/rrg/tokenize.js';
import { createApp } from '../src/server/create-app.js';
import { crawl } from './helpers/crawl.js';
import { DIALECTS, freshStore, lazyCluster, settled, signUp, testQueue, tokenFor, uploadForm } from './helpers/board.js';
import { startFakeScoringService } from './helpers/fake-scoring-service.js';
import { tempDir } from './helpers/records.js';

const cluster = lazyCluster();
after(() => cluster.stop());

const FINDINGS = ['Small left pleural effusion.', 'No pneumothorax. Heart size normal.', 'Cardiomegaly with mild edema.', 'Right lower lobe consolidation.', 'Normal chest radiograph.'];
/** A test set whose every reference carries a marker, so a leak of any of them is found by text search. */
function testSet(n: number): Record<string, Record<string, unknown>> {
  return Object.fromEntries(Array.from({ length: n }, (_, i) => [`study-${i}`, {
    image_path: [`deid_png/p${i}/s${i}/view1.png`], key_image_path: `deid_png/p${i}/s${i}/view1.png`, frontal_lateral: ['Frontal'], context: 'Cough.',
    section_findings: `${FINDINGS[i % FINDINGS.length]} HIDDENREF${i}X`, section_impression: i % 3 === 0 ? 'None' : `Impression ${i}.`, report: `full report HIDDENREF${i}X`,
  }]));
}

for (const dialect of DIALECTS) {
  test(`report-generation board (${dialect}): hidden references, uploads checked by id before storing, scored off the request, ranked, reported rows, limits, no reference anywhere`, { timeout: 180_000 }, async () => {
    const service = await startFakeScoringService();
    const store = await freshStore(dialect, cluster.get);
    const file = join(tempDir(), 'iu-test.json');
    const set = testSet(12);
    writeFileSync(file, JSON.stringify(set));
    const broken = join(tempDir(), 'broken.json');
    writeFileSync(broken, JSON.stringify({ ...set, bad: { section_findings: 'None', section_impression: null } }));
    await assert.rejects(loadRrgBenchmarkFromFile(store, 'test', broken, 'findings', { slug: 'x', title: 'x', version: '1', dailyLimit: 1, totalLimit: 5, open: true }), /study bad: no reference text for the findings track/);
    assert.equal((await store.db.selectFrom('benchmarks').selectAll().execute()).length, 0, 'nothing half-stored');
    const benchmark = await loadRrgBenchmarkFromFile(store, 'test', file, 'findings', { slug: 'iu-findings', title: 'IU X-ray findings (synthetic)', version: '1', dailyLimit: 2, totalLimit: 5, open: true });
    const queue = await testQueue(store);
    const score = { resamples: 200, seed: 0, minPublicCell: 2, strict: false };
    await queue.work(SCORING_QUEUE, scoringHandler(store, 'test-worker', score), { pollMs: 50 });
    const app = createApp({ store, queue }, { score, log: { level: 'silent' } });
    await app.ready();
    try {
      const session = await signUp(app, 'rrg@lab.org', 'RRG lab');
      const token = await tokenFor(app, session);
      const upload = (content: string, name: string, model: string) => app.inject({ method: 'POST', url: '/api/benchmarks/iu-findings/submissions', headers: { authorization: `Bearer ${token}` }, payload: uploadForm({ name, content }, { model: JSON.stringify({ name: model }) }) });
      // ids that do not match: every problem listed, nothing stored
      const wrong = await upload(JSON.stringify({ 'study-0': { model_prediction: 'x' }, other: { model_prediction: 'y' } }), 'p.json', 'Wrong');
      assert.equal(wrong.statusCode, 400);
      assert.match(wrong.body, /11 studies of the references have no prediction: study-1, study-2/);
      assert.match(wrong.body, /1 predicted study is not in the references: other/);
      assert.doesNotMatch(wrong.body, /HIDDENREF/);
      assert.equal((await store.db.selectFrom('submissions').selectAll().execute()).length, 0);
      // a real upload: half the studies answered with the findings' first sentence, one left empty
      const predictions = Object.fromEntries(Object.keys(set).map((id, i) => [id, { model_prediction: i === 11 ? '' : FINDINGS[i % FINDINGS.length] }]));
      const ok = await upload(JSON.stringify(predictions), 'preds.json', 'ToyRRG');
      assert.equal(ok.statusCode, 202, ok.body);
      const id = (ok.json() as { submission: string }).submission;
      assert.equal((await settled(store, id)).state, 'scored');
      const page = await app.inject({ url: '/b/iu-findings' });
      // Without a scoring service nothing has the board's ranking metric: the entry is listed, not ranked, and never by BLEU-2.
      assert.match(page.body, /This board has no scoring service for the model-based metrics, so no entry here has it: they are listed under “Not ranked: 1\/RadCliQ-v1 not computed”, by BLEU-2, after every row that has 1\/RadCliQ-v1 — never ranked by another metric\./);
      assert.match(page.body, /<tbody id="not-ranked"><tr class="group"><th scope="rowgroup" colspan="7"><span class="group-label">Not ranked: 1\/RadCliQ-v1 not computed — listed by BLEU-2<\/span><\/th><\/tr><tr class="participant" data-id="[^"]+"><td class="num">—<\/td><td class="model"><a href="\/entries\/[^"]+">ToyRRG<\/a>/);
      assert.doesNotMatch(page.body, /<tbody id="ranked">/);
      const placed = await app.inject({ url: `/submissions/${id}`, headers: { cookie: session.cookie } });
      assert.match(placed.body, /<p id="placed" role="status">Not ranked: <strong>1\/RadCliQ-v1 not computed<\/strong> \(scored without the model-based metrics\); BLEU-2 \d\.\d{3}\.<\/p>/);
      const expected = Object.keys(set).map((sid, i) => sentenceBleu([rexrankTokens(String(set[sid]!.section_findings))], rexrankTokens(i === 11 ? '' : FINDINGS[i % FINDINGS.length]!))).reduce((a, b) => a + b, 0) / 12;
      assert.ok(page.body.includes(`<td class="num">${expected.toFixed(3)}<span class="ci">`), `BLEU-2 ${expected.toFixed(3)} with its interval`);
      assert.match(page.body, /title="needs the model-based metrics">not computed</, '1/RadCliQ-v1 is not computed without a service');
      assert.match(page.body, /<td class="num">1<span class="ci"> of 12<\/span><\/td>/, 'one empty report counted');
      // with the board's scoring service the model metrics and 1/RadCliQ-v1 come in
      process.env.CXRBENCH_RRG_SERVICE = service.url;
      const second = await upload(JSON.stringify(Object.fromEntries(Object.keys(set).map((sid) => [sid, { model_prediction: String(set[sid]!.section_findings).replace(/HIDDENREF\d+X/, '') }]))), 'better.json', 'CopyRRG');
      assert.equal(second.statusCode, 202, second.body);
      assert.equal((await settled(store, (second.json() as { submission: string }).submission)).state, 'scored');
      delete process.env.CXRBENCH_RRG_SERVICE;
      assert.ok(service.calls.includes('/bertscore') && service.calls.includes('/radgraph'));
      const after = await app.inject({ url: '/b/iu-findings' });
      assert.match(after.body, /BERTScore/);
      assert.ok(service.calls.includes('/ratescore'), 'RaTEScore asked of the board\'s service');
      const copy = ((await app.inject({ url: '/api/benchmarks/iu-findings/leaderboard' })).json() as { entries: { model: { name: string }; metrics: { metrics: Record<string, { mean: number }> } }[] }).entries.find((e) => e.model.name === 'CopyRRG');
      assert.ok(copy?.metrics.metrics.ratescore, 'the entry stores RaTEScore');
      assert.ok(after.body.includes(`<td class="num">${copy.metrics.metrics.ratescore.mean.toFixed(3)}<span class="ci">`), 'the RaTEScore column shows it with its interval');
      assert.match(after.body, /1 of 2 entries were scored without the model-based metrics \(rescore them with a scoring service to rank them\)/, 'a board with entries of both kinds says which are not ranked');
      const order = [...after.body.matchAll(/<a href="\/entries\/[^"]+">([^<]+)<\/a>/g)].map((m) => m[1]);
      assert.deepEqual(order.slice(0, 2), ['CopyRRG', 'ToyRRG']);
      // the limits are the VQA board's: two a day
      const third = await upload(JSON.stringify(predictions).replace('"study-0":{"model_prediction":"', '"study-0":{"model_prediction":"again '), 'p3.json', 'Third');
      assert.equal(third.statusCode, 429);
      // ReXrank's published rows, marked and not ranked
      assert.equal(await importReportedRrg(store, 'test', benchmark, join(import.meta.dirname, 'fixtures', 'rexrank-v1', 'published.json'), 'IU-Xray', 'Findings'), 24);
      const withReported = await app.inject({ url: '/b/iu-findings' });
      assert.equal([...withReported.body.matchAll(/reported, not verified here<\/span>/g)].length, 24);
      // The order: the ranked entry, the published rows by their 1/RadCliQ-v1, then the entry without it — never above them.
      const api = ((await app.inject({ url: '/api/benchmarks/iu-findings/leaderboard' })).json() as { entries: { model: { name: string }; rank: number | null; unranked: string | null; kind: string; reported: { inv_radcliq_v1: number | null } | null }[] }).entries;
      const published = api.filter((e) => e.kind === 'reported');
      const withRadcliq = published.filter((e) => e.reported!.inv_radcliq_v1 !== null).sort((a, b) => b.reported!.inv_radcliq_v1! - a.reported!.inv_radcliq_v1!);
      assert.deepEqual(api.map((e) => [e.model.name, e.rank, e.unranked]), [
        ['CopyRRG', 1, null],
        ...withRadcliq.map((e) => [e.model.name, null, null]),
        ...api.filter((e) => e.unranked !== null || (e.kind === 'reported' && e.reported!.inv_radcliq_v1 === null)).map((e) => [e.model.name, null, e.unranked]),
      ]);
      assert.deepEqual(api.slice(-1).map((e) => [e.model.name, e.unranked]), [['ToyRRG', '1/RadCliQ-v1 not computed']]);
      assert.match(withReported.body, /RaTEScore/);
      // nothing anywhere gives a reference away: pages, API, entries, the studies' inputs
      const pages = await crawl(app, ['/', '/b/iu-findings', '/b/iu-findings/submit', '/api/benchmarks/iu-findings/leaderboard', '/api/benchmarks/iu-findings/questions', `/entries/${id}`, `/submissions/${id}`, '/submissions', '/api/submissions', '/b/iu-findings/categories'], (url): Record<string, string> => (url.startsWith('/api/') ? { authorization: `Bearer ${token}` } : { cookie: session.cookie }));
      for (const p of pages) {
        assert.doesNotMatch(p.body, /HIDDENREF|section_findings|Impression \d+\./, p.url);
      }
      const inputs = (await app.inject({ url: '/api/benchmarks/iu-findings/questions' })).json() as Record<string, Record<string, unknown>>;
      assert.deepEqual(Object.keys(inputs['study-3']!).sort(), ['context', 'frontal_lateral', 'image_path', 'key_image_path']);
    } finally {
      delete process.env.CXRBENCH_RRG_SERVICE;
      await app.close();
      await queue.stop(5000);
      await store.close();
      await service.close();
    }
  });
}
