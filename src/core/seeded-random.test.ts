import assert from 'node:assert/strict';
import { test } from 'node:test';
import { seededRandom } from './seeded-random.js';

test('seededRandom: the same seed gives the same sequence, another seed another; values lie in [0, 1) and spread evenly', () => {
  const take = (seed: number, n: number) => Array.from({ length: n }, seededRandom(seed));
  assert.deepEqual(take(42, 5), take(42, 5));
  assert.notDeepEqual(take(42, 5), take(43, 5));
  const values = take(1, 40_000);
  assert.ok(values.every((v) => v >= 0 && v < 1));
  const quarters = [0, 0, 0, 0];
  for (const v of values) quarters[Math.floor(v * 4)]!++;
  for (const q of quarters) assert.ok(Math.abs(q - 10_000) < 400, `quarter count ${q}`);
});
