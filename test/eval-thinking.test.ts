import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { DEMO_DATASET } from '../src/cli/commands/demo-dataset.js';
import { runCli } from './helpers/cli.js';
import { DEMO_TEST } from './helpers/demo.js';
import { letterFor, startFakeOpenAI, type FakeServer } from './helpers/fake-openai-server.js';
import { tempDir } from './helpers/records.js';

/**
 * A thinking model (Gemma 4 with enable_thinking) behind a stand-in that answers the way `vllm serve …
 * --reasoning-parser gemma4` does: the reasoning in `message.reasoning`, the answer in `content` (the body shape of
 * https://docs.vllm.ai/en/stable/features/reasoning_outputs/). Requests take turns: the first of every three gets an
 * answer, the second an answer only in its reasoning (`content: null`), the third is cut at the token limit while
 * thinking (`finish_reason: "length"`, `content: null`).
 */
type Kind = 'answered' | 'answer-in-reasoning' | 'cut';
const KINDS: Kind[] = ['answered', 'answer-in-reasoning', 'cut'];
const expected = (kind: Kind) => Array.from({ length: DEMO_TEST.n }, (_, i) => KINDS[i % 3]).filter((k) => k === kind).length;

let server: FakeServer;
before(async () => {
  server = await startFakeOpenAI({
    completion: (request) => {
      const kind = KINDS[(server.requests.length - 1) % 3]!;
      const letter = letterFor(request.text);
      const message = {
        answered: { role: 'assistant', reasoning: `The image shows the finding. Option ${letter} fits best.`, content: JSON.stringify({ answer: letter, explanation: 'fits' }), tool_calls: [] },
        'answer-in-reasoning': { role: 'assistant', reasoning: `Weighing each option in turn. Therefore, the answer is ${letter}.`, content: null, tool_calls: [] },
        cut: { role: 'assistant', reasoning: 'Let me look at the lungs first. The left costophrenic angle', content: null, tool_calls: [] },
      }[kind];
      return {
        id: 'chatcmpl-9f2', object: 'chat.completion', created: 1767225600, model: request.body.model,
        choices: [{ index: 0, message, logprobs: null, finish_reason: kind === 'cut' ? 'length' : 'stop', stop_reason: null }],
        usage: { prompt_tokens: 812, total_tokens: 4908, completion_tokens: 4096, prompt_tokens_details: null },
      };
    },
  });
});
after(() => server.close());

