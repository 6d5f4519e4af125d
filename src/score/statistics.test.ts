import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Outcome } from '../core/model-io.js';
import { TASK_NAMES } from '../core/question.js';
import { cohenKappa, fleissKappa } from './agreement.js';
import { holm, mcnemarExact } from './compare.js';
import { clusterBootstrap, quantile, wilson } from './intervals.js';
import { summarizeOutcomes } from './summary.js';

const close = (actual: number | null, expected: number, tolerance: number, what: string) =>
  assert.ok(actual !== null && Math.abs(actual - expected) <= tolerance, `${what}: ${actual} vs ${expected}`);

test('Wilson interval: Newcombe (1998) worked examples 81/263 → 0.2553–0.3662 and 0/10 → 0–0.2775', () => {
  const a = wilson(81, 263);
  close(a.lo, 0.2553, 5e-5, 'lo');
  close(a.hi, 0.3662, 5e-5, 'hi');
  close(a.lo, 0.2552885198782742, 1e-9, 'lo exact');
  const b = wilson(0, 10);
  assert.equal(b.lo, 0);
  close(b.hi, 0.2775, 5e-5, 'hi');
  const c = wilson(10, 10);
  close(c.lo, 1 - 0.27753, 1e-5, 'mirror');
  assert.deepEqual(wilson(0, 0), { value: 0, lo: 0, hi: 1, n: 0 });
});

test("Cohen's kappa: scikit-learn's documented example is 0.6875; perfect and chance-level cases", () => {
  close(cohenKappa(['negative', 'positive', 'negative', 'neutral', 'positive'], ['negative', 'positive', 'negative', 'neutral', 'negative']), 0.6875, 1e-12, 'sklearn');
  assert.equal(cohenKappa(['A', 'B', 'C'], ['A', 'B', 'C']), 1);
  close(cohenKappa(['A', 'A', 'B', 'B'], ['A', 'B', 'A', 'B']), 0, 1e-12, 'chance');
  assert.throws(() => cohenKappa(['A'], ['A', 'B']), /the same items/);
});

test("Cohen's kappa is undefined (null), never 1, when expected agreement is 1 or there are no items", () => {
  // Two raters sharing one case on which they agree: p_o = 1 and p_e = 1, so (p_o − p_e) / (1 − p_e) is 0/0.
  assert.equal(cohenKappa(['B'], ['B']), null);
  assert.equal(cohenKappa(['C', 'C', 'C'], ['C', 'C', 'C']), null, 'one same label throughout');
  assert.equal(cohenKappa([], []), null);
  // One rater constant, the other not: p_e < 1, kappa is defined (0 here: no agreement beyond chance).
  assert.equal(cohenKappa(['A', 'A'], ['A', 'B']), 0);
});

test("Fleiss' kappa: the worked example of 10 items × 14 raters × 5 categories gives 0.210 (0.20993070 exactly)", () => {
  const table = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1], [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]];
  close(fleissKappa(table), 0.20993070442195524, 1e-9, 'fleiss');
  assert.throws(() => fleissKappa([[1, 2], [1, 1]]), /every item needs 3 ratings/);
});

test("Fleiss' kappa is undefined (null) when every rating is in one category, with no items, or one rating per item", () => {
  assert.equal(fleissKappa([[3, 0], [3, 0]]), null);
  assert.equal(fleissKappa([]), null);
  assert.equal(fleissKappa([[1, 0], [0, 1]]), null);
});

test('McNemar exact: two-sided binomial p-values', () => {
  close(mcnemarExact(1, 6), 16 / 128, 1e-12, '1 vs 6'); // 2·(C(7,0)+C(7,1))/2^7
  close(mcnemarExact(0, 5), 2 / 32, 1e-12, '0 vs 5');
  assert.equal(mcnemarExact(3, 3), 1);
  assert.equal(mcnemarExact(0, 0), 1);
  close(mcnemarExact(10, 25), 0.01667384780012071, 1e-12, '10 vs 25'); // 2·Σ_{i≤10} C(35,i)/2^35, computed exactly
});

