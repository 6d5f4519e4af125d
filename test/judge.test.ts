import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildJudgeRequest, JUDGE_PROMPT, parseJudgeReply } from '../src/judge/judge-prompt.js';
import { runCli } from './helpers/cli.js';
import { startFakeOpenAI, type RecordedRequest } from './helpers/fake-openai-server.js';
import { tempDir } from './helpers/records.js';
import { DEMO_DATASET } from '../src/cli/commands/demo-dataset.js';

const OPTIONS = ['Left lower lobe', 'Right upper lobe', 'Bilateral', 'No consolidation'];

/** What the judge stand-in replies, keyed by a phrase of the output it is shown (as a model would "read" it). */
function judgeReply(request: RecordedRequest): string {
  const shown = /<<<RESPONSE\n([\s\S]*)\nRESPONSE>>>/.exec(request.text)?.[1] ?? '';
  if (shown.includes('the fissure one')) return 'B';
  if (shown.includes('both lungs, I reckon')) return '<think>The output means bilateral.</think>\n**C**';
  if (shown.includes('sitting on the fence')) return 'none';
  if (shown.includes('gibberish')) return 'The response seems to lean towards the second option maybe.';
  return 'none';
}

const LINES = [
  { id: 'rules', output: 'The answer is D.', options: OPTIONS }, // the rules read it: the judge is not asked
  { id: 'judged', output: 'Going by the bulge of the fissure, the fissure one is what I pick.', options: OPTIONS },
  { id: 'reasoning-judge', output: 'Opacities in both lungs, I reckon.', options: OPTIONS, question: 'Where is the consolidation?' },
  { id: 'none', output: 'Honestly sitting on the fence between two of them here.', options: OPTIONS },
  { id: 'nonsense', output: 'gibberish gibberish.', options: OPTIONS },
  { id: 'empty', output: '', options: OPTIONS }, // nothing to read: not asked
];

function writeLines(dir: string, lines: object[]): string {
  const file = join(dir, 'outputs.jsonl');
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return file;
}

test('judge prompt: fixed and versioned; placeholders inside an output are not expanded; a long output keeps head and tail', () => {
  assert.equal(JUDGE_PROMPT.version, '1');
  const request = buildJudgeRequest({ id: 'x', output: 'I pick {{options}} — B', options: OPTIONS, question: 'Where?' }, 'key', { temperature: 0, maxTokens: 64 });
  const user = (request.messages[1]!.content as { text: string }[])[0]!.text;
  assert.match(user, /Question: Where\?\nOptions:\nA\. Left lower lobe\nB\. Right upper lobe/);
  assert.match(user, /<<<RESPONSE\nI pick \{\{options\}\} — B\nRESPONSE>>>/);
  const long = buildJudgeRequest({ id: 'y', output: `START ${'x'.repeat(20_000)} END`, options: OPTIONS }, 'key', { temperature: 0, maxTokens: 64 });
  const text = (long.messages[1]!.content as { text: string }[])[0]!.text;
  assert.match(text, /START/);
  assert.match(text, /END\nRESPONSE>>>/);
  assert.match(text, /characters omitted/);
  assert.ok(text.length < 12_000);
});

test('judge reply: one of A–D or none, tolerating markup and a reasoning block; anything else is unreadable, never a guess', () => {
  const cases: [string, string][] = [
    ['B', 'letter:B'], [' (c). ', 'letter:C'], ['**D**', 'letter:D'], ['Answer: A', 'letter:A'], ['None', 'none'], ['none.', 'none'],
    ['<think>maybe A</think> B', 'letter:B'], ['E', 'unreadable-reply'], ['A or B', 'unreadable-reply'], ['I think it is B', 'unreadable-reply'], ['', 'unreadable-reply'],
  ];
  for (const [reply, want] of cases) {
    const v = parseJudgeReply(reply);
    assert.equal(v.kind === 'letter' ? `letter:${v.letter}` : v.kind, want, JSON.stringify(reply));
  }
});

