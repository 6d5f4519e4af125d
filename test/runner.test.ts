import assert from 'node:assert/strict';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { evaluate } from '../src/cli/evaluate.js';
import { DEMO_DATASET } from '../src/cli/commands/demo-dataset.js';
import type { Prediction } from '../src/core/model-io.js';
import { CxrError } from '../src/core/errors.js';
import { questionOf, startFakeOpenAI, type Fault } from './helpers/fake-openai-server.js';
import { DEMO_TEST, demoSplit } from './helpers/demo.js';
import { evalSettings } from './helpers/eval-settings.js';
import { tempDir } from './helpers/records.js';
import { runCli } from './helpers/cli.js';

const journal = (dir: string) => readFileSync(join(dir, 'predictions.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Prediction);

/** Faults per question (by question text): each request for that question takes the next fault, then succeeds. */
function scripted(plan: Record<string, Fault[]>) {
  const left = new Map(Object.entries(plan).map(([q, f]) => [q, [...f]]));
  return (_i: number, r: { text: string }) => left.get(questionOf(r.text))?.shift() ?? null;
}

test('runner: 429 (honouring Retry-After), 5xx, resets, hangs and truncated 200 bodies are retried; exhausted retries are errors; empty content is unparseable', { timeout: 60_000 }, async () => {
  const texts = ['Where is the opacity with indistinct borders?', 'How large is the heart?', 'Is there a pneumothorax?', 'Which additional finding is present?', 'Is there a pleural effusion?', 'Which pattern is seen in the lungs?', 'Where are the ground-glass opacities?'];
  const server = await startFakeOpenAI({
    retryAfterSeconds: 1,
    fault: scripted({ [texts[0]!]: ['429'], [texts[1]!]: ['500', '503'], [texts[2]!]: ['reset'], [texts[3]!]: ['hang'], [texts[4]!]: ['malformed'], [texts[5]!]: ['empty'], [texts[6]!]: ['500', '500', '500'] }),
  });
  try {
    const out = join(tempDir(), 'run');
    const { summary, result } = await evaluate(evalSettings({ data: DEMO_DATASET, model: 'openai:fake-model', endpoint: [server.url], out, timeoutMs: 400 }));
    const byText = new Map<string, Prediction>();
    const questionText = new Map(server.requests.map((r) => [questionOf(r.text), r]));
    assert.equal(questionText.size, DEMO_TEST.n, 'the demo test split has no two questions with the same text');
    const preds = journal(out);
    assert.equal(preds.length, DEMO_TEST.n, 'one journal line per question');
    // Map predictions to question texts through the ReXrank file (input records + model_prediction).
    const rexrank = JSON.parse(readFileSync(join(out, 'rexrank-predictions.json'), 'utf8')) as Record<string, { question: string; model_prediction: string | null }>;
    for (const p of preds) byText.set(rexrank[p.questionId]!.question, p);
    assert.equal(byText.get(texts[0]!)!.attempts, 2);
    const asks = server.requests.filter((r) => questionOf(r.text) === texts[0]);
    assert.equal(asks.length, 2);
    assert.equal(byText.get(texts[1]!)!.attempts, 3);
    assert.equal(byText.get(texts[2]!)!.attempts, 2);
    assert.equal(byText.get(texts[3]!)!.attempts, 2);
    assert.deepEqual([byText.get(texts[4]!)!.attempts, byText.get(texts[4]!)!.error], [2, undefined], 'a truncated 200 body is retried');
    assert.deepEqual([byText.get(texts[6]!)!.attempts, byText.get(texts[6]!)!.error?.kind, byText.get(texts[6]!)!.error?.status], [3, 'server', 500]);
    assert.equal(byText.get(texts[5]!)!.response?.text, '');
    assert.equal(summary.overall.error, 1);
    assert.equal(summary.overall.unparseable, 1);
    assert.equal(summary.overall.n, DEMO_TEST.n);
    assert.equal(summary.complete, true);
    assert.equal(result.stoppedBy, 'complete');
    const outcomes = readFileSync(join(out, 'outcomes.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { status: string });
    assert.deepEqual(outcomes.map((o) => o.status).filter((s) => s === 'error' || s === 'unparseable').sort(), ['error', 'unparseable']);
  } finally {
    await server.close();
  }
});

test('runner: the Retry-After of a 429 is waited out before the retry', { timeout: 30_000 }, async () => {
  const server = await startFakeOpenAI({ retryAfterSeconds: 1, fault: (i) => (i === 0 ? '429' : null) });
  try {
    const out = join(tempDir(), 'run');
    const started: number[] = [];
    const original = server.requests.push.bind(server.requests);
    server.requests.push = (...items) => (started.push(Date.now()), original(...items));
    await evaluate(evalSettings({ data: DEMO_DATASET, model: 'openai:fake-model', endpoint: [server.url], out, concurrency: 1, limit: 1 }));
    assert.equal(started.length, 2);
    assert.ok(started[1]! - started[0]! >= 950, `retried after ${started[1]! - started[0]!} ms`);
  } finally {
    await server.close();
  }
});

test('runner: rerunning resumes — answered questions are never asked again; --retry-errors asks only the errors', { timeout: 30_000 }, async () => {
  const server = await startFakeOpenAI({ fault: scripted({ 'Is there a pneumothorax?': ['400'] }) });
  try {
    const out = join(tempDir(), 'run');
    const settings = evalSettings({ data: DEMO_DATASET, model: 'openai:fake-model', endpoint: [server.url], out });
    const first = await evaluate(settings);
    assert.equal(first.summary.overall.error, 1);
    assert.equal(server.requests.length, DEMO_TEST.n);
    const again = await evaluate(settings);
    assert.equal(server.requests.length, DEMO_TEST.n, 'nothing re-asked');
    assert.deepEqual(again.summary, first.summary);
    const retried = await evaluate({ ...settings, retryErrors: true });
    assert.equal(server.requests.length, DEMO_TEST.n + 1, 'only the error re-asked');
    assert.equal(retried.summary.overall.error, 0);
    assert.equal(journal(out).length, DEMO_TEST.n + 1, 'the journal is append-only: the retry supersedes the error line');
  } finally {
    await server.close();
  }
});

test('runner: a resume against another prompt, model or dataset is refused, naming each difference', async () => {
  const out = join(tempDir(), 'run');
  const base = evalSettings({ data: DEMO_DATASET, model: 'baseline:random', out });
  await evaluate(base);
  await assert.rejects(evaluate({ ...base, prompt: 'rexvqa-letter', model: 'baseline:report-oracle' }), (e: unknown) => {
    assert.ok(e instanceof CxrError && e.code === 'resume-conflict');
    assert.match(e.message, /model: the run used baseline:random/);
    assert.match(e.message, /prompt: the run used rexvqa-json v1/);
    return true;
  });
  await assert.rejects(evaluate({ ...base, split: 'valid' }), /dataset: the run used test of/);
});

/** A finished run of the demo against a fake endpoint, and its journal's lines (for tests that damage them). */
async function finishedRun(url: string) {
  const out = join(tempDir(), 'run');
  const settings = evalSettings({ data: DEMO_DATASET, model: 'openai:fake-model', endpoint: [url], out });
  await evaluate(settings);
  const file = join(out, 'predictions.jsonl');
  return { out, settings, file, lines: readFileSync(file, 'utf8').trim().split('\n') };
}

test('runner: a journal line cut short by a crash is skipped and its question asked again', async () => {
  const server = await startFakeOpenAI();
  try {
    const { out, settings, file, lines } = await finishedRun(server.url);
    writeFileSync(file, `${lines.slice(0, -1).join('\n')}\n${lines.at(-1)!.slice(0, 40)}`);
    const resumed = await evaluate(settings);
    assert.equal(resumed.result.corruptJournalLines, 1);
    assert.equal(server.requests.length, DEMO_TEST.n + 1);
    assert.equal(resumed.summary.overall.n, DEMO_TEST.n);
  } finally {
    await server.close();
  }
});

test('runner: every view is sent, frontal first, each distinct image encoded once; --max-images caps and is recorded', async () => {
  const server = await startFakeOpenAI();
  try {
    const out = join(tempDir(), 'run');
    const { result, manifest } = await evaluate(evalSettings({ data: DEMO_DATASET, split: 'train', model: 'openai:fake-model', endpoint: [server.url], out, maxPixels: 64 }));
    const twoViews = server.requests.filter((r) => r.images.length === 2);
    assert.ok(twoViews.length > 0);
    assert.ok(server.requests.every((r) => r.images.every((u) => u.startsWith('data:image/png;base64,'))));
    const distinct = new Set(server.requests.flatMap((r) => r.images));
    assert.equal(result.imageEncodes, distinct.size, 'encodes = distinct images');
    assert.equal(readdirSync(join(out, 'image-cache')).length, distinct.size);
    assert.equal(manifest.images.maxPixels, 64);
    const capped = join(tempDir(), 'capped');
    const before = server.requests.length;
    const cappedRun = await evaluate(evalSettings({ data: DEMO_DATASET, split: 'train', model: 'openai:fake-model', endpoint: [server.url], out: capped, maxImages: 1 }));
    assert.ok(server.requests.slice(before).every((r) => r.images.length === 1));
    assert.equal(cappedRun.manifest.images.maxImages, 1);
  } finally {
    await server.close();
  }
});

test('runner: a token budget stops cleanly with an incomplete summary; rerunning without it completes without re-asking', async () => {
  const server = await startFakeOpenAI({ usage: { prompt_tokens: 100, completion_tokens: 20 } });
  try {
    const out = join(tempDir(), 'run');
    const settings = evalSettings({ data: DEMO_DATASET, model: 'openai:fake-model', endpoint: [server.url], out, concurrency: 1, tokenBudget: 500 });
    const stopped = await evaluate(settings);
    assert.equal(stopped.result.stoppedBy, 'budget');
    assert.equal(stopped.summary.complete, false);
    assert.equal(stopped.summary.overall.n, 5);
    assert.equal(stopped.summary.notRun, DEMO_TEST.n - 5);
    const done = await evaluate({ ...settings, tokenBudget: null });
    assert.equal(done.summary.complete, true);
    assert.equal(server.requests.length, DEMO_TEST.n);
  } finally {
    await server.close();
  }
});

test('runner: a cost budget stops at the price given, and the summary records the estimated cost', async () => {
  const server = await startFakeOpenAI({ usage: { prompt_tokens: 100, completion_tokens: 20 } });
  try {
    // $1,000 / $5,000 per million: each answer costs $0.10 + $0.10 = $0.20, so a $1 budget stops after 5.
    const pricing = { inputPerMillion: 1000, outputPerMillion: 5000 };
    const out = join(tempDir(), 'run');
    const stopped = await evaluate(evalSettings({ data: DEMO_DATASET, model: 'openai:fake-model', endpoint: [server.url], out, concurrency: 1, costBudgetUsd: 1, pricing }));
    assert.equal(stopped.result.stoppedBy, 'budget');
    assert.equal(stopped.summary.overall.n, 5);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as { estimatedCostUsd: number; pricing: unknown };
    assert.ok(Math.abs(summary.estimatedCostUsd - 1) < 1e-9, String(summary.estimatedCostUsd));
    assert.deepEqual(summary.pricing, pricing);
  } finally {
    await server.close();
  }
});

test('runner: several endpoints for one model share the load', async () => {
  const a = await startFakeOpenAI({ latencyMs: 20 });
  const b = await startFakeOpenAI({ latencyMs: 20 });
  try {
    await evaluate(evalSettings({ data: DEMO_DATASET, split: 'train', model: 'openai:fake-model', endpoint: [a.url, b.url], out: join(tempDir(), 'run') }));
    assert.equal(a.requests.length + b.requests.length, demoSplit('train').n);
    assert.ok(a.requests.length >= 10 && b.requests.length >= 10, `${a.requests.length} / ${b.requests.length}`);
  } finally {
    await a.close();
    await b.close();
  }
});

test('shuffle check: a model that always says "A" is exposed; one that answers by content is consistent', async () => {
  const { permuteOptions } = await import('../src/core/permute-options.js');
  const { detectLayout } = await import('../src/dataset/layout.js');
  const { readQuestions } = await import('../src/dataset/read-dataset.js');
  const biased = await startFakeOpenAI({ reply: () => '{"answer": "A"}' });
  // The content model names the option text it believes in: the first option of the ORIGINAL order, wherever it now is.
  const originals = new Map<string, string>();
  for await (const q of readQuestions(detectLayout(DEMO_DATASET), ['test'])) originals.set(q.text, q.options[0]);
  const content = await startFakeOpenAI({ reply: (r) => JSON.stringify({ answer: originals.get(questionOf(r.text)) }) });
  try {
    const a = await evaluate(evalSettings({ data: DEMO_DATASET, model: 'openai:fake-model', endpoint: [biased.url], out: join(tempDir(), 'a'), shuffleCheck: 8 }));
    const check = a.shuffleCheck!;
    assert.equal(check.overall.pairs, 8);
    assert.equal(check.overall.bothAnswered, 8);
    // "A" names the same option only where the permutation left option A in place.
    let expected = 0;
    for await (const q of readQuestions(detectLayout(DEMO_DATASET), ['test'])) {
      const sampled = readFileSync(join(a.outDir, 'shuffle-check', 'predictions.jsonl'), 'utf8').includes(`"${q.id}"`);
      if (sampled && permuteOptions(q, 0).order[0] === 0) expected++;
    }
    assert.equal(check.overall.consistent, expected);
    assert.ok(expected < 8);
    assert.equal(biased.requests.length, DEMO_TEST.n + 8);
    const b = await evaluate(evalSettings({ data: DEMO_DATASET, model: 'openai:fake-model', endpoint: [content.url], out: join(tempDir(), 'b'), shuffleCheck: 8 }));
    assert.equal(b.shuffleCheck!.overall.rate, 1);
    assert.ok(Object.keys(b.shuffleCheck!.byTask).length >= 2);
  } finally {
    await biased.close();
    await content.close();
  }
});

test('runner: journal lines whose response text is not a string (a number, {}, a list) are corrupt: counted and asked again; score, report and extract-audit do not crash', async () => {
  const server = await startFakeOpenAI();
  try {
    const { out, settings, file, lines } = await finishedRun(server.url);
    const broken = [42, {}, ['B']].map((text, i) => {
      const line = JSON.parse(lines[i]!) as { response: { text: unknown } };
      line.response.text = text;
      return JSON.stringify(line);
    });
    writeFileSync(file, [...broken, ...lines.slice(3)].join('\n') + '\n');
    for (const args of [['score', out], ['score', out, '--format', 'json'], ['extract-audit', out], ['report', out, '--out', join(out, 'r.html')]]) {
      const run = await runCli(args);
      assert.equal(run.code, 0, `${args.join(' ')}: ${run.stderr}`);
    }
    assert.match((await runCli(['score', out])).stderr, /3 unreadable line\(s\) of .*predictions\.jsonl were skipped/);
    const resumed = await evaluate(settings);
    assert.equal(resumed.result.corruptJournalLines, 3);
    assert.equal(server.requests.length, DEMO_TEST.n + 3, 'the three questions are asked again');
    assert.equal(resumed.summary.overall.n, DEMO_TEST.n);
  } finally {
    await server.close();
  }
});
