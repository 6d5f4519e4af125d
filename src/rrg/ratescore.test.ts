import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bioSpans, rateSentences } from './ratescore-ner.js';
import { rateDirection, rateScore, RATESCORE, type RateEntity, type RateEntityType } from './ratescore.js';

const entity = (type: RateEntityType, embedding: number[], text = type.toLowerCase()): RateEntity => ({ text, type, embedding });

test('RaTEScore by hand: best match by cosine, type-pair weight (entity type, match type), contradiction penalty in the numerator only, harmonic mean', () => {
  const reference = [entity('ABNORMALITY', [1, 0]), entity('ANATOMY', [0, 1])];
  const candidate = [entity('NON-ABNORMALITY', [2, 1]), entity('ANATOMY', [0, 3])];
  // reference → candidate: [1,0] best matches [2,1] (cos 2/√5 against 0): abnormality_non-abnormality, a contradiction;
  // [0,1] best matches [0,3] (cos 1): anatomy_anatomy.
  const wAbnNon = 0.5431049700217344;
  const wAnat = 0.2856134859160784;
  const p1 = ((2 / Math.sqrt(5)) * wAbnNon * 0.3612 + 1 * wAnat) / (wAbnNon + wAnat);
  // candidate → reference: [2,1] best matches [1,0] (2/√5 against 1/√5): non-abnormality_abnormality (not the same
  // weight as the other way round), a contradiction; [0,3] matches [0,1] (cos 1).
  const wNonAbn = 0.16546764653692908;
  const p2 = ((2 / Math.sqrt(5)) * wNonAbn * 0.3612 + 1 * wAnat) / (wNonAbn + wAnat);
  assert.ok(Math.abs(rateDirection(reference, candidate) - p1) < 1e-15);
  assert.ok(Math.abs(rateDirection(candidate, reference) - p2) < 1e-15);
  assert.ok(Math.abs(rateScore(reference, candidate) - (2 * p1 * p2) / (p1 + p2)) < 1e-15);
  // what a wrong reading would give: the penalty also in the denominator, or the matrix read the other way round
  assert.ok(Math.abs(p1 - ((2 / Math.sqrt(5)) * wAbnNon * 0.3612 + wAnat) / (wAbnNon * 0.3612 + wAnat)) > 0.05);
  assert.ok(Math.abs(p1 - p2) > 0.05);
});

test('RaTEScore edge cases: identical reports 1, orthogonal embeddings 0, a report without entities RATESCORE.emptySideScore', () => {
  const one = [entity('DISEASE', [0.3, -0.4, 1]), entity('NON-DISEASE', [1, 1, 0])];
  assert.ok(Math.abs(rateScore(one, one) - 1) < 1e-15);
  assert.equal(rateScore([entity('ABNORMALITY', [1, 0])], [entity('ABNORMALITY', [0, 1])]), 0);
  assert.equal(RATESCORE.emptySideScore, 0.5);
  assert.equal(rateScore([], one), 0.5);
  assert.equal(rateScore(one, []), 0.5);
  assert.equal(rateScore([], []), 0.5);
  // a zero vector has cosine 0 with everything (RaTEScore normalises with an epsilon)
  assert.equal(rateDirection([entity('ANATOMY', [0, 0])], [entity('ANATOMY', [1, 0])]), 0);
});

test('RaTEScore constants as published: 25 type-pair weights, 8 contradicting pairs, penalty 0.3612', () => {
  assert.equal(Object.keys(RATESCORE.weights).length, 25);
  assert.equal(RATESCORE.weights['disease_anatomy'], 0.9950209388542061);
  assert.equal(RATESCORE.contradictionPenalty, 0.3612);
  assert.equal(RATESCORE.contradictions.length, 8);
  for (const [a, b] of RATESCORE.contradictions) assert.ok(RATESCORE.contradictions.some(([x, y]) => x === b && y === a), `${a}/${b} is symmetric`);
});

const O = 'O';
const cases: { name: string; labels: string[]; spans: { start: number; end: number; type: string }[] }[] = [
  { name: 'B I I then O: one entity', labels: [O, 'B-ABNORMALITY', 'I-ABNORMALITY', 'I-ABNORMALITY', O, O], spans: [{ start: 1, end: 3, type: 'ABNORMALITY' }] },
  { name: 'B B: two one-token entities', labels: [O, O, 'B-ANATOMY', 'B-ABNORMALITY', O, O], spans: [{ start: 2, end: 2, type: 'ANATOMY' }, { start: 3, end: 3, type: 'ABNORMALITY' }] },
  { name: 'B I then B: the first closes at the I', labels: [O, 'B-ANATOMY', 'I-ANATOMY', 'B-ABNORMALITY', O, O], spans: [{ start: 1, end: 2, type: 'ANATOMY' }, { start: 3, end: 3, type: 'ABNORMALITY' }] },
  { name: 'an I with nothing open is dropped', labels: [O, 'I-ANATOMY', O, 'B-DISEASE', O], spans: [{ start: 3, end: 3, type: 'DISEASE' }] },
  { name: 'B I with the end token labelled I: closes before the last position', labels: [O, 'B-DISEASE', 'I-DISEASE', 'I-DISEASE'], spans: [{ start: 1, end: 2, type: 'DISEASE' }] },
  { name: 'the same after a B B (an end position left set): the open entity is dropped', labels: [O, 'B-ANATOMY', 'B-ABNORMALITY', 'I-ABNORMALITY', 'I-ABNORMALITY'], spans: [{ start: 1, end: 1, type: 'ANATOMY' }] },
  { name: 'the type of a B I run is the B\'s', labels: [O, 'B-NON-DISEASE', 'I-DISEASE', O], spans: [{ start: 1, end: 2, type: 'NON-DISEASE' }] },
];
for (const c of cases) {
  test(`RaTEScore BIO grouping: ${c.name}`, () => {
    // the first and last positions are the special tokens
    assert.deepEqual(bioSpans(c.labels, c.labels.map((_, i) => i === 0 || i === c.labels.length - 1)), c.spans);
  });
}

test('RaTEScore BIO grouping: a special token is passed over even when labelled', () => {
  assert.deepEqual(bioSpans(['B-ANATOMY', 'B-DISEASE', O], [true, false, true]), [{ start: 1, end: 1, type: 'DISEASE' }]);
});

test('RaTEScore sentences: cut after . ! ? and at line breaks, decimals kept, sentences under 3 characters dropped', () => {
  assert.deepEqual(rateSentences('No effusion. Heart size 2.5 cm.\nOk. A. Lungs clear!  Why?'), ['No effusion.', 'Heart size 2.5 cm.', 'Ok.', 'Lungs clear!', 'Why?']);
  assert.deepEqual(rateSentences('  \n '), []);
});
