import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildLeaderboard, type StoredEntry } from './leaderboard.js';

function entry(id: string, overall: number, items: string, kind = 'participant'): StoredEntry {
  const correct = [...items].filter((c) => c === 'c').length;
  return { submission_id: id, metrics_json: '{}', rexrank_overall: overall, micro_accuracy: items ? correct / items.length : overall, n: items.length, unparseable: 0, item_results: items, created_at: `2026-01-0${id.length}`, kind, model_json: JSON.stringify({ name: id }), team_name: null };
}

test('buildLeaderboard: ranks by ReXrank overall; an entry not separable from its tier leader shares the tier; reported rows last, untiered', () => {
  const n = 200;
  const best = 'c'.repeat(180) + 'w'.repeat(20); // 90%
  const close = 'c'.repeat(176) + 'w'.repeat(24); // 88%: differs from best on 4 items only
  const worse = 'c'.repeat(120) + 'w'.repeat(80); // 60%: clearly worse than both
  const rows = buildLeaderboard([entry('worse', 0.6, worse), entry('reported-x', 0.95, '', 'reported'), entry('close', 0.88, close), entry('best', 0.9, best)]);
  assert.equal(best.length, n);
  assert.deepEqual(rows.map((r) => [r.model.name, r.rank, r.tier]), [['best', 1, 1], ['close', 2, 1], ['worse', 3, 2], ['reported-x', null, null]]);
  assert.ok(rows[1]!.pVsTierLeader! > 0.05);
  assert.equal(rows[3]!.kind, 'reported');
});

test('buildLeaderboard: entries with the same overall share a rank (1, 2, 2, 4), listed by micro then the earlier submission', () => {
  const items = 'c'.repeat(150) + 'w'.repeat(50);
  const rows = buildLeaderboard([
    entry('fourth', 0.5, 'c'.repeat(100) + 'w'.repeat(100)),
    { ...entry('later', 0.7, items), created_at: '2026-02-01' },
    entry('first', 0.9, 'c'.repeat(190) + 'w'.repeat(10)),
    { ...entry('earlier', 0.7, items), created_at: '2026-01-01' },
    // The same overall up to floating-point noise (a mean of the same fractions summed in another order).
    { ...entry('noisy', 0.1 + 0.2 + 0.4, items), created_at: '2026-03-01' },
  ]);
  assert.deepEqual(rows.map((r) => [r.model.name, r.rank]), [['first', 1], ['earlier', 2], ['later', 2], ['noisy', 2], ['fourth', 5]]);
});

/** A report-generation entry as stored: BLEU-2 always; RadCliQ-v1 (and the ranking by it) only when given. */
function rrgEntry(id: string, bleu: number, radcliq: number | null, created = '2026-01-01'): StoredEntry {
  const s = (mean: number) => ({ mean, lo: mean, hi: mean, n: 8 });
  const ranking = radcliq === null ? { value: bleu, by: 'bleu' } : radcliq > 0 ? { value: 1 / radcliq, by: 'inverse-radcliq' } : { value: radcliq, by: 'radcliq' };
  const metrics = { kind: 'rrg', track: 'findings', metrics: { bleu: s(bleu), ...(radcliq === null ? {} : { radcliq_v1: s(radcliq) }) }, not_computed: {}, ranking, n: 8, emptyPredictions: 0, backend: null };
  return { submission_id: id, metrics_json: JSON.stringify(metrics), rexrank_overall: ranking.value, micro_accuracy: bleu, n: 8, unparseable: 0, item_results: '', created_at: created, kind: 'participant', model_json: JSON.stringify({ name: id }), team_name: null };
}

function rrgReported(id: string, bleu: number, invRadcliq: number | null): StoredEntry {
  const columns = { kind: 'rrg-reported', bleu, bertscore: null, sembscore: null, radgraph: null, inv_radcliq_v1: invRadcliq, ratescore: null, green: null, inv_fineradscore: null };
  return { submission_id: id, metrics_json: JSON.stringify(columns), rexrank_overall: invRadcliq ?? 0, micro_accuracy: bleu, n: 0, unparseable: 0, item_results: '', created_at: '2025-01-01', kind: 'reported', model_json: JSON.stringify({ name: id }), team_name: null };
}

test('buildLeaderboard, report generation: ranked by 1/RadCliQ-v1 only; a BLEU-only entry is never #1 nor above published rows, it is listed unranked, by BLEU-2, last', () => {
  const rows = buildLeaderboard([
    rrgEntry('bleu-only-high', 0.5, null),
    rrgReported('published-a', 0.6, 1.9),
    rrgEntry('radcliq-good', 0.2, 0.5),
    rrgReported('published-no-radcliq', 0.4, null),
    rrgEntry('radcliq-best', 0.1, -0.2), // a mean ≤ 0 beats every positive one (lower RadCliQ-v1 is better)
    rrgEntry('radcliq-fair', 0.3, 1.25),
    rrgEntry('bleu-only-low', 0.05, null),
    rrgReported('published-b', 0.55, 1.2),
  ]);
  assert.deepEqual(rows.map((r) => [r.model.name, r.rank, r.tier, r.unranked]), [
    ['radcliq-best', 1, null, null],
    ['radcliq-good', 2, null, null],
    ['radcliq-fair', 3, null, null],
    ['published-a', null, null, null],
    ['published-b', null, null, null],
    ['bleu-only-high', null, null, '1/RadCliQ-v1 not computed'],
    ['published-no-radcliq', null, null, null],
    ['bleu-only-low', null, null, '1/RadCliQ-v1 not computed'],
  ]);
});

test('buildLeaderboard, report generation: a board where no entry has RadCliQ-v1 ranks none of them', () => {
  const rows = buildLeaderboard([rrgEntry('a', 0.3, null), rrgReported('published', 0.2, 1.5), rrgEntry('b', 0.4, null, '2026-02-01')]);
  assert.deepEqual(rows.map((r) => [r.model.name, r.rank, r.unranked]), [['published', null, null], ['b', null, '1/RadCliQ-v1 not computed'], ['a', null, '1/RadCliQ-v1 not computed']]);
});
