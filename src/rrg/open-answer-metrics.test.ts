import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normalizeAnswerText, scoreOpenAnswer, scoreOpenAnswers, tokenF1 } from './open-answer-metrics.js';

/** The object with its numbers rounded to 12 places: the fractions below are exact, their floating-point sums are not. */
const rounded = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, typeof v === 'number' ? Math.round(v * 1e12) / 1e12 : v])) as T;

test('open answers: SQuAD normalisation — case, punctuation and articles do not count', () => {
  assert.equal(normalizeAnswerText('  The Right lower-lobe.  '), 'right lower lobe');
  assert.equal(normalizeAnswerText('An enlarged heart'), 'enlarged heart');
  assert.equal(normalizeAnswerText('Ｎｏ'), 'no');
});

test('open answers: exact match, token F1 and ROUGE-L worked by hand', () => {
  assert.deepEqual(scoreOpenAnswer('Right lower lobe', 'the right lower lobe.'), { exactMatch: 1, tokenF1: 1, rougeL: 1 });
  // reference {right, lower, lobe}, answer {lower, lobe, right, side}: 3 common → P 3/4, R 1 → F1 6/7.
  // ROUGE-L keeps order: "lower lobe" is the longest common subsequence (2 of the answer's 4 tokens, of the
  // reference's 3) → P 2/4, R 2/3 → 4/7.
  assert.deepEqual(rounded(scoreOpenAnswer('Right lower lobe', 'Lower lobe on right')), rounded({ exactMatch: 0, tokenF1: 6 / 7, rougeL: 4 / 7 }));
  assert.deepEqual(scoreOpenAnswer('Pleural effusion', 'Cardiomegaly'), { exactMatch: 0, tokenF1: 0, rougeL: 0 });
  // Repeated tokens count once each: reference "no no" vs "no" → P 1, R 1/2 → F1 2/3.
  assert.equal(tokenF1('no no', 'no'), 2 / 3);
  assert.equal(tokenF1('the', 'a'), 1, 'both empty after normalisation');
  assert.equal(tokenF1('Yes', ''), 0);
});

test('open answers: means per task in the paper\'s order and overall; a question without an answer scores 0', () => {
  const scores = scoreOpenAnswers([
    { task: 'Negation Assessment', reference: 'No', answer: 'no.' },
    { task: 'Presence Assessment', reference: 'Right lower lobe', answer: 'Lower lobe on right' },
    { task: 'Presence Assessment', reference: 'Cardiomegaly', answer: null },
  ]);
  assert.deepEqual(Object.keys(scores.byTask), ['Presence Assessment', 'Negation Assessment']);
  assert.deepEqual(rounded(scores.byTask['Presence Assessment']!), rounded({ n: 2, answered: 1, exactMatch: 0, tokenF1: 3 / 7, rougeL: 2 / 7 }));
  assert.deepEqual(scores.byTask['Negation Assessment'], { n: 1, answered: 1, exactMatch: 1, tokenF1: 1, rougeL: 1 });
  assert.deepEqual(rounded(scores.overall), rounded({ n: 3, answered: 2, exactMatch: 1 / 3, tokenF1: (1 + 6 / 7) / 3, rougeL: (1 + 4 / 7) / 3 }));
});
