import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readerOrder, sampleCases } from './sample.js';

const tasks = [...Array(50).fill('presence'), ...Array(30).fill('location'), ...Array(20).fill('negation')] as string[];

test('stratified sample: each task in proportion (largest remainder), exactly n, reproducible from the seed', () => {
  const picked = sampleCases(tasks, { mode: 'stratified', n: 11, task: null, seed: 3 });
  assert.equal(picked.length, 11);
  const count = (t: string) => picked.filter((i) => tasks[i] === t).length;
  // quotas 5.5 / 3.3 / 2.2 → floors 5, 3, 2 and the one left over to the largest remainder (presence)
  assert.deepEqual([count('presence'), count('location'), count('negation')], [6, 3, 2]);
  assert.deepEqual(picked, sampleCases(tasks, { mode: 'stratified', n: 11, task: null, seed: 3 }));
  assert.notDeepEqual(picked, sampleCases(tasks, { mode: 'stratified', n: 11, task: null, seed: 4 }));
  assert.deepEqual(picked, [...picked].sort((a, b) => a - b), 'in pool order');
  assert.equal(new Set(picked).size, 11, 'no case twice');
});

test('random sample, one task only, and a pool smaller than n', () => {
  const random = sampleCases(tasks, { mode: 'random', n: 10, task: null, seed: 1 });
  assert.equal(new Set(random).size, 10);
  const negation = sampleCases(tasks, { mode: 'stratified', n: 500, task: 'negation', seed: 1 });
  assert.deepEqual(negation, Array.from({ length: 20 }, (_, i) => 80 + i), 'the whole task when n is larger');
  assert.throws(() => sampleCases(tasks, { mode: 'random', n: 5, task: 'geometry', seed: 1 }), /no question of the task "geometry"/);
  assert.throws(() => sampleCases(tasks, { mode: 'random', n: 0, task: null, seed: 1 }), /at least one case/);
});

test('reader order: a permutation of every case, different per reader seed, stable per seed', () => {
  const a = readerOrder(20, 11);
  assert.deepEqual([...a].sort((x, y) => x - y), Array.from({ length: 20 }, (_, i) => i));
  assert.deepEqual(a, readerOrder(20, 11));
  assert.notDeepEqual(a, readerOrder(20, 12));
});
