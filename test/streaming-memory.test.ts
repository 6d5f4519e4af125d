import assert from 'node:assert/strict';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from './helpers/cli.js';
import { tempDir } from './helpers/records.js';
import { writeSyntheticRexvqa } from './helpers/synthetic-dataset.js';

/**
 * Full-scale streaming: a generated train file with as many records as the real one (572,419), read by the
 * real CLI in a child process whose JavaScript heap is capped at HEAP_CAP_MB. Holding the records (or one
 * JSON.parse of the file, ~340 MB of text) cannot fit under the cap, so passing shows memory stays bounded by
 * the number of studies, not by the file. Exact counts show nothing was dropped on the way.
 */
const RECORDS = 572_419;
const HEAP_CAP_MB = 160;

test('streaming: validate and stats read a 572,419-record train file under a 160 MB heap cap, counts exact', { timeout: 240_000 }, async () => {
  const root = tempDir('cxrbench-stream-');
  try {
    mkdirSync(join(root, 'metadata'));
    const written = await writeSyntheticRexvqa(join(root, 'metadata', 'train_vqa_data.json'), { records: RECORDS, recordBytes: 600, seed: 7 });
    assert.ok(written.bytes > 300e6, `file is ${written.bytes} bytes`);
    const env = { NODE_OPTIONS: `--max-old-space-size=${HEAP_CAP_MB}` };

    const stats = await runCli(['data', 'stats', root, '--format', 'json'], { env });
    assert.equal(stats.code, 0, stats.stderr.slice(0, 2000));
    const train = (JSON.parse(stats.stdout) as { splits: { train: { total: number; excluded: number; byTask: Record<string, { count: number }>; questionsPerStudy: { studies: number } } } }).splits.train;
    assert.equal(train.total, RECORDS);
    assert.equal(train.excluded, 0);
    assert.equal(train.questionsPerStudy.studies, written.studies);
    assert.deepEqual(Object.fromEntries(Object.entries(train.byTask).map(([k, v]) => [k, v.count])), written.byTask);

    const validate = await runCli(['data', 'validate', root, '--format', 'json'], { env });
    assert.equal(validate.code, 0, validate.stderr.slice(0, 2000));
    const report = JSON.parse(validate.stdout) as { counts: { records: number; questions: number; byCode: Record<string, number> } };
    assert.equal(report.counts.records, RECORDS);
    assert.equal(report.counts.questions, RECORDS);
    assert.equal(report.counts.byCode['nan-literal'], written.bareNaN);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