test('eval: a thinking model on vLLM — --param sent, reasoning kept, answers read from reasoning and truncations counted everywhere', async () => {
  const dir = tempDir();
  const out = join(dir, 'run');
  const run = await runCli([
    'eval', '--data', DEMO_DATASET, '--model', 'openai:google/gemma-4-31B-it', '--endpoint', server.url, '--concurrency', '1', '--max-tokens', '4096',
    '--param', 'chat_template_kwargs={"enable_thinking":true}', '--param', 'top_k=64', '--out', out, '--quiet',
  ]);
  assert.equal(run.code, 0, run.stderr);

  // What was sent: the options merged into every request body, beside the fields cxrbench sets itself.
  assert.equal(server.requests.length, DEMO_TEST.n);
  for (const r of server.requests) {
    assert.deepEqual({ kwargs: r.body.chat_template_kwargs, top_k: r.body.top_k, max_tokens: r.body.max_tokens, temperature: r.body.temperature, model: r.body.model },
      { kwargs: { enable_thinking: true }, top_k: 64, max_tokens: 4096, temperature: 0, model: 'google/gemma-4-31B-it' });
  }
  // Recorded: the manifest's parameters hold the options, keys sorted.
  const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
  assert.deepEqual(manifest.params, { temperature: 0, maxTokens: 4096, seed: 0, requestParams: { chat_template_kwargs: { enable_thinking: true }, top_k: 64 } });

  // Stored: every reasoning beside its answer, in the journal.
  const journal = readFileSync(join(out, 'predictions.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(journal.filter((p) => typeof p.response.reasoning === 'string' && p.response.reasoning.length > 0).length, DEMO_TEST.n);
  assert.equal(journal.filter((p) => p.response.finishReason === 'length').length, expected('cut'));

  // Read: an empty answer is read from the reasoning's conclusion (rule reasoning:*); a reply cut short is truncated.
  const outcomes = readFileSync(join(out, 'outcomes.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { questionId: string; status: string; extraction: { rule: string } | null });
  const byId = new Map(journal.map((p) => [p.questionId, p]));
  for (const o of outcomes) {
    const response = byId.get(o.questionId).response;
    const kind: Kind = response.finishReason === 'length' ? 'cut' : response.text === '' ? 'answer-in-reasoning' : 'answered';
    if (kind === 'cut') assert.deepEqual([o.status, o.extraction?.rule], ['truncated', 'empty']);
    else if (kind === 'answer-in-reasoning') assert.match(`${o.status} ${o.extraction?.rule}`, /^(correct|wrong) reasoning:answer$/);
    else assert.match(`${o.status} ${o.extraction?.rule}`, /^(correct|wrong) json$/);
  }
  const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
  assert.deepEqual({ truncated: summary.overall.truncated, unparseable: summary.overall.unparseable, fromReasoning: summary.overall.readFromReasoning, read: summary.overall.readByRule },
    { truncated: expected('cut'), unparseable: 0, fromReasoning: expected('answer-in-reasoning'), read: expected('answered') + expected('answer-in-reasoning') });
  assert.match(run.stdout, /\btruncated\b/);
  assert.ok(run.stdout.includes(`(${expected('answer-in-reasoning')} of them from the reasoning: the answer was empty)`), run.stdout);
  assert.ok(run.stdout.includes(`0 unparseable (counted wrong), ${expected('cut')} truncated at the token limit (counted wrong; raise --max-tokens)`), run.stdout);
  // The ReXrank file marks the cut replies, so a board scoring it counts them truncated too.
  const rexrank = JSON.parse(readFileSync(join(out, 'rexrank-predictions.json'), 'utf8')) as Record<string, { finish_reason?: string }>;
  assert.equal(Object.values(rexrank).filter((r) => r.finish_reason === 'length').length, expected('cut'));

  // Scored from the journal again: JSON and Markdown count truncated apart from unparseable.
  const json = await runCli(['score', out, '--format', 'json', '--resamples', '50']);
  assert.equal(json.code, 0, json.stderr);
  assert.deepEqual([JSON.parse(json.stdout).overall.truncated, JSON.parse(json.stdout).overall.unparseable], [expected('cut'), 0]);
  const md = await runCli(['score', out, '--format', 'md', '--resamples', '50']);
  assert.ok(md.stdout.includes(`0 unparseable (0.0%, counted wrong), ${expected('cut')} truncated at the token limit`), md.stdout);
  assert.match(md.stdout, /\| unparseable \| truncated \| error \|/);

  // The HTML report: truncated in its tables, and each item's reasoning folded under its output.
  const report = await runCli(['report', out]);
  assert.equal(report.code, 0, report.stderr);
  const html = readFileSync(join(out, 'report.html'), 'utf8');
  assert.equal((html.match(/<details class="reasoning"><summary>reasoning<\/summary>/g) ?? []).length, DEMO_TEST.n);
  assert.ok(html.includes('<th>unparseable</th><th>truncated</th><th>n</th>'));
  assert.equal((html.match(/data-status-0="truncated"/g) ?? []).length, expected('cut'));

  // Other options are another run: the folder refuses to mix them, naming the difference.
  const again = await runCli(['eval', '--data', DEMO_DATASET, '--model', 'openai:google/gemma-4-31B-it', '--endpoint', server.url, '--max-tokens', '4096', '--param', 'chat_template_kwargs={"enable_thinking":false}', '--param', 'top_k=64', '--out', out, '--quiet']);
  assert.equal(again.code, 2);
  assert.match(again.stderr, /generation parameters: the run used .*"enable_thinking":true.*, now .*"enable_thinking":false/);
  assert.equal(server.requests.length, DEMO_TEST.n, 'nothing was asked for the refused run');
});

test('eval: --param is refused, naming it, when it is not JSON or sets a field a flag sets (exit 2, no request sent)', async () => {
  const cases: [string, RegExp][] = [
    ['temperature=0.7', /--param temperature: cxrbench sets "temperature" itself; use --temperature/],
    ['max_tokens=9000', /--param max_tokens: cxrbench sets "max_tokens" itself; use --max-tokens \(or --param max_completion_tokens=<n>/],
    ['messages=[]', /--param messages: cxrbench sets "messages" itself; the prompt builds them: use --prompt/],
    ['model="x"', /--param model: cxrbench sets "model" itself; use --model/],
    ['reasoning_effort=high', /--param reasoning_effort=high: the value is not JSON \(.*\); write strings in quotes, e\.g\. --param reasoning_effort='"high"'/],
    ['enable_thinking', /--param enable_thinking: expected key=<JSON value>/],
  ];
  const before = server.requests.length;
  for (const [param, message] of cases) {
    const run = await runCli(['eval', '--data', DEMO_DATASET, '--model', 'openai:m', '--endpoint', server.url, '--param', param, '--out', join(tempDir(), 'run'), '--quiet']);
    assert.equal(run.code, 2, `${param}: ${run.stderr}`);
    assert.match(run.stderr, message);
    assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
  }
  assert.equal(server.requests.length, before);
});
