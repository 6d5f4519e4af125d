import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extractAnswer, extractorInfo } from './extract.js';

const OPTIONS = ['Left lower lobe', 'Right upper lobe', 'Bilateral', 'No consolidation'];

/** [output, expected letter or null, expected rule] — what a careful human reader concludes, and which rule gets there. */
const cases: [string, string | null, string][] = [
  // JSON first, whatever the explanation says about other letters
  ['{"answer": "B", "explanation": "Option A is wrong because the opacity is in the right upper lobe; C and D do not fit."}', 'B', 'json'],
  ['```json\n{"answer": "C", "explanation": "Both lungs are involved."}\n```', 'C', 'json'],
  ['Here is my answer:\n{"answer": "(D)", "explanation": "no consolidation seen"}', 'D', 'json'],
  ['{"answer": "B. Right upper lobe", "explanation": "x"}', 'B', 'json'],
  ['{"answer": "Right upper lobe", "explanation": "The fissure bulges."}', 'B', 'json'],
  ['{"answer": "b"}', 'B', 'json'],
  ['{"explanation": "The answer is A per the report.", "answer": "C"}', 'C', 'json'],
  ['{"answer":"B"}\nActually, I change my mind: {"answer":"D","explanation":"no opacity"}', 'D', 'json'],
  ['{"answer": "A or B"}', null, 'hedge'],
  ['{"answer": "B/C"}', null, 'hedge'],
  ['{"answer": "E"}', null, 'invalid-answer'],
  ['{"answer": 2}', null, 'invalid-answer'],
  ['{"answer": "A. Right upper lobe"}', null, 'invalid-answer'],
  ['{"answer": null, "explanation": "Cannot assess."}', null, 'refusal'],
  ['{"final_answer": "C"}', 'C', 'json'],
  // tags and boxed
  ['<answer>D</answer>', 'D', 'tag'],
  ['Reasoning... <answer> (b) </answer>', 'B', 'tag'],
  ['The final answer is $\\boxed{B}$', 'B', 'boxed'],
  ['\\boxed{\\text{C}}', 'C', 'boxed'],
  // phrases
  ['Final answer: A', 'A', 'final-answer'],
  ['The answer is (C).', 'C', 'answer'],
  ['The correct answer is **B**.', 'B', 'answer'],
  ['**Answer:** D', 'D', 'answer'],
  ['Answer:\nC\nExplanation: both lungs.', 'C', 'answer'],
  ['The answer is: ** C **', 'C', 'answer'],
  ['Answer: (a)', 'A', 'answer'],
  ['answer: d', 'D', 'answer'],
  ['Looking at the image, a large effusion is present on the left. The answer is C.', 'C', 'answer'],
  ['The answer is B. Wait, on second look, the answer is C.', 'C', 'answer'],
  ['Answer: A because the opacity sits at the left base.', 'A', 'answer'],
  ['The answer is A.', 'A', 'answer'],
  ['### Answer\nB. Right upper lobe', 'B', 'answer'],
  ['Answer: A large effusion.', null, 'no-match'],
  ['Option A: unlikely. Option B: likely. Option C: unlikely. Therefore the answer is B.', 'B', 'answer'],
  ['Answer: B\nExplanation: A is incorrect since the base is clear.', 'B', 'answer'],
  ['{answer: B}', 'B', 'json'],
  ['The most likely answer is C, bilateral consolidation.', 'C', 'answer'],
  ['答案：Ｂ', 'B', 'answer'],
  ['答案是（C）', 'C', 'answer'],
  ['<think>Maybe A... or C? The left base looks clear.</think>\nThe answer is C.', 'C', 'answer'],
  ['Option C is correct because both lungs are involved.', 'C', 'leading-letter'],
  ['I would choose D.', 'D', 'choice'],
  ['The correct option is D: No consolidation.', 'D', 'choice'],
  ['Option A is incorrect. Option B fits the bulging fissure.', 'B', 'evaluation'],
  ['**D. No consolidation**', 'D', 'leading-letter'],
  // the letter-then-explanation format
  ['A', 'A', 'letter-line'],
  ['c', 'C', 'letter-line'],
  ['B. Right upper lobe. The opacity is confined by the horizontal fissure.', 'B', 'leading-letter'],
  ['B) Right upper lobe', 'B', 'leading-letter'],
  ['(D) No consolidation', 'D', 'leading-letter'],
  ['A. Left lower lobe', 'A', 'leading-letter'],
  ['D\nThe lungs are clear.', 'D', 'letter-line'],
  // weak signals, after the refusal check
  ['The findings suggest a right upper lobe pneumonia (B).', 'B', 'evidence'],
  ['Based on the image, B.', 'B', 'statement'],
  ["I think it's B", 'B', 'belief'],
  ['A large consolidation is seen in the right upper lobe.', 'B', 'option-text'],
  ['Answer: Bilateral', 'C', 'answer'],
  ['The answer is a right upper lobe consolidation.', 'B', 'answer'],
  ['Right upper lobe', 'B', 'option-text'],
  ['The opacity is in the right upper lobe, so B is correct.', 'B', 'conclusion'],
  // hedges: more than one option named
  ['A or B', null, 'hedge'],
  ['B/C', null, 'hedge'],
  ['B, C', null, 'multiple'],
  ['The answer is A or B.', null, 'hedge'],
  ['**A** or **B**', null, 'hedge'],
  ['Option B and option C are both possible.', null, 'hedge'],
  ['Left lower lobe or right upper lobe', null, 'hedge'],
  // discussing each option and concluding on one is not a hedge
  ['A: Left lower lobe is incorrect. B: Right upper lobe is correct.', 'B', 'evaluation'],
  // refusals, empties, non-options
  ['I cannot determine the answer from this image.', null, 'refusal'],
  ["Sorry, I can't help with that. (A) and (B) both need a radiologist.", null, 'refusal'],
  ['None of the above.', null, 'none-of-the-above'],
  ['As an AI, I am unable to view medical images.', null, 'refusal'],
  ['E', null, 'invalid-answer'],
  ['The image quality is poor.', null, 'no-match'],
  ['A large effusion.', null, 'no-match'],
  ['', null, 'empty'],
  ['   \n ', null, 'empty'],
  ['<think>I think A', null, 'unfinished'],
];

