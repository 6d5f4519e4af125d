import assert from 'node:assert/strict';
import { test } from 'node:test';
import { budgetReached, costUsd, NO_BUDGET, parsePricing } from './budget.js';

test('costUsd: dollars per million tokens, input and output priced apart', () => {
  assert.equal(costUsd({ prompt: 2_000_000, completion: 100_000 }, { inputPerMillion: 1.25, outputPerMillion: 10 }), 3.5);
});

test('budgetReached: by tokens, by cost, by whichever comes first, never without a limit', () => {
  const pricing = { inputPerMillion: 1, outputPerMillion: 4 };
  assert.equal(budgetReached({ prompt: 10 ** 9, completion: 10 ** 9 }, NO_BUDGET), false);
  assert.equal(budgetReached({ prompt: 499, completion: 0 }, { tokens: 500, usd: null }), false);
  assert.equal(budgetReached({ prompt: 400, completion: 100 }, { tokens: 500, usd: null }), true);
  // 1M prompt ($1) + 250K completion ($1) = $2
  assert.equal(budgetReached({ prompt: 1_000_000, completion: 249_999 }, { tokens: null, usd: { limit: 2, pricing } }), false);
  assert.equal(budgetReached({ prompt: 1_000_000, completion: 250_000 }, { tokens: null, usd: { limit: 2, pricing } }), true);
  assert.equal(budgetReached({ prompt: 10, completion: 0 }, { tokens: 10, usd: { limit: 2, pricing } }), true);
});

test('parsePricing: <input>/<output>, or null', () => {
  assert.deepEqual(parsePricing('1.25/10'), { inputPerMillion: 1.25, outputPerMillion: 10 });
  assert.deepEqual(parsePricing(' 0 / 0.6 '), { inputPerMillion: 0, outputPerMillion: 0.6 });
  assert.equal(parsePricing('1.25'), null);
  assert.equal(parsePricing('-1/2'), null);
  assert.equal(parsePricing('a/b'), null);
});
