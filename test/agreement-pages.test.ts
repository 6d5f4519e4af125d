/// <reference lib="dom" />
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { DEMO_DATASET } from '../src/cli/commands/demo-dataset.js';
import { GREYED_CELL } from '../src/report/charts.js';
import { createReviewQueue } from '../src/review/create-queue.js';
import { saveDecision } from '../src/review/decision.js';
import { studyItems } from '../src/store/studies.js';
import { saveAnswer } from '../src/store/study-answers.js';
import { studyReaders } from '../src/store/study-readers.js';
import { demoBoard, DIALECTS, lazyCluster } from './helpers/board.js';
import { launchChromium, seriousViolations } from './helpers/browser.js';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/records.js';
import { decisionInput, reviewAccounts, signIn } from './helpers/review.js';
import { hostSession, openDemoStudy } from './helpers/study.js';

const cluster = lazyCluster();
after(() => cluster.stop());

/** The text written in an SVG's cells, in document order. */
const svgTexts = (svg: string) => [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]!);

const UNDEFINED_ONE = 'undefined: one same answer on all 1 item(s) (expected agreement 1)';

for (const dialect of DIALECTS) {
  test(`agreement pages (${dialect}): two raters sharing one case on which they agree show "—", greyed, never 1.00 — study results, its heatmap, the review report`, { timeout: 120_000 }, async () => {
    const board = await demoBoard(dialect, cluster.get);
    try {
      // Reader 1 answers all 12 cases right; reader 2 answers only the first case, as reader 1 did.
      const { created } = await openDemoStudy(board.store, 12, 2);
      const id = created.study.id;
      const items = await studyItems(board.store, id);
      const [r1, r2] = await studyReaders(board.store, id);
      const save = (reader: typeof r1, position: number) => saveAnswer(board.store, reader!, { position, answer: items[position]!.gold as 'A', confidence: null, visitId: `v-${reader!.id}-${position}`, elapsedMs: 1000, clientAt: null });
      for (const item of items) await save(r1, item.position);
      await save(r2, 0);
      const host = await hostSession(board.app, board.store);
      const page = await board.app.inject({ url: `/studies/${id}/results`, headers: { cookie: host.cookie } });
      assert.equal(page.statusCode, 200);
      const all = /<caption>All cases<\/caption>[\s\S]*?<\/table>/.exec(page.body)![0];
      const rows = [...all.matchAll(/<tr><th>([^<]+)<\/th>(.*?)<\/tr>/g)].map((m) => [m[1], ...[...m[2]!.matchAll(/<td([^>]*)>(.*?)<\/td>/g)].map((c) => `${c[1]}|${c[2]}`)]);
      assert.deepEqual(rows, [
        ['Reader 1', ' class="num"|1.00 <span class="ci">n=12</span>', ` class="num few" title="${UNDEFINED_ONE}"|— <span class="ci">n=1</span>`],
        ['Reader 2', ` class="num few" title="${UNDEFINED_ONE}"|— <span class="ci">n=1</span>`, ` class="num few" title="${UNDEFINED_ONE}"|— <span class="ci">n=1</span>`],
      ]);
      assert.match(page.body, /Fleiss' kappa of everyone: — \(undefined\) on 1 case\(s\)/);
      // Per task every cell rests on fewer than 10 cases: greyed, as the caption says, even where kappa is defined.
      assert.match(page.body, /cells on fewer than 10 cases are greyed/);
      assert.doesNotMatch(page.body.slice(page.body.indexOf('<h3>Per task</h3>')), /<td class="num">/);
      // Greyed as the page draws it, in Chromium, and still readable (axe-core's contrast check).
      await board.app.listen({ host: '127.0.0.1', port: 0 });
      const base = `http://127.0.0.1:${(board.app.server.address() as AddressInfo).port}`;
      const browser = await launchChromium();
      try {
        const context = await browser.newContext();
        const [name, value] = host.cookie.split('=') as [string, string];
        await context.addCookies([{ name, value, url: base }]);
        const tab = await context.newPage();
        await tab.goto(`${base}/studies/${id}/results`);
        const backgrounds = await tab.locator('table.kappa').first().locator('td').evaluateAll((cells) => cells.map((c) => getComputedStyle(c).backgroundColor));
        assert.deepEqual(backgrounds, ['rgba(0, 0, 0, 0)', 'rgb(229, 231, 235)', 'rgb(229, 231, 235)', 'rgb(229, 231, 235)']);
        assert.deepEqual(await seriousViolations(tab), []);
      } finally {
        await browser.close();
      }

      const svg = await board.app.inject({ url: `/studies/${id}/results/kappa.svg`, headers: { cookie: host.cookie } });
      assert.equal(svg.statusCode, 200);
      assert.deepEqual(svgTexts(svg.body).slice(0, 4), ['1.00', '—', '—', '—']);
      assert.equal(svg.body.split(`fill="${GREYED_CELL}"`).length - 1, 3, 'the three undefined cells are grey; the defined one on 12 cases is coloured');

      // The review report: two reviewers who decided one shared item alike (accept, the same ratings).
      const who = await reviewAccounts(board.store, ['ana', 'ben']);
      const queue = await createReviewQueue(board.store, 'test', { data: DEMO_DATASET, splits: ['valid'], title: 'Pair', reviewersPerItem: 2, reviewers: ['ana@lab.org', 'ben@lab.org'] });
      for (const u of [who.ana, who.ben]) assert.deepEqual(await saveDecision(board.store, { id: u.id, email: u.email, isAdmin: false }, queue.queue.id, 0, decisionInput()), { saved: true });
      const admin = await signIn(board.app, 'admin@lab.org');
      const report = await board.app.inject({ url: `/reviews/${queue.queue.id}/report`, headers: { cookie: admin.cookie } });
      assert.equal(report.statusCode, 200);
      const row = /<table class="board" id="agreement">[\s\S]*?<tbody>\s*<tr>(.*?)<\/tr>/.exec(report.body)![1]!;
      const kappaCells = [...row.matchAll(/<td class="num few" title="([^"]+)">([^<]*)<\/td>/g)].map((m) => [m[1], m[2]]);
      assert.deepEqual(kappaCells, Array.from({ length: 6 }, () => [UNDEFINED_ONE, '—']), 'decision, difficulty and four ratings');
      assert.doesNotMatch(row, />1\.00</);
    } finally {
      await board.close();
    }
  });
}

test('HTML report of two runs that answer one same letter throughout: the heatmap says "—" in grey, Fleiss is undefined', { timeout: 120_000 }, async () => {
  const dir = tempDir();
  for (const seed of ['1', '2']) assert.equal((await runCli(['eval', '--data', DEMO_DATASET, '--model', 'baseline:prior', '--seed', seed, '--out', join(dir, `prior-${seed}`), '--quiet'])).code, 0);
  const file = join(dir, 'report.html');
  const made = await runCli(['report', join(dir, 'prior-1'), join(dir, 'prior-2'), '--out', file]);
  assert.equal(made.code, 0, made.stderr);
  const html = readFileSync(file, 'utf8');
  const heatmap = /<figure id="kappa-heatmap"[^>]*>([\s\S]*?)<\/figure><p><small>(.*?)<\/small>/.exec(html)!;
  assert.deepEqual(svgTexts(heatmap[1]!).slice(0, 4), ['—', '—', '—', '—']);
  assert.equal(heatmap[1]!.split(`fill="${GREYED_CELL}"`).length - 1, 4);
  const n = (JSON.parse(readFileSync(join(dir, 'prior-1', 'summary.json'), 'utf8')) as { overall: { n: number } }).overall.n;
  assert.equal(heatmap[2]!.replace(/&#39;/g, "'"), `Cohen's κ on ${n} questions, each Cohen's kappa uses the items both raters answered (n per cell); Fleiss' kappa the items every rater answered (n per pair ${n}–${n}); cells on fewer than 10 questions are grey, and — where kappa is undefined: no items in common, or one same answer throughout (expected agreement 1, where agreeing says nothing). Fleiss' κ — (undefined) on ${n} questions.`);
});
