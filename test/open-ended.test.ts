import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { DEMO_DATASET } from '../src/cli/commands/demo-dataset.js';
import { scoreOpenAnswer } from '../src/rrg/open-answer-metrics.js';
import { OPEN_JUDGE_PROMPT_SHA256 } from '../src/judge/judge-prompt.js';
import { runCli } from './helpers/cli.js';
import { questionOf, startFakeOpenAI, type FakeServer, type RecordedRequest } from './helpers/fake-openai-server.js';
import { tempDir } from './helpers/records.js';

type Demo = Record<string, { question: string; options: string[]; correct_answer: string; task_name: string }>;
const demo = JSON.parse(readFileSync(join(DEMO_DATASET, 'metadata', 'test_vqa_data.json'), 'utf8')) as Demo;
const ids = Object.keys(demo).slice(0, 8);
const optionText = (id: string, letter: string) => demo[id]!.options['ABCD'.indexOf(letter)]!.replace(/^[A-D]\.\s*/, '');
const byQuestion = new Map(ids.map((id) => [demo[id]!.question, id]));
const other = (letter: string) => 'ABCD'[('ABCD'.indexOf(letter) + 1) % 4]!;

/**
 * The free answer the stand-in model gives to each of the first 8 demo questions: the correct option's text as is,
 * dressed (article, full stop, case), a wrong option's text, a hedge that names nothing, and (under a reasoning block)
 * the correct text again — rotating over the questions.
 */
function openAnswer(id: string): string {
  const gold = demo[id]!.correct_answer;
  switch (ids.indexOf(id) % 5) {
    case 0: return optionText(id, gold);
    case 1: return `The ${optionText(id, gold).toLowerCase()}.`;
    case 2: return optionText(id, other(gold));
    case 3: return 'Cannot say from these images.';
    default: return `<think>Looking at the frontal view first.</think>\n${optionText(id, gold)}`;
  }
}

/** The judge stand-in maps an answer to the option whose text it contains, or none (as a careful reader would). */
function judgeReply(r: RecordedRequest): string {
  const shown = /<<<RESPONSE\n([\s\S]*)\nRESPONSE>>>/.exec(r.text)?.[1] ?? '';
  const options = [...r.text.matchAll(/^([A-D])\. (.*)$/gm)];
  const hit = options.find((m) => shown.toLowerCase().includes(m[2]!.toLowerCase()));
  return hit ? hit[1]! : 'none';
}

let server: FakeServer;
before(async () => {
  server = await startFakeOpenAI({
    reply: (r) => {
      if (r.body.model === 'judge') return judgeReply(r);
      const id = byQuestion.get(questionOf(r.text))!;
      return r.text.includes('Options:') ? JSON.stringify({ answer: demo[id]!.correct_answer }) : openAnswer(id);
    },
  });
});
after(() => server.close());

const evalArgs = (out: string, ...more: string[]) => ['eval', '--data', DEMO_DATASET, '--model', 'openai:vlm', '--endpoint', server.url, '--limit', '8', '--out', out, '--quiet', ...more];