for (const [output, letter, rule] of cases) {
  test(`extract: ${JSON.stringify(output).slice(0, 90)} → ${letter ?? 'unparseable'} (${rule})`, () => {
    const got = extractAnswer(output, OPTIONS);
    assert.deepEqual({ letter: got.letter, rule: got.rule }, { letter, rule });
  });
}

test('extract: an option whose own text is a refusal phrase is still an answer', () => {
  const options = ['Yes', 'No', 'Only on the lateral view', 'Cannot be determined from this radiograph'];
  assert.deepEqual(extractAnswer('D. Cannot be determined from this radiograph', options).letter, 'D');
  const got = extractAnswer('It cannot be determined from this radiograph.', options);
  assert.deepEqual([got.letter, got.rule], ['D', 'option-text']);
});

test('extract: without options, option text cannot be matched', () => {
  assert.equal(extractAnswer('Right upper lobe').letter, null);
});

test('extract: strict mode reads only JSON and tags', () => {
  assert.deepEqual(extractAnswer('The answer is B.', OPTIONS, { strict: true }), { letter: null, rule: 'no-match' });
  assert.equal(extractAnswer('<answer>C</answer>', OPTIONS, { strict: true }).letter, 'C');
  assert.equal(extractAnswer('{"answer": "A"}', OPTIONS, { strict: true }).letter, 'A');
  assert.deepEqual(extractorInfo({ strict: true }).rules.map((r) => r.name), ['json', 'tag']);
  assert.deepEqual(extractorInfo().rules.slice(0, 4).map((r) => r.name), ['json', 'python-dict', 'tag', 'boxed']);
  assert.ok(extractorInfo().rules.every((r) => r.version === '2'));
});

test('extract: the span points at the letter the decision rests on (in the normalised output)', () => {
  const out = 'The answer is B. Wait, the answer is C.';
  const got = extractAnswer(out, OPTIONS);
  assert.equal(out.slice(got.span![0], got.span![1]), 'C');
});

test('extract: hostile outputs (1 MB floods, binary, JSON 1,000 deep, non-strings) give a result, never a crash or a hang', () => {
  const MB = 1 << 20;
  const rep = (s: string) => s.repeat(Math.ceil(MB / s.length)).slice(0, MB);
  const hostile: unknown[] = [
    rep('<answer>'), rep(' ') + '\ufffd', rep('A '), rep('A. B. C. D. '), rep('{'), '{'.repeat(MB / 2) + '}'.repeat(MB / 2),
    '{"a":'.repeat(1000) + '"B"' + '}'.repeat(1000), '['.repeat(5000), rep('\\boxed{'), rep('The answer is '), rep('B or C or '),
    rep('"answer": "'), rep('答案是B或C，'), Buffer.from(Array.from({ length: MB }, (_, i) => (i * 7919 + 13) % 256)).toString('latin1'),
    rep('<think>'), rep('</think>'), 42, { answer: 'B' }, ['B'], null, undefined,
  ];
  for (const output of hostile) {
    const started = performance.now();
    const got = extractAnswer(output, OPTIONS);
    // Generous here (shared CI machines); the 50 ms goal is measured by `./run bench:extract`.
    assert.ok(performance.now() - started < 1000, `${String(output).slice(0, 30)} took too long`);
    assert.ok(got.letter === null || 'ABCD'.includes(got.letter));
    assert.equal(typeof got.rule, 'string');
  }
  // A cut inside a word must not leave a stray letter: a flood of the word "answer" names no option.
  assert.equal(extractAnswer(rep('"answer": "'), OPTIONS).letter, null);
});
