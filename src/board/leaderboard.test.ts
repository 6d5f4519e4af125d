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
