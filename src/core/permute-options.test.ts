import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LETTERS, type Question } from './question.js';
import { permuteOptions } from './permute-options.js';

const base: Question = {
  id: 'q', split: 't', studyId: 's', text: 'Q?', options: ['w', 'x', 'y', 'z'], answer: 'C', task: 'Presence Assessment',
  category: null, subcategory: null, explanation: null, images: [], meta: {},
};

test('permuteOptions: the same option stays correct under its new letter, the gold moves, and the permutation is reproducible', () => {
  for (let i = 0; i < 50; i++) {
    const q = { ...base, id: `q${i}`, answer: LETTERS[i % 4]! };
    const { question, order } = permuteOptions(q, 1);
    assert.equal(question.options[LETTERS.indexOf(question.answer)], q.options[LETTERS.indexOf(q.answer)]);
    assert.notEqual(question.answer, q.answer);
    assert.deepEqual([...order].sort(), [0, 1, 2, 3]);
    assert.deepEqual(permuteOptions(q, 1), { question, order });
  }
});
