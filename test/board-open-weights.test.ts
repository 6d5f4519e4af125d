import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { importReportedRrg } from '../src/board/import-reported-rrg.js';
import { loadRrgBenchmarkFromFile } from '../src/board/load-rrg.js';
import { DIALECTS, demoBoard, distinctPredictions, lazyCluster, signUp, tokenFor, uploadForm } from './helpers/board.js';
import { tempDir } from './helpers/records.js';

const cluster = lazyCluster();
after(() => cluster.stop());

/** What a submitter says about open weights, how (API model JSON or the submit form), and what every place must show. */
const CASES = [
  { name: 'API, left out', via: 'api', model: { name: 'Unsaid-API' }, json: null, shown: '—' },
  { name: 'API, null', via: 'api', model: { name: 'Null-API', openWeights: null }, json: null, shown: '—' },
  { name: 'API, false', via: 'api', model: { name: 'Closed-API', openWeights: false }, json: false, shown: 'no' },
  { name: 'API, true', via: 'api', model: { name: 'Open-API', openWeights: true }, json: true, shown: 'yes' },
  { name: 'form, not said', via: 'form', model: { name: 'Unsaid-Form', openWeights: '' }, json: null, shown: '—' },
  { name: 'form, no', via: 'form', model: { name: 'Closed-Form', openWeights: 'false' }, json: false, shown: 'no' },
  { name: 'form, yes', via: 'form', model: { name: 'Open-Form', openWeights: 'true' }, json: true, shown: 'yes' },
] as const;

/** The text of each cell of a leaderboard row, by column header. */
function rowCells(page: string, id: string): Record<string, string> {
  const text = (cell: string) => cell.replace(/<[^>]+>/g, '').trim();
  const headers = [.../<thead>([\s\S]*?)<\/thead>/.exec(page)![1]!.matchAll(/<th[^>]*>([\s\S]*?)<\/th>/g)].map((m) => text(m[1]!).replace(/[▲▼]/g, ''));
  const row = new RegExp(`<tr[^>]*data-id="${id}"[^>]*>([\\s\\S]*?)</tr>`).exec(page)![1]!;
  const cells = [...row.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((m) => text(m[1]!));
  return Object.fromEntries(headers.map((h, i) => [h, cells[i]!]));
}

const cardFact = (page: string, term: string) => new RegExp(`<dt>${term}</dt><dd>([^<]*)</dd>`).exec(page)?.[1] ?? null;

for (const dialect of DIALECTS) {
  test(`open weights (${dialect}): not said is "—" on the board and the model card and null in every API answer; said is yes or no — question and report-generation boards`, { timeout: 120_000 }, async () => {
    const board = await demoBoard(dialect, cluster.get, {}, { dailyLimit: 20, totalLimit: 50 });
    try {
      const session = await signUp(board.app, 'ow@lab.org', 'Team Weights');
      const token = await tokenFor(board.app, session);
      const auth = { authorization: `Bearer ${token}` };
      const ids: string[] = [];
      for (const [k, c] of CASES.entries()) {
        const file = { name: 'p.jsonl', content: distinctPredictions(board.questions, k) };
        if (c.via === 'api') {
          const res = await board.app.inject({ method: 'POST', url: '/api/benchmarks/demo/submissions', headers: auth, payload: uploadForm(file, { model: JSON.stringify(c.model) }) });
          assert.equal(res.statusCode, 202, res.body);
          ids.push((res.json() as { submission: string }).submission);
        } else {
          const res = await board.app.inject({ method: 'POST', url: '/b/demo/submit', headers: { cookie: session.cookie }, payload: uploadForm(file, { _csrf: session.csrf, ...c.model }) });
          assert.equal(res.statusCode, 303, res.body);
          ids.push(/^\/submissions\/(.+)$/.exec(String(res.headers.location))![1]!);
        }
      }
      for (const id of ids) assert.equal((await board.settled(id)).state, 'scored');

      const leaderboard = (await board.app.inject({ url: '/api/benchmarks/demo/leaderboard' })).json() as { entries: { id: string; model: { openWeights?: unknown } }[] };
      const mine = (await board.app.inject({ url: '/api/submissions', headers: auth })).json() as { id: string; model: { openWeights?: unknown } }[];
      const page = (await board.app.inject({ url: '/b/demo' })).body;
      const seen = [];
      for (const [k, c] of CASES.entries()) {
        const id = ids[k]!;
        const status = (await board.app.inject({ url: `/api/submissions/${id}`, headers: auth })).json() as { model: { openWeights?: unknown }; entry: { model: { openWeights?: unknown } } };
        const entry = (await board.app.inject({ url: `/api/entries/${id}` })).json() as { model: { openWeights?: unknown } };
        const card = (await board.app.inject({ url: `/entries/${id}` })).body;
        seen.push({
          case: c.name,
          json: [status.model.openWeights, status.entry.model.openWeights, entry.model.openWeights, leaderboard.entries.find((e) => e.id === id)!.model.openWeights, mine.find((s) => s.id === id)!.model.openWeights],
          page: rowCells(page, id)['Open weights'],
          card: cardFact(card, 'Open weights'),
        });
      }
      assert.deepEqual(seen, CASES.map((c) => ({ case: c.name, json: Array(5).fill(c.json), page: c.shown, card: c.shown })));

      // A report-generation board: a participant's card says the same; ReXrank's published rows do not say, so "—" and null.
      const file = join(tempDir(), 'rrg.json');
      writeFileSync(file, JSON.stringify(Object.fromEntries(['s1', 's2', 's3'].map((id) => [id, { image_path: [`${id}.png`], section_findings: `Findings of ${id}.`, section_impression: 'None' }]))));
      const rrg = await loadRrgBenchmarkFromFile(board.store, 'test', file, 'findings', { slug: 'rrg', title: 'RRG', version: '1', dailyLimit: 5, totalLimit: 5, open: true });
      const reports = JSON.stringify({ s1: { model_prediction: 'Normal.' }, s2: { model_prediction: 'Effusion.' }, s3: { model_prediction: 'Clear.' } });
      const sent = await board.app.inject({ method: 'POST', url: '/api/benchmarks/rrg/submissions', headers: auth, payload: uploadForm({ name: 'r.json', content: reports }, { model: JSON.stringify({ name: 'Unsaid-RRG' }) }) });
      assert.equal(sent.statusCode, 202, sent.body);
      const rrgId = (sent.json() as { submission: string }).submission;
      assert.equal((await board.settled(rrgId)).state, 'scored');
      assert.ok(await importReportedRrg(board.store, 'test', rrg, join(import.meta.dirname, 'fixtures', 'rexrank-v1', 'published.json'), 'IU-Xray', 'Findings') > 0);
      const rrgEntries = ((await board.app.inject({ url: '/api/benchmarks/rrg/leaderboard' })).json() as { entries: { id: string; kind: string; model: { openWeights?: unknown } }[] }).entries;
      assert.deepEqual([...new Set(rrgEntries.map((e) => `${e.kind}: ${String(e.model.openWeights)}`))].sort(), ['participant: null', 'reported: null']);
      assert.equal(cardFact((await board.app.inject({ url: `/entries/${rrgId}` })).body, 'Open weights'), '—', 'the report-generation model card shows the card too');
    } finally {
      await board.close();
    }
  });
}