test('extract --judge: asked only about what the rules cannot read; letters, "none" and unreadable replies kept apart; a rerun asks nothing', async () => {
  const server = await startFakeOpenAI({ reply: judgeReply });
  try {
    const dir = tempDir();
    const input = writeLines(dir, LINES);
    const out = join(dir, 'read.jsonl');
    const args = ['extract', '--in', input, '--out', out, '--judge', 'openai:judge-model', '--judge-endpoint', server.url];
    const run = await runCli(args);
    assert.equal(run.code, 0, run.stderr);
    const read = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id: string; letter: string | null; rule: string; judge?: { kind: string; model: string; reply?: string } });
    const byId = new Map(read.map((r) => [r.id, r]));
    assert.deepEqual([byId.get('rules')!.letter, byId.get('rules')!.rule, byId.get('rules')!.judge], ['D', 'answer', undefined]);
    assert.deepEqual([byId.get('judged')!.letter, byId.get('judged')!.rule, byId.get('judged')!.judge!.kind, byId.get('judged')!.judge!.model], ['B', 'judge', 'letter', 'judge-model']);
    assert.deepEqual([byId.get('reasoning-judge')!.letter, byId.get('reasoning-judge')!.rule], ['C', 'judge']);
    assert.deepEqual([byId.get('none')!.letter, byId.get('none')!.judge!.kind], [null, 'none']);
    assert.deepEqual([byId.get('nonsense')!.letter, byId.get('nonsense')!.judge!.kind], [null, 'unreadable-reply']);
    assert.match(byId.get('nonsense')!.judge!.reply!, /lean towards the second option/);
    assert.deepEqual([byId.get('empty')!.letter, byId.get('empty')!.rule, byId.get('empty')!.judge], [null, 'empty', undefined]);
    assert.equal(server.requests.length, 4, 'four outputs the rules cannot read, each asked once');
    assert.match(server.requests[1]!.text, /Question: Where is the consolidation\?/);
    assert.equal(server.requests[0]!.body.temperature, 0);
    const again = await runCli(args);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(server.requests.length, 4, 'the journal answers a rerun: nothing is asked twice');
    assert.equal(readFileSync(out, 'utf8'), readFileSync(out, 'utf8'));
    assert.match(again.stderr, /judge judge-model: 0 asked now, 4 from its journal/);
  } finally {
    await server.close();
  }
});

test('extract --judge: a judge that is down, slow or failing leaves those items unreadable and named; the command still finishes', async () => {
  const dir = tempDir();
  // Down: a port nobody listens on. After a few failures in a row the judge is not asked again.
  const many = Array.from({ length: 30 }, (_, i) => ({ id: `q${i}`, output: `Hmm, the fissure one maybe ${i}.`, options: OPTIONS }));
  const input = writeLines(dir, many);
  const dead = await startFakeOpenAI({});
  const deadUrl = dead.url;
  await dead.close();
  const down = await runCli(['extract', '--in', input, '--judge', 'openai:judge', '--judge-endpoint', deadUrl, '--judge-journal', join(dir, 'j1.jsonl')]);
  assert.equal(down.code, 0, down.stderr);
  const lines = down.stdout.trim().split('\n').map((l) => JSON.parse(l) as { letter: string | null; judge?: { kind: string; error?: string } });
  assert.equal(lines.length, 30);
  assert.ok(lines.every((l) => l.letter === null && l.judge?.kind === 'failed'));
  assert.ok(lines.some((l) => /judge unavailable/.test(l.judge!.error ?? '')), 'the rest were not asked once the judge was seen to be down');
  assert.match(down.stderr, /not asked \(judge unavailable\)/);

  // Slow: replies after the per-request timeout.
  const slow = await startFakeOpenAI({ reply: judgeReply, latencyMs: 2500 });
  try {
    const run = await runCli(['extract', '--in', writeLines(dir, [LINES[1]!]), '--judge', 'openai:judge', '--judge-endpoint', slow.url, '--judge-timeout', '0.5', '--judge-journal', join(dir, 'j2.jsonl')]);
    assert.equal(run.code, 0, run.stderr);
    const line = JSON.parse(run.stdout) as { letter: string | null; judge: { kind: string; error: string } };
    assert.deepEqual([line.letter, line.judge.kind], [null, 'failed']);
    assert.match(line.judge.error, /timeout/);
  } finally {
    await slow.close();
  }

  // Failing then recovering: a 500 is retried; a rerun asks again about what failed, and only that.
  let calls = 0;
  const flaky = await startFakeOpenAI({ reply: judgeReply, fault: () => (calls++ < 3 ? '500' : null) });
  try {
    const journal = join(dir, 'j3.jsonl');
    const input2 = writeLines(dir, [LINES[1]!, LINES[3]!]);
    const first = await runCli(['extract', '--in', input2, '--judge', 'openai:judge', '--judge-endpoint', flaky.url, '--judge-concurrency', '1', '--judge-journal', journal]);
    assert.equal(first.code, 0, first.stderr);
    const second = await runCli(['extract', '--in', input2, '--judge', 'openai:judge', '--judge-endpoint', flaky.url, '--judge-journal', journal]);
    const read = second.stdout.trim().split('\n').map((l) => JSON.parse(l) as { letter: string | null; judge: { kind: string } });
    assert.deepEqual(read.map((r) => r.judge.kind), ['letter', 'none']);
    assert.equal(read[0]!.letter, 'B');
  } finally {
    await flaky.close();
  }
});

