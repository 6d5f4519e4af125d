import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cohenKappa, fleissKappa } from './agreement.js';
import { agreementOn, type RaterAnswers } from './agreement-matrix.js';

const items = ['q1', 'q2', 'q3', 'q4', 'q5', 'q6'];
const rater = (name: string, answers: (string | null | undefined)[]): RaterAnswers => ({
  name,
  answers: new Map(answers.flatMap((a, i) => (a === undefined ? [] : [[items[i]!, a] as [string, string | null]]))),
});
// r1 answers everything; r2 leaves q2 unanswered (null) and skips q6 (absent); r3 leaves q1 unanswered.
const r1 = rater('r1', ['A', 'B', 'C', 'D', 'A', 'B']);
const r2 = rater('r2', ['A', null, 'C', 'A', 'A', undefined]);
const r3 = rater('r3', [null, 'B', 'C', 'D', 'B', 'B']);

test('agreement, pairwise (default): each Cohen cell on the items both raters answered, with its n; Fleiss on items all answered', () => {
  const t = agreementOn([r1, r2, r3], items);
  assert.equal(t.policy, 'pairwise');
  assert.equal(t.items, 6);
  assert.deepEqual(t.pairN, [[6, 4, 5], [4, 4, 3], [5, 3, 5]]);
  assert.equal(t.cohen[0]![1], cohenKappa(['A', 'C', 'D', 'A'], ['A', 'C', 'A', 'A'])); // q1 q3 q4 q5
  assert.equal(t.cohen[0]![2], cohenKappa(['B', 'C', 'D', 'A', 'B'], ['B', 'C', 'D', 'B', 'B'])); // q2..q6
  assert.equal(t.cohen[1]![2], t.cohen[2]![1]);
  assert.equal(t.fleissN, 3); // q3 q4 q5
  // q3: C C C; q4: D A D; q5: A A B  over categories A B C D
  assert.equal(t.fleiss, fleissKappa([[0, 0, 3, 0], [1, 0, 0, 2], [2, 1, 0, 0]]));
});

test('agreement, category: every item, "unanswered" is a label; drop: only items every rater answered', () => {
  const c = agreementOn([r1, r2], items, 'category');
  assert.deepEqual(c.pairN, [[6, 6], [6, 6]]);
  assert.equal(c.cohen[0]![1], cohenKappa(['A', 'B', 'C', 'D', 'A', 'B'], ['A', 'unanswered', 'C', 'A', 'A', 'unanswered']));
  const d = agreementOn([r1, r2, r3], items, 'drop');
  assert.deepEqual(d.pairN, [[3, 3, 3], [3, 3, 3], [3, 3, 3]]);
  assert.equal(d.cohen[0]![1], cohenKappa(['C', 'D', 'A'], ['C', 'A', 'A']));
});

test('agreement: a pair with no item in common is null (undefined) with n 0, not an error', () => {
  const a = rater('a', ['A', null, null, null, null, null]);
  const b = rater('b', [null, 'B', null, null, null, null]);
  const t = agreementOn([a, b], items);
  assert.deepEqual(t.pairN, [[1, 0], [0, 1]]);
  assert.deepEqual(t.cohen, [[null, null], [null, null]], 'a rater with one answer has no defined kappa even with themself');
  assert.equal(t.fleiss, null);
});

test('agreement: two raters sharing one case on which they agree have an undefined kappa (null), not 1; so does Fleiss', () => {
  const a = rater('a', ['A', 'B', 'C', 'D', null, null]);
  const b = rater('b', ['A', null, null, null, 'B', 'C']);
  const t = agreementOn([a, b], items);
  assert.deepEqual(t.pairN, [[4, 1], [1, 3]]);
  assert.deepEqual(t.cohen, [[1, null], [null, 1]]);
  assert.equal(t.fleissN, 1);
  assert.equal(t.fleiss, null);
  assert.equal(JSON.stringify(t.cohen), '[[1,null],[null,1]]', 'null in JSON');
});