test('Holm adjustment keeps order and is monotone', () => {
  assert.deepEqual(holm([0.01, 0.04, 0.03, 0.005]).map((p) => Number(p.toFixed(6))), [0.03, 0.06, 0.06, 0.02]);
  assert.deepEqual(holm([0.5, 0.9]), [1, 1]);
  assert.deepEqual(holm([0.04, 0.01]), [0.04, 0.02]);
});

test('cluster bootstrap: reproducible, brackets the estimate, wider than Wilson when questions of a study agree', () => {
  const clusters: [number, number][] = Array.from({ length: 200 }, (_, i) => (i % 5 < 3 ? [4, 4] : [0, 4]));
  const a = clusterBootstrap(clusters, 1000, 1);
  assert.deepEqual(a, clusterBootstrap(clusters, 1000, 1));
  close(a.value, 0.6, 1e-12, 'value');
  assert.ok(a.lo < 0.6 && a.hi > 0.6);
  const w = wilson(480, 800);
  assert.ok(a.hi - a.lo > 1.5 * (w.hi - w.lo), `bootstrap ${a.hi - a.lo} vs Wilson ${w.hi - w.lo}`);
  assert.equal(quantile([1, 2, 3, 4], 0.5), 2.5);
});

test('ReXrank overall is the mean of the five task accuracies: the eight published models reproduce to 4 decimals', () => {
  // REFERENCE.md §3: overall / differential / geometric / location / negation / presence
  const published: [string, number, number[]][] = [
    ['MedGemma-4B-it', 0.8217, [0.7671, 0.8045, 0.8347, 0.8503, 0.8521]],
    ['Janus-Pro-7B', 0.6656, [0.5634, 0.7542, 0.6462, 0.7573, 0.607]],
    ['Qwen2.5-VL-7B', 0.6555, [0.6361, 0.6648, 0.6324, 0.8327, 0.5114]],
    ['Eagle2-9B', 0.6443, [0.6817, 0.5698, 0.5695, 0.8632, 0.5375]],
    ['Gemini-1.5-Pro', 0.6331, [0.6221, 0.4689, 0.596, 0.8568, 0.6217]],
    ['Qwen2-VL-7B', 0.547, [0.5265, 0.4494, 0.5405, 0.6269, 0.5915]],
    ['Phi-3.5-Vision', 0.4749, [0.6224, 0.2215, 0.3711, 0.795, 0.3644]],
    ['LLaVA-1.5-7B', 0.2661, [0.2161, 0.2346, 0.2761, 0.2402, 0.3633]],
  ];
  const taskOrder = ['Differential Diagnosis', 'Geometric Information Assessment', 'Location and Distribution Assessment', 'Negation Assessment', 'Presence Assessment'];
  for (const [model, overall, accuracies] of published) {
    // Build outcomes with exactly these task accuracies (10,000 questions per task) and let the scorer average them.
    const outcomes: Outcome[] = [];
    taskOrder.forEach((task, t) => {
      const correct = Math.round(accuracies[t]! * 10_000);
      for (let i = 0; i < 10_000; i++) {
        outcomes.push({ questionId: `${t}-${i}`, studyId: `s${i}`, task, category: null, subcategory: null, status: i < correct ? 'correct' : 'wrong', expected: 'A', predicted: i < correct ? 'A' : 'B', extraction: null });
      }
    });
    const summary = summarizeOutcomes(outcomes, outcomes.length);
    assert.deepEqual([...summary.rexrankTasks].sort(), [...TASK_NAMES].sort());
    assert.equal(Number(summary.rexrankOverall!.toFixed(4)), overall, model);
  }
});

test('mcnemarExact at leaderboard scale (tens of thousands of discordant items) agrees with the continuity-corrected normal approximation', () => {
  // z = (|b − c| − 1) / √(b + c) = 399 / √20400 = 2.7936 → two-sided p = 0.00521
  const p = mcnemarExact(10_000, 10_400);
  assert.ok(Math.abs(p - 0.00521) < 0.0001, String(p));
  assert.equal(mcnemarExact(20_000, 20_000), 1);
  assert.ok(mcnemarExact(0, 40_000) < 1e-300 || mcnemarExact(0, 40_000) === 0);
});