test('extract: --judge only takes a model endpoint, and its endpoint flags need --judge', async () => {
  const dir = tempDir();
  const input = writeLines(dir, LINES.slice(0, 1));
  const baseline = await runCli(['extract', '--in', input, '--judge', 'baseline:random']);
  assert.equal(baseline.code, 2);
  assert.match(baseline.stderr, /a judge is a language model behind an endpoint/);
  const orphan = await runCli(['extract', '--in', input, '--judge-endpoint', 'http://127.0.0.1:9/v1']);
  assert.equal(orphan.code, 2);
  assert.match(orphan.stderr, /--judge-endpoint and --judge-api-key-env need --judge/);
});

test('eval --judge: the judge reads what the rules cannot; counts, manifest and reports say so; score re-reads offline; extract-audit shows the moves', async () => {
  const server = await startFakeOpenAI({ reply: judgeReply });
  try {
    const dir = tempDir();
    const ids = join(dir, 'ids');
    // The first 14 questions of the demo's test split: 10 + 2 + 2 below.
    await runCli(['eval', '--data', DEMO_DATASET, '--model', 'baseline:random', '--limit', '14', '--out', ids, '--quiet']);
    const gold = JSON.parse(readFileSync(join(ids, 'rexrank-predictions.json'), 'utf8')) as Record<string, { correct_answer: string }>;
    const questionIds = Object.keys(gold);
    // 10 answers the rules read; 2 only a judge reads ("the fissure one" → B); 2 the judge calls "none".
    const predictions = questionIds.map((id, i) => ({ id, prediction: i < 10 ? `The answer is ${gold[id]!.correct_answer}.` : i < 12 ? 'Clearly the fissure one here.' : 'sitting on the fence, sorry.' }));
    const file = join(dir, 'p.jsonl');
    writeFileSync(file, predictions.map((p) => JSON.stringify(p)).join('\n') + '\n');
    const out = join(dir, 'run');
    const evalArgs = ['eval', '--data', DEMO_DATASET, '--model', `replay:${file}`, '--limit', '14', '--out', out, '--quiet', '--judge', 'openai:judge-model', '--judge-endpoint', server.url];
    const run = await runCli(evalArgs);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /answers read: 10 by the rules, 2 by the judge \(judge-model\), 2 unparseable \(counted wrong\)/);
    assert.match(run.stdout, /judge: 4 asked now, 0 from its journal; read 2, said "none" for 2/);
    assert.equal(server.requests.length, 4);
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as { extractor: { judge: { model: { name: string }; prompt: { name: string; version: string; sha256: string } } } };
    assert.equal(manifest.extractor.judge.model.name, 'judge-model');
    assert.deepEqual([manifest.extractor.judge.prompt.name, manifest.extractor.judge.prompt.version], ['cxrbench-answer-judge', '1']);
    const outcomes = readFileSync(join(out, 'outcomes.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { extraction: { rule: string; judge?: { kind: string } } });
    assert.equal(outcomes.filter((o) => o.extraction.rule === 'judge').length, 2);
    assert.equal(outcomes.filter((o) => o.extraction.judge?.kind === 'none').length, 2);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as { overall: { readByRule: number; readByJudge: number; unparseable: number }; judge: { asked: number } };
    assert.deepEqual([summary.overall.readByRule, summary.overall.readByJudge, summary.overall.unparseable, summary.judge.asked], [10, 2, 2, 4]);

    // Re-scoring reads the stored verdicts: the same counts, with no request sent.
    const score = await runCli(['score', out, '--format', 'json']);
    assert.equal(score.code, 0, score.stderr);
    const results = JSON.parse(score.stdout) as { overall: { readByJudge: number; unparseable: number }; reading: { judge: string } };
    assert.deepEqual([results.overall.readByJudge, results.overall.unparseable], [2, 2]);
    assert.match(results.reading.judge, /^judge-model \(prompt cxrbench-answer-judge v1\)$/);
    const audit = await runCli(['extract-audit', out]);
    assert.match(audit.stdout, /rules \+ judge judge-model\s+\d+\.\d+%/);
    assert.match(audit.stdout, /rules \+ judge judge-model vs rules: \d+\.\d+ accuracy points; 2 item\(s\) change/);
    assert.match(audit.stdout, /unparseable → (?:correct|wrong)/);
    const rerun = await runCli(evalArgs);
    assert.equal(rerun.code, 0, rerun.stderr);
    assert.equal(server.requests.filter((r) => r.path.endsWith('/chat/completions')).length, 4, 'resuming asks the judge nothing new');
  } finally {
    await server.close();
  }
});
