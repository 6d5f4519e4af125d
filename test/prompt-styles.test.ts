import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { DEMO_DATASET } from '../src/cli/commands/demo-dataset.js';
import { LETTERS, type Letter } from '../src/core/question.js';
import { extractAnswer } from '../src/extract/extract.js';
import { runCli } from './helpers/cli.js';
import { letterFor, questionOf, startFakeOpenAI, type FakeServer, type RecordedRequest } from './helpers/fake-openai-server.js';
import { tempDir } from './helpers/records.js';

/** What a reply is written from: the letter the model chose, that option's text, and another option it weighed. */
interface Choice {
  letter: Letter;
  text: string;
  other: Letter;
  otherText: string;
}

/**
 * Replies as models give them in each prompt style — clean ones and the messy ones seen in practice (markdown around
 * the answer, LaTeX dress, a self-correction, a reasoning block, the letter with its option text, odd spacing, a
 * closing tag cut off at the token limit).
 */
const STYLES: Record<string, ((c: Choice) => string)[]> = {
  'rexvqa-boxed': [
    (c) => `Step 1: The frontal view shows the relevant region clearly.\nStep 2: Option ${c.other} (${c.otherText}) does not fit the appearance.\nStep 3: Option ${c.letter} (${c.text}) matches the findings.\n\nTherefore, the answer is \\boxed{${c.letter}}.`,
    (c) => `Looking at both views, the findings are most consistent with ${c.text.toLowerCase()}.\n\nThe answer is $\\boxed{\\text{${c.letter}}}$`,
    (c) => `Let me weigh each option.\n- ${c.other}: ${c.otherText} — not supported.\n- ${c.letter}: ${c.text} — supported by the images.\n\n\\[\n\\boxed{${c.letter}}\n\\]`,
    (c) => `**Reasoning:** At first I leaned towards ${c.other}, but the lateral view changes that: the appearance is that of ${c.text.toLowerCase()}.\n\n**Final answer:** \\boxed{ ${c.letter} }`,
    (c) => `Findings reviewed.\n\n\\boxed{${c.letter}. ${c.text}}`,
    (c) => `<think>\nThe question asks about this finding. Could it be ${c.other}? The margins argue against it. So ${c.letter}.\n</think>\nThe findings fit ${c.text.toLowerCase()}. \\boxed{${c.letter}}`,
  ],
  'rexvqa-answer-only': [
    (c) => c.letter,
    (c) => `${c.letter}.`,
    (c) => `**${c.letter}**`,
    (c) => `Answer: ${c.letter}`,
    (c) => `${c.letter}. ${c.text}`,
    (c) => `  (${c.letter})\n`,
  ],
  'rexvqa-explain-answer': [
    (c) => `The images show the appearance of ${c.text.toLowerCase()}.\n<answer>${c.letter}</answer>`,
    (c) => `Explanation: ${c.text} is supported by the frontal view, not ${c.otherText.toLowerCase()}.\n<answer> ${c.letter} </answer>`,
    (c) => `The findings point to ${c.text.toLowerCase()}.\n<answer>${c.letter}. ${c.text}</answer>`,
    (c) => `**Explanation:** The relevant finding is best described by option ${c.letter}.\n\n**<answer>${c.letter}</answer>**`,
    (c) => `Consistent with ${c.text.toLowerCase()} rather than option ${c.other}.\n<Answer>${c.letter}</Answer>`,
    (c) => `The lateral view confirms ${c.text.toLowerCase()}.\n<answer>${c.letter}`,
  ],
};

const demo = JSON.parse(readFileSync(join(DEMO_DATASET, 'metadata', 'test_vqa_data.json'), 'utf8')) as Record<string, { question: string; options: string[] }>;
const optionTexts = (options: string[]) => options.map((o) => o.replace(/^[A-D]\.\s*/, ''));

function choice(options: readonly string[], letter: Letter): Choice {
  const i = LETTERS.indexOf(letter);
  const other = LETTERS[(i + 1) % 4]!;
  return { letter, text: options[i]!, other, otherText: options[(i + 1) % 4]! };
}

test('prompt styles: every reply of every style is read as the letter it chose, for every letter, on the demo questions', () => {
  let read = 0;
  for (const [style, replies] of Object.entries(STYLES)) {
    for (const record of Object.values(demo).slice(0, 12)) {
      const options = optionTexts(record.options);
      for (const letter of LETTERS) {
        replies.forEach((reply, i) => {
          const output = reply(choice(options, letter));
          assert.equal(extractAnswer(output, options).letter, letter, `${style} reply ${i + 1}: ${JSON.stringify(output)}`);
          read++;
        });
      }
    }
  }
  assert.equal(read, 3 * 12 * 4 * 6);
});

let server: FakeServer;
/** The letter the stand-in model chose for each question text, and the style it replies in (its model name). */
const served = new Map<string, Letter>();
before(async () => {
  let n = 0;
  server = await startFakeOpenAI({
    reply: (r: RecordedRequest) => {
      const letter = letterFor(r.text) as Letter;
      served.set(questionOf(r.text), letter);
      const options = [...r.text.matchAll(/^([A-D])\. (.*)$/gm)].map((m) => m[2]!);
      const replies = STYLES[r.body.model!]!;
      return replies[n++ % replies.length]!(choice(options, letter));
    },
  });
});
after(() => server.close());

for (const style of Object.keys(STYLES)) {
  for (const context of [false, true]) {
    test(`prompt styles: eval --prompt ${style}${context ? ' --patient-context' : ''} through a stand-in server reads every answer it gave`, async () => {
      const out = join(tempDir(), 'run');
      const before = server.requests.length;
      const run = await runCli(['eval', '--data', DEMO_DATASET, '--model', `openai:${style}`, '--endpoint', server.url, '--prompt', style, ...(context ? ['--patient-context'] : []), '--limit', '12', '--concurrency', '1', '--out', out, '--quiet']);
      assert.equal(run.code, 0, run.stderr);
      const requests = server.requests.slice(before);
      assert.equal(requests.length, 12);
      // Every demo record has an age and sex: the context line is there exactly when asked for.
      for (const r of requests) assert.equal(/^Patient: \d+-year-old, sex [MF]\./.test(r.text), context, r.text.slice(0, 80));
      const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
      assert.deepEqual([manifest.prompt.name, manifest.prompt.patientContext], [style, context]);
      const outcomes = readFileSync(join(out, 'outcomes.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { questionId: string; predicted: string | null; status: string });
      assert.equal(outcomes.length, 12);
      for (const o of outcomes) assert.equal(o.predicted, served.get(demo[o.questionId]!.question), `${o.questionId} (${o.status})`);
    });
  }
}
