/**
 * generate's per-report stage on several threads (issue #23 item 8): the same result as on one, report for report,
 * on a real corpus large enough to use them (the IU X-ray reports, read at run time).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import type { CorpusReport } from '../src/corpus/corpus-report.js';
import { readCorpus } from '../src/corpus/read-corpus.js';
import { offlineStages } from '../src/generate/stage/report-threads.js';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/records.js';
import { iuReportsDir } from './helpers/shared-data.js';

test('the per-report stage on two threads gives what it gives on one: the same questions, records and failures, in corpus order', { timeout: 300_000 }, async () => {
  const iu = iuReportsDir();
  const dir = tempDir();
  const corpus = join(dir, 'iu.jsonl');
  assert.equal((await runCli(['corpus', 'import', join(iu, 'indiana_reports.csv'), '--format', 'csv', '--images-csv', join(iu, 'indiana_projections.csv'), '--out', corpus])).code, 0);
  const reports: { safe: CorpusReport; seedKey: string }[] = [];
  for await (const r of readCorpus(corpus)) reports.push({ safe: r, seedKey: r.id });
  assert.ok(reports.length >= 2_000, 'enough reports for threads');
  const metadataDir = join(dir, 'out', 'metadata');
  const one = await offlineStages(reports, 3, metadataDir, 1);
  const two = await offlineStages(reports, 3, metadataDir, 2);
  assert.equal(two.length, reports.length);
  assert.ok(one.reduce((n, s) => n + s.questions.length, 0) > 10_000, 'questions were made');
  assert.deepEqual(two, one);
});
