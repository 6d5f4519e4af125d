import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FailureKind, ModelRequest } from '../src/core/model-io.js';
import type { Question } from '../src/core/question.js';
import type { ModelAdapter } from '../src/models/adapter.js';
import { priorBaseline } from '../src/models/baselines/prior.js';
import { randomBaseline } from '../src/models/baselines/random.js';
import { reportOracleBaseline } from '../src/models/baselines/report-oracle.js';
import { textOnlyBaseline, trainTextOnly } from '../src/models/baselines/text-only.js';
import { openAICompatibleAdapter } from '../src/models/openai-compatible.js';
import { parseReplayFile, replayAdapter } from '../src/models/replay.js';
import { extractAnswer } from '../src/extract/extract.js';
import { startFakeOpenAI, type Fault, type FakeServer } from './helpers/fake-openai-server.js';
import { tempDir } from './helpers/records.js';

const question: Question = {
  id: 'q1', split: 'test', studyId: 's1', text: 'Where is the consolidation?', options: ['Left lower lobe', 'Right upper lobe', 'Bilateral', 'None'],
  answer: 'B', task: 'Location and Distribution Assessment', category: 'Lung and Pleural Opacity', subcategory: 'Consolidation', explanation: 'x',
  images: [{ path: 'a.png', view: 'PA' }], meta: { Findings: 'Right upper lobe consolidation with bulging fissure.' },
};
const request: ModelRequest = {
  questionId: 'q1',
  messages: [{ role: 'system', content: 'You are a radiologist.' }, { role: 'user', content: [{ type: 'image', url: 'data:image/png;base64,iVBORw0KGgo=' }, { type: 'text', text: 'Question: Where is the consolidation?\nOptions: …' }] }],
  params: { temperature: 0, maxTokens: 64 },
};
const SECRET = 'sk-test-secret-value-0123456789';

let server: FakeServer;
let faults: Fault[] = [];
before(async () => {
  server = await startFakeOpenAI({ fault: () => faults.shift() ?? null, retryAfterSeconds: 7 });
});
after(() => server.close());

/** Every adapter, built the way the CLI builds it. */
const adapters: { name: string; make: () => Promise<ModelAdapter>; transport: boolean }[] = [
  { name: 'openai-compatible', transport: true, make: async () => openAICompatibleAdapter({ name: 'fake', model: 'fake-model', endpoints: [server.url], apiKeyEnv: 'FAKE_KEY', headers: { 'x-org': 'env:FAKE_ORG' }, query: {}, systemPrompt: true, imageDetail: null }, { FAKE_KEY: SECRET, FAKE_ORG: SECRET }) },
  { name: 'baseline:random', transport: false, make: async () => randomBaseline(3) },
  { name: 'baseline:prior', transport: false, make: async () => priorBaseline({ A: 1, B: 5, C: 2, D: 0 }) },
  { name: 'baseline:text-only', transport: false, make: async () => textOnlyBaseline(await trainTextOnly([question])) },
  { name: 'baseline:report-oracle', transport: false, make: async () => reportOracleBaseline() },
  { name: 'replay', transport: false, make: async () => { const f = join(tempDir(), 'p.jsonl'); writeFileSync(f, JSON.stringify({ id: 'q1', prediction: 'B' }) + '\n'); return replayAdapter(f, parseReplayFile(f, readFileSync(f, 'utf8'))); } },
];

for (const a of adapters) {
  describe(`adapter conformance: ${a.name}`, () => {
    test('its spec is plain data without secrets, and baselines say so', async () => {
      const adapter = await a.make();
      const json = JSON.stringify(adapter.spec);
      assert.doesNotMatch(json, new RegExp(SECRET));
      assert.deepEqual(JSON.parse(json), adapter.spec);
      assert.equal(adapter.spec.baseline, a.name.startsWith('baseline:'));
      assert.equal(typeof adapter.needsImages, 'boolean');
    });
    test('it answers a request with text that the extractor reads as one option', async () => {
      const adapter = await a.make();
      const response = await adapter.generate(request, { signal: new AbortController().signal, question });
      assert.equal(typeof response.text, 'string');
      const letter = extractAnswer(response.text, question.options).letter;
      if (a.name !== 'baseline:report-oracle') assert.match(String(letter), /^[ABCD]$/);
      else assert.equal(letter, 'B'); // the report names the right upper lobe
    });
    test('it classifies any thrown error into a known failure kind', async () => {
      const adapter = await a.make();
      const kinds: FailureKind[] = ['rate-limit', 'server', 'network', 'timeout', 'bad-response', 'client'];
      for (const error of [new Error('boom'), 'string error', null]) assert.ok(kinds.includes(adapter.classifyError(error).kind));
    });
  });
}

