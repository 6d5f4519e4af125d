import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { ModelAdapter } from '../models/adapter.js';
import { askJournaled, type AskStats } from './ask-journaled.js';

function countingAdapter(): ModelAdapter & { calls: number } {
  const adapter = {
    calls: 0,
    spec: { kind: 'test', name: 'echo', baseline: false, args: {} },
    needsImages: false,
    generate: async (request: { questionId: string }) => {
      adapter.calls++;
      return { text: `reply to ${request.questionId}` };
    },
    classifyError: (error: unknown) => ({ kind: 'client' as const, message: String(error) }),
  };
  return adapter;
}

const settings = (adapter: ModelAdapter, journalFile: string) => ({ adapter, journalFile, offline: false, concurrency: 2, retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1 }, timeoutMs: 5000, giveUpAfterFailures: 5, role: 'test model' });
const request = (key: string) => ({ questionId: key, messages: [{ role: 'user' as const, content: key }], params: { temperature: 0, maxTokens: 8 } });

test('askJournaled: each distinct key asked once and journaled; a rerun answers from the journal (repeats counted); an already-stopped run asks nothing', async () => {
  const journal = join(mkdtempSync(join(tmpdir(), 'ask-')), 'sub', 'journal.jsonl');
  const adapter = countingAdapter();
  const stats: AskStats = { asked: 0, cached: 0, failed: 0, skipped: 0 };
  const first = await askJournaled(['a', 'b', 'a'], request, settings(adapter, journal), stats);
  assert.equal(adapter.calls, 2);
  assert.deepEqual([...first.keys()], ['a', 'b']);
  assert.equal((first.get('a') as { prediction: { response: { text: string } } }).prediction.response.text, 'reply to a');
  const again: AskStats = { asked: 0, cached: 0, failed: 0, skipped: 0 };
  await askJournaled(['a', 'b', 'a'], request, settings(adapter, journal), again);
  assert.equal(adapter.calls, 2, 'nothing asked twice');
  assert.equal(again.cached, 3, 'every key given, repeats included, answered from the journal');
  const stopped = new AbortController();
  stopped.abort();
  const none = await askJournaled(['c', 'd'], request, settings(adapter, journal), again, stopped.signal);
  assert.equal(adapter.calls, 2, 'a signal aborted before the call stops every request');
  assert.equal(none.size, 0, 'nothing decided');
});
