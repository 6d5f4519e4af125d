import assert from 'node:assert/strict';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from './cli.js';
import { tempDir } from './records.js';
import { writeSyntheticRexvqa } from './synthetic-dataset.js';

/** What one heap-capped streaming check read and how big its file was. */
export interface StreamingCheck {
  records: number;
  fileBytes: number;
  heapCapMb: number;
}

/**
 * Writes a synthetic train file of `records` records and has the real CLI (`data stats`, then `data validate`)
 * read it in a child process whose JavaScript heap is capped at `heapCapMb`. The caller picks a cap well under
 * the file's size: holding the records (or one JSON.parse of the text) cannot fit under it, so passing shows
 * memory is bounded by the number of studies, not by the file. Exact counts show nothing was dropped on the way.
 * Shared by the test (a quarter of the real file) and `./run bench` (the real file's 572,419 records).
 */
export async function checkStreamingUnderHeapCap(records: number, heapCapMb: number): Promise<StreamingCheck> {
  const root = tempDir('cxrbench-stream-');
  try {
    mkdirSync(join(root, 'metadata'));
    const written = await writeSyntheticRexvqa(join(root, 'metadata', 'train_vqa_data.json'), { records, recordBytes: 600, seed: 7 });
    assert.ok(written.bytes > 2 * heapCapMb * 1024 * 1024, `the file (${written.bytes} bytes) must be well over the heap cap for the check to mean anything`);
    const env = { NODE_OPTIONS: `--max-old-space-size=${heapCapMb}` };

    const stats = await runCli(['data', 'stats', root, '--format', 'json'], { env });
    assert.equal(stats.code, 0, stats.stderr.slice(0, 2000));
    const train = (JSON.parse(stats.stdout) as { splits: { train: { total: number; excluded: number; byTask: Record<string, { count: number }>; questionsPerStudy: { studies: number } } } }).splits.train;
    assert.equal(train.total, records);
    assert.equal(train.excluded, 0);
    assert.equal(train.questionsPerStudy.studies, written.studies);
    assert.deepEqual(Object.fromEntries(Object.entries(train.byTask).map(([k, v]) => [k, v.count])), written.byTask);

    const validate = await runCli(['data', 'validate', root, '--format', 'json'], { env });
    assert.equal(validate.code, 0, validate.stderr.slice(0, 2000));
    const report = JSON.parse(validate.stdout) as { counts: { records: number; questions: number; byCode: Record<string, number> } };
    assert.equal(report.counts.records, records);
    assert.equal(report.counts.questions, records);
    assert.equal(report.counts.byCode['nan-literal'], written.bareNaN);
    return { records, fileBytes: written.bytes, heapCapMb };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
