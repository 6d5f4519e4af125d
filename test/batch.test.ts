import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { evaluate } from '../src/cli/evaluate.js';
import { DEMO_DATASET } from '../src/cli/commands/demo-dataset.js';
import { CxrError } from '../src/core/errors.js';
import { questionOf, startFakeOpenAI } from './helpers/fake-openai-server.js';
import { DEMO_TEST } from './helpers/demo.js';
import { evalSettings } from './helpers/eval-settings.js';
import { tempDir } from './helpers/records.js';

const outcomes = (dir: string) => readFileSync(join(dir, 'outcomes.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { questionId: string; status: string; predicted: string | null });

test('batch mode: write, submit, poll, collect into the same journal; outcomes equal an online run; a failed line is an error', async () => {
  const server = await startFakeOpenAI({ batchPollsUntilDone: 2, fault: (_i, r) => (questionOf(r.text) === 'Is there a pneumothorax?' ? '500' : null) });
  try {
    const batchOut = join(tempDir(), 'batch');
    const batched = await evaluate(evalSettings({ data: DEMO_DATASET, model: 'openai:fake-model', endpoint: [server.url], out: batchOut, batchPollSeconds: 0.05 }));
    assert.equal(server.batches.length, 1);
    assert.equal(server.batches[0]!.lines, DEMO_TEST.n);
    assert.equal(batched.summary.complete, true);
    assert.equal(batched.summary.overall.error, 1);
    const input = readFileSync(join(batchOut, 'batches', 'input-001.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { custom_id: string; url: string; body: { messages: unknown[] } });
    assert.equal(input.length, DEMO_TEST.n);
    assert.ok(input.every((l) => l.url === '/v1/chat/completions' && l.body.messages.length === 2));

    const online = join(tempDir(), 'online');
    await evaluate(evalSettings({ data: DEMO_DATASET, model: 'openai:fake-model', endpoint: [server.url], out: online }));
    assert.deepEqual(outcomes(batchOut).map((o) => [o.questionId, o.status, o.predicted]), outcomes(online).map((o) => [o.questionId, o.status, o.predicted]));
  } finally {
    await server.close();
  }
});

test('batch mode: an interrupted run resumes polling the submitted job instead of submitting again', async () => {
  const server = await startFakeOpenAI({ batchPollsUntilDone: 3 });
  try {
    const out = join(tempDir(), 'batch');
    const stop = new AbortController();
    const settings = evalSettings({ data: DEMO_DATASET, model: 'openai:fake-model', endpoint: [server.url], out, batchPollSeconds: 0.05 });
    const first = evaluate({ ...settings, signal: stop.signal, onProgress: () => stop.abort() });
    const stopped = await first;
    assert.equal(stopped.result.stoppedBy, 'signal');
    assert.equal(stopped.summary.complete, false);
    assert.equal(server.batches.length, 1);
    const resumed = await evaluate(settings);
    assert.equal(server.batches.length, 1, 'not submitted again');
    assert.equal(resumed.summary.complete, true);
    assert.equal(resumed.summary.overall.n, DEMO_TEST.n);
  } finally {
    await server.close();
  }
});

test('batch mode: a model without a batch API is refused before anything is sent', async () => {
  await assert.rejects(evaluate(evalSettings({ data: DEMO_DATASET, model: 'baseline:random', out: join(tempDir(), 'x'), batchPollSeconds: 1 })), (e: unknown) => e instanceof CxrError && /has no batch API/.test(e.message));
});