describe('adapter conformance: transport failures of the OpenAI-compatible adapter', () => {
  const cases: { fault: Fault; kind: FailureKind; check?: (f: { status?: number; retryAfterMs?: number }) => void }[] = [
    { fault: '429', kind: 'rate-limit', check: (f) => (assert.equal(f.status, 429), assert.equal(f.retryAfterMs, 7000)) },
    { fault: '500', kind: 'server', check: (f) => assert.equal(f.status, 500) },
    { fault: '503', kind: 'server' },
    { fault: 'reset', kind: 'network' },
    { fault: 'malformed', kind: 'network' }, // a 200 cut short: retried like a dropped connection
    { fault: 'html', kind: 'network' }, // a proxy's error page with status 200
    { fault: 'no-choices', kind: 'bad-response' },
    { fault: '400', kind: 'client', check: (f) => assert.equal(f.status, 400) },
    { fault: '401', kind: 'client' },
  ];
  for (const c of cases) {
    test(`${c.fault} → ${c.kind}`, async () => {
      const adapter = await adapters[0]!.make();
      faults = [c.fault];
      const error = await adapter.generate(request, { signal: new AbortController().signal, question }).then(() => null, (e: unknown) => e);
      assert.ok(error, 'expected the request to fail');
      const failure = adapter.classifyError(error);
      assert.equal(failure.kind, c.kind, failure.message);
      c.check?.(failure);
    });
  }
  test('a hang past the deadline is a timeout', async () => {
    const adapter = await adapters[0]!.make();
    faults = ['hang'];
    const error = await adapter.generate(request, { signal: AbortSignal.timeout(200), question }).then(() => null, (e: unknown) => e);
    assert.equal(adapter.classifyError(error).kind, 'timeout');
  });
  test('empty content is an empty answer (unparseable later), not a transport error', async () => {
    const adapter = await adapters[0]!.make();
    faults = ['empty'];
    const response = await adapter.generate(request, { signal: new AbortController().signal, question });
    assert.equal(response.text, '');
  });
  test('the request carries the model, images as data URLs, the key and env-resolved headers', async () => {
    const adapter = await adapters[0]!.make();
    faults = [];
    await adapter.generate(request, { signal: new AbortController().signal, question });
    const seen = server.requests.at(-1)!;
    assert.equal(seen.body.model, 'fake-model');
    assert.deepEqual(seen.images, ['data:image/png;base64,iVBORw0KGgo=']);
    assert.equal(seen.headers.authorization, `Bearer ${SECRET}`);
    assert.equal(seen.headers['x-org'], SECRET);
    assert.equal(seen.body.messages?.[0]?.role, 'system');
  });
  test('without system-role support the system text opens the user turn', async () => {
    const adapter = openAICompatibleAdapter({ name: 'f', model: 'm', endpoints: [server.url], apiKeyEnv: null, headers: {}, query: {}, systemPrompt: false, imageDetail: null });
    await adapter.generate(request, { signal: new AbortController().signal, question });
    const seen = server.requests.at(-1)!;
    assert.deepEqual(seen.body.messages?.map((m) => m.role), ['user']);
    assert.match(seen.text, /^You are a radiologist\./);
  });
  test('a missing key variable and an unreachable endpoint are found before any request', async () => {
    assert.throws(() => openAICompatibleAdapter({ name: 'f', model: 'm', endpoints: [server.url], apiKeyEnv: 'NOPE_KEY', headers: {}, query: {}, systemPrompt: true, imageDetail: null }, {}), /environment variable NOPE_KEY, which is not set/);
    const down = openAICompatibleAdapter({ name: 'f', model: 'm', endpoints: ['http://127.0.0.1:9/v1'], apiKeyEnv: null, headers: {}, query: {}, systemPrompt: true, imageDetail: null });
    await assert.rejects(down.preflight!(AbortSignal.timeout(5000)), /cannot reach http:\/\/127\.0\.0\.1:9\/v1/);
    const up = await adapters[0]!.make();
    await up.preflight!(AbortSignal.timeout(5000));
  });
});