test('eval --open: asks without options, scores each answer by text against the correct option, and with --judge gives an accuracy; report sets it beside the multiple-choice run', async () => {
  const dir = tempDir();
  const open = join(dir, 'open');
  const before = server.requests.length;
  const run = await runCli(evalArgs(open, '--open', '--judge', 'openai:judge', '--judge-endpoint', server.url));
  assert.equal(run.code, 0, run.stderr);
  const asked = server.requests.slice(before).filter((r) => r.body.model === 'vlm');
  assert.equal(asked.length, 8);
  for (const r of asked) {
    assert.match(r.text, /\nQuestion: .*\n\nNo answer options are given: answer in your own words/);
    assert.doesNotMatch(r.text, /Options:|^[A-D]\. /m);
  }
  const manifest = JSON.parse(readFileSync(join(open, 'manifest.json'), 'utf8'));
  assert.deepEqual([manifest.mode, manifest.prompt.name], ['open', 'rexvqa-open']);
  // The judge is asked with its open-answer prompt (the model saw no options), recorded as such.
  assert.deepEqual(manifest.extractor.judge.prompt, { name: 'cxrbench-open-answer-judge', version: '1', sha256: OPEN_JUDGE_PROMPT_SHA256 });
  const judged = server.requests.slice(before).filter((r) => r.body.model === 'judge');
  assert.ok(judged.length > 0);
  for (const r of judged) assert.match(r.text, /WITHOUT being shown any options[^]*Which single option below says the same as that answer\?/);

  // Per question: the answer after any reasoning block, the correct option's text, and the rrg/ scores of the pair.
  const records = readFileSync(join(open, 'open-answers.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const expected = ids.map((id) => {
    const reference = optionText(id, demo[id]!.correct_answer);
    const answer = openAnswer(id).replace(/^<think>[\s\S]*<\/think>\n/, '');
    return { questionId: id, task: demo[id]!.task_name, reference, answer, scores: scoreOpenAnswer(reference, answer) };
  });
  assert.deepEqual(records, expected);
  // Exact on cases 0, 1 and 4 of the rotation (questions 0, 1, 4, 5, 6): 5 of 8.
  assert.deepEqual(records.map((r) => r.scores.exactMatch), [1, 1, 0, 0, 1, 1, 1, 0]);
  const summary = JSON.parse(readFileSync(join(open, 'summary.json'), 'utf8'));
  const mean = (key: 'exactMatch' | 'tokenF1' | 'rougeL') => expected.reduce((s, r) => s + r.scores[key], 0) / 8;
  assert.deepEqual(summary.openEnded.overall, { n: 8, answered: 8, exactMatch: mean('exactMatch'), tokenF1: mean('tokenF1'), rougeL: mean('rougeL') });

  // The judge maps the five correct texts to the gold option, the wrong text to its option, the hedge to none.
  const outcomes = readFileSync(join(open, 'outcomes.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { status: string; extraction: { rule: string } });
  assert.deepEqual(outcomes.map((o) => o.status), ['correct', 'correct', 'wrong', 'unparseable', 'correct', 'correct', 'correct', 'wrong']);
  assert.ok(outcomes.filter((o) => o.status !== 'unparseable').every((o) => o.extraction.rule === 'judge'));
  assert.match(run.stdout, /open-ended \(no options\), scored against the correct option's text\ntask .* exact match {2}token F1 {2}ROUGE-L {2}judged accuracy\n/);
  assert.match(run.stdout, /all questions +8 +8 +62\.5% +\d+\.\d% +\d+\.\d% +62\.5%\n/);

  // score on the saved open run gives its text scores too, the same as eval wrote.
  const scoredJson = await runCli(['score', open, '--format', 'json']);
  assert.equal(scoredJson.code, 0, scoredJson.stderr);
  assert.deepEqual(JSON.parse(scoredJson.stdout).openEnded, summary.openEnded);
  const scoredTable = await runCli(['score', open]);
  assert.match(scoredTable.stdout, /open-ended \(no options\), text scores against the correct option's text\ntask .* exact match {2}token F1 {2}ROUGE-L\n/);

  const mc = join(dir, 'mc');
  assert.equal((await runCli(evalArgs(mc))).code, 0);
  const html = join(dir, 'report.html');
  const report = await runCli(['report', mc, open, '--out', html]);
  assert.equal(report.code, 0, report.stderr);
  const page = readFileSync(html, 'utf8');
  assert.match(page, /<h2>Multiple choice and open-ended<\/h2>/);
  const allRow = /<tr><td>all questions<\/td><td>8<\/td><td>100\.0%<\/td><td>8<\/td><td>62\.5%<\/td><td>62\.5%<\/td><td>([\d.]+)%<\/td><td>([\d.]+)%<\/td><\/tr>/.exec(page);
  assert.ok(allRow, 'the all-questions row: MC 8 at 100%, open 8 judged 62.5%, exact 62.5%');
  assert.deepEqual([allRow[1], allRow[2]], [(100 * mean('tokenF1')).toFixed(1), (100 * mean('rougeL')).toFixed(1)]);
  assert.match(page, /vlm \[open-ended\]/);
});

test('eval --open: without a judge only the text scores; its own run (a multiple-choice rerun into its folder is refused); wrong templates and baselines refused', async () => {
  const dir = tempDir();
  const open = join(dir, 'open');
  const run = await runCli(evalArgs(open, '--open'));
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /exact match {2}token F1 {2}ROUGE-L\n/);
  assert.doesNotMatch(run.stdout, /judged accuracy|read by rules/);
  assert.match(run.stdout, /complete: 8 of 8 questions answered\n/);
  const mixed = await runCli(evalArgs(open));
  assert.equal(mixed.code, 2);
  assert.match(mixed.stderr, /mode: the run is open-ended \(--open\), now multiple choice/);
  const cases: [string[], RegExp][] = [
    [['--open', '--prompt', 'rexvqa-letter'], /--prompt rexvqa-letter: a multiple-choice template; --open needs an open one/],
    [['--prompt', 'rexvqa-open'], /--prompt rexvqa-open: an open-ended template \(no options\); add --open/],
    [['--open', '--shuffle-check', '3'], /--shuffle-check permutes the options, which an --open run does not show/],
  ];
  for (const [flags, message] of cases) {
    const refused = await runCli(evalArgs(join(dir, 'x'), ...flags));
    assert.equal(refused.code, 2, flags.join(' '));
    assert.match(refused.stderr, message);
  }
  const baseline = await runCli(['eval', '--data', DEMO_DATASET, '--model', 'baseline:random', '--open', '--out', join(dir, 'b'), '--quiet']);
  assert.equal(baseline.code, 2);
  assert.match(baseline.stderr, /--open: the baseline random picks letters and cannot answer without options/);
});
