/**
 * The demo must not be answerable from its wording (issue #11): the text-only baseline stays near chance, the
 * answer is not given away by being the longest option or by repeating the question's words, the key is
 * balanced over A–D, and every task has enough test questions for a per-task cell to mean something.
 */
import assert from 'node:assert/strict';
import test from 'node:test';
import { DEMO_DATASET } from '../src/cli/commands/demo-dataset.js';
import { LETTERS, TASK_NAMES, type Question } from '../src/core/question.js';
import { detectLayout } from '../src/dataset/layout.js';
import { readQuestions } from '../src/dataset/read-dataset.js';
import { predictTextOnly, trainTextOnly } from '../src/models/baselines/text-only.js';
import { contentTokens } from '../src/models/baselines/tokens.js';

async function split(name: string): Promise<Question[]> {
  const out: Question[] = [];
  for await (const q of readQuestions(detectLayout(DEMO_DATASET), [name])) out.push(q);
  return out;
}

const answerIndex = (q: Question) => LETTERS.indexOf(q.answer as (typeof LETTERS)[number]);


test('the text-only baseline, trained on the demo train split, is near chance on the test split (≤ 40%)', async () => {
  const model = await trainTextOnly(await split('train'));
  const testQuestions = await split('test');
  const right = testQuestions.filter((q) => predictTextOnly(model, q).letter === q.answer).length;
  const accuracy = right / testQuestions.length;
  process.stdout.write(`# text-only on demo test: ${right}/${testQuestions.length} = ${(100 * accuracy).toFixed(1)}%\n`);
  assert.ok(accuracy <= 0.4, `text-only baseline ${(100 * accuracy).toFixed(1)}% > 40%`);
});

test('every task has at least 8 test questions; the test split is the largest', async () => {
  const [train, valid, testQuestions] = await Promise.all([split('train'), split('valid'), split('test')]);
  for (const task of TASK_NAMES) {
    const n = testQuestions.filter((q) => q.task === task).length;
    assert.ok(n >= 8, `${task}: ${n} test questions`);
  }
  assert.ok(testQuestions.length > train.length && testQuestions.length > valid.length);
});

test('the answer is no more often the longest option, or the one repeating the question most, than chance', async () => {
  const all = [...(await split('train')), ...(await split('valid')), ...(await split('test'))];
  const strictlyMost = (values: number[], index: number) => values.every((v, i) => i === index || v < values[index]!);
  let longest = 0;
  let mostOverlap = 0;
  for (const q of all) {
    const options = q.options;
    const questionWords = new Set(contentTokens(q.text));
    if (strictlyMost(options.map((o) => o.length), answerIndex(q))) longest++;
    if (strictlyMost(options.map((o) => contentTokens(o).filter((w) => questionWords.has(w)).length), answerIndex(q))) mostOverlap++;
  }
  process.stdout.write(`# demo: answer strictly longest in ${longest}/${all.length}, strictly most question words in ${mostOverlap}/${all.length}\n`);
  // Chance for "strictly the longest of four" is at most 1/4; allow sampling noise, not a pattern.
  assert.ok(longest / all.length <= 0.3, `answer is the longest option in ${longest} of ${all.length}`);
  assert.ok(mostOverlap / all.length <= 0.2, `answer repeats the question most in ${mostOverlap} of ${all.length}`);
});

test('the key is balanced over A–D in every split (each letter within one of a quarter)', async () => {
  for (const name of ['train', 'valid', 'test']) {
    const questions = await split(name);
    for (const letter of LETTERS) {
      const n = questions.filter((q) => q.answer === letter).length;
      assert.ok(Math.abs(n - questions.length / 4) <= 1, `${name}: ${letter} is the answer ${n} times of ${questions.length}`);
    }
  }
});
