/**
 * Benchmark: the model-backed generator's own overhead (issue #12: ≤ 10%) — `generate` with a model against a
 * local fake endpoint that answers after a fixed latency, versus a bare client posting the same requests (same
 * bodies, same concurrency) to the same endpoint. 400 reports, two requests each, 50 ms per request, concurrency 8.
 * Run: `./run bench:generate-model`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importCorpus } from '../src/corpus/import-corpus.js';
import { ModelGenerator } from '../src/generate/model/model-generator.js';
import { generateQuestionSet } from '../src/generate/pipeline.js';
import { openAICompatibleAdapter } from '../src/models/openai-compatible.js';
import { startFakeOpenAI, type RecordedRequest } from '../test/helpers/fake-openai-server.js';

const REPORTS = 400;
const CONCURRENCY = 8;
const LATENCY_MS = 50;
const FINDINGS = ['Small left pleural effusion.', 'Right lower lobe consolidation.', 'Mild cardiomegaly.', 'Left lower lobe atelectasis.'];

function reply(request: RecordedRequest): string {
  if (request.text.includes('as bullet points')) return `- ${/FINDINGS: (.*)/.exec(request.text)?.[1] ?? ''}`;
  return JSON.stringify({ questions: [{ question: 'Which of the following findings is present on this chest radiograph?', options: ['Pleural effusion', 'Rib fracture', 'Pleural plaque', 'Hiatal hernia'], answer: 'A', explanation: 'The findings describe it.', task_name: 'Presence Assessment', category: 'Pleural Effusion', subcategory: 'Effusion', difficulty: 'medium' }] });
}

const dir = mkdtempSync(join(tmpdir(), 'cxrbench-bench-genmodel-'));
const server = await startFakeOpenAI({ reply, latencyMs: LATENCY_MS });
try {
  writeFileSync(join(dir, 'r.jsonl'), Array.from({ length: REPORTS }, (_, i) => JSON.stringify({ id: `s${i}`, patient: `p${i}`, findings: `${FINDINGS[i % 4]} Case ${i}: no pneumothorax.`, images: [`i/${i}.png`] })).join('\n') + '\n');
  await importCorpus(join(dir, 'r.jsonl'), 'jsonl', {}, join(dir, 'c.jsonl'));
  const adapter = openAICompatibleAdapter({ name: 'gen', model: 'gen', endpoints: [server.url], systemPrompt: true, apiKeyEnv: null, headers: {}, query: {}, imageDetail: null });
  const t0 = performance.now();
  await generateQuestionSet({ corpus: join(dir, 'c.jsonl'), out: join(dir, 'out'), seed: 0, similarity: 0.9, reviewRate: 0.1, splits: { train: 0.8, valid: 0.1, test: 0.1 }, generator: new ModelGenerator({ adapter, journalFile: join(dir, 'out', 'j.jsonl'), concurrency: CONCURRENCY, adaptiveConcurrency: false }) });
  const pipelineMs = performance.now() - t0;
  const bodies = server.requests.filter((r) => r.path.endsWith('/chat/completions')).map((r) => JSON.stringify(r.body));
  // The bare client: the same bodies, the same concurrency, nothing else (bullets then questions per report are
  // dependent in the pipeline; here too: two rounds of 400).
  const t1 = performance.now();
  for (const round of [bodies.filter((b) => b.includes('as bullet points')), bodies.filter((b) => !b.includes('as bullet points'))]) {
    let next = 0;
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (next < round.length) {
        const body = round[next++]!;
        const res = await fetch(`${server.url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        await res.json();
      }
    }));
  }
  const bareMs = performance.now() - t1;
  process.stdout.write(`model-backed generate: ${REPORTS} reports, ${bodies.length} requests at ${LATENCY_MS} ms, concurrency ${CONCURRENCY}: pipeline ${(pipelineMs / 1000).toFixed(2)} s, bare client ${(bareMs / 1000).toFixed(2)} s — overhead ${(100 * (pipelineMs / bareMs - 1)).toFixed(1)}% (limit 10%)\n`);
} finally {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
