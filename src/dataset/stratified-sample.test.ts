import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { CxrError } from '../core/errors.js';
import { allocateLargestRemainder, parseSampleSize, parseStratifyKey, sampleTarget, stratifiedSample } from './stratified-sample.js';

test('allocation: the worked example — floors first, leftovers to the largest remainders, ties by name', () => {
  // 5 of 7 + 2 + 1: quotas 3.5, 1.0, 0.5 → floors 3, 1, 0 and one unit left; a and c tie on remainder 0.5, so
  // the name that sorts first ("a") takes it, whatever order the strata came in.
  assert.deepEqual(Object.fromEntries(allocateLargestRemainder(new Map([['a', 7], ['b', 2], ['c', 1]]), 5)), { a: 4, b: 1, c: 0 });
  assert.deepEqual(Object.fromEntries(allocateLargestRemainder(new Map([['c', 1], ['a', 7], ['b', 2]]), 5)), { a: 4, b: 1, c: 0 });
  // 3 of four equal strata: remainders all 0.75, the first three names win.
  assert.deepEqual(Object.fromEntries(allocateLargestRemainder(new Map([['d', 1], ['c', 1], ['b', 1], ['a', 1]]), 3)), { a: 1, b: 1, c: 1, d: 0 });
  // ReXVQA-like task shares at 1%: 100 of 10,000.
  const tasks = new Map([['Negation', 3650], ['Presence', 3610], ['Differential', 2090], ['Location', 610], ['Geometric', 40]]);
  assert.deepEqual(Object.fromEntries(allocateLargestRemainder(tasks, 100)), { Differential: 21, Geometric: 0, Location: 6, Negation: 37, Presence: 36 });
});

test('allocation (property): sizes sum to the target, each stratum within 1 of its exact quota and never above its size', () => {
  const sizes = fc.array(fc.nat({ max: 5000 }), { minLength: 1, maxLength: 12 }).filter((s) => s.some((x) => x > 0));
  fc.assert(fc.property(sizes, fc.double({ min: 0, max: 1, noNaN: true }), (list, fraction) => {
    const total = list.reduce((a, b) => a + b, 0);
    const target = Math.floor(fraction * total);
    const allocation = allocateLargestRemainder(new Map(list.map((n, i) => [`s${i}`, n])), target);
    assert.equal([...allocation.values()].reduce((a, b) => a + b, 0), target);
    list.forEach((n, i) => {
      const got = allocation.get(`s${i}`)!;
      const quota = (target * n) / total;
      assert.ok(Math.abs(got - quota) < 1, `s${i}: ${got} vs quota ${quota}`);
      assert.ok(got <= n);
    });
  }), { numRuns: 500 });
});

test('sample (property): exactly the target, the allocation per stratum, and the same ids whatever the input order', () => {
  const question = fc.record({ id: fc.string({ minLength: 1, maxLength: 6 }), task: fc.constantFrom('t1', 't2', 't3'), category: fc.option(fc.constantFrom('c1', 'c2')), subcategory: fc.constant(null) });
  fc.assert(fc.property(fc.uniqueArray(question, { minLength: 1, maxLength: 80, selector: (q) => q.id }), fc.integer({ min: 1, max: 100 }), fc.nat(), (questions, percent, seed) => {
    const spec = { size: { kind: 'share' as const, share: percent / 100 }, stratify: 'task' as const, seed };
    const a = stratifiedSample(questions, spec);
    const b = stratifiedSample([...questions].reverse(), spec);
    assert.deepEqual([...a.ids].sort(), [...b.ids].sort());
    assert.equal(a.ids.size, sampleTarget(spec.size, questions.length));
    for (const [task, count] of Object.entries(a.strata)) {
      assert.equal(questions.filter((q) => q.task === task && a.ids.has(q.id)).length, count.selected);
      assert.equal(questions.filter((q) => q.task === task).length, count.of);
    }
  }), { numRuns: 300 });
});

test('sample: seeded selection is fixed (the same ids on every machine), another seed draws others, empty fields form "(none)"', () => {
  const questions = Array.from({ length: 20 }, (_, i) => ({ id: `q${String(i).padStart(2, '0')}`, task: i < 15 ? 'P' : 'N', category: i % 2 === 0 ? 'Heart' : null, subcategory: null }));
  const seven = stratifiedSample(questions, { size: { kind: 'count', n: 4 }, stratify: 'task', seed: 7 });
  assert.deepEqual(seven.strata, { N: { selected: 1, of: 5 }, P: { selected: 3, of: 15 } });
  // Checked by hand in Python (FNV-1a from offset 0x811c9dc5 ^ seed, prime 0x01000193): the 3 smallest of P, 1 of N.
  assert.deepEqual([...seven.ids].sort(), ['q08', 'q09', 'q10', 'q18']);
  const eight = stratifiedSample(questions, { size: { kind: 'count', n: 4 }, stratify: 'task', seed: 8 });
  assert.notDeepEqual([...eight.ids].sort(), [...seven.ids].sort());
  const byCategory = stratifiedSample(questions, { size: { kind: 'share', share: 0.5 }, stratify: 'category', seed: 1 });
  assert.deepEqual(byCategory.strata, { '(none)': { selected: 5, of: 10 }, Heart: { selected: 5, of: 10 } });
  const unstratified = stratifiedSample(questions, { size: { kind: 'count', n: 50 }, stratify: null, seed: 1 });
  assert.deepEqual(unstratified.strata, { all: { selected: 20, of: 20 } });
});

test('sample size: counts, percentages and shares parse; 0, over 100%, non-numbers and fractions above 1 are refused by name', () => {
  assert.deepEqual(parseSampleSize('200'), { kind: 'count', n: 200 });
  assert.deepEqual(parseSampleSize('1%'), { kind: 'share', share: 0.01 });
  assert.deepEqual(parseSampleSize('100%'), { kind: 'share', share: 1 });
  assert.deepEqual(parseSampleSize('0.25'), { kind: 'share', share: 0.25 });
  assert.equal(sampleTarget({ kind: 'share', share: 0.01 }, 57), 1);
  assert.equal(sampleTarget({ kind: 'share', share: 0.1 }, 57), 6);
  assert.equal(sampleTarget({ kind: 'count', n: 500 }, 57), 57);
  const cases: [string, RegExp][] = [
    ['0', /--sample 0: a sample of 0 questions is empty/],
    ['0%', /--sample 0%: a sample of 0% is empty/],
    ['101%', /--sample 101%: more than 100% of the split/],
    ['ten', /--sample ten: not a number/],
    ['-5', /--sample -5: not a number/],
    ['1.5', /--sample 1.5: a count must be a whole number/],
  ];
  for (const [text, message] of cases) {
    assert.throws(() => parseSampleSize(text), (e: unknown) => e instanceof CxrError && e.exitCode === 2 && message.test(e.message), text);
  }
  assert.equal(parseStratifyKey('subcategory'), 'subcategory');
  assert.throws(() => parseStratifyKey('study'), /--stratify study: unknown stratify key; expected one of task, category, subcategory/);
});
