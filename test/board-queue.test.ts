import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { after, test } from 'node:test';
import { reconcileScoring, scoringHandler } from '../src/board/scoring-job.js';
import { DEFAULT_SCORE_SETTINGS } from '../src/board/score-submission.js';
import { startScoringPool } from '../src/server/scoring-pool.js';
import { submitPredictions } from '../src/board/submit.js';
import { benchmarkBySlug } from '../src/store/benchmarks.js';
import { submissionStatus } from '../src/store/submissions.js';
import { demoBoard, freshStore, lazyCluster, predictionsJsonl, settled } from './helpers/board.js';

const cluster = lazyCluster();
after(() => cluster.stop());

const noDispatch = async () => undefined;

test('scoring the same submission twice (at-least-once delivery) publishes one entry', async () => {
  const board = await demoBoard('sqlite', cluster.get);
  try {
    const benchmark = (await benchmarkBySlug(board.store, 'demo'))!;
    const result = await submitPredictions(board.store, noDispatch, benchmark, { fileName: 'p.jsonl', content: predictionsJsonl(board.questions, (q) => q.answer), model: { name: 'M', openWeights: true }, teamId: null, userId: null, kind: 'baseline' });
    assert.ok(result.ok);
    const handler = scoringHandler(board.store, 'w1');
    await handler({ submissionId: result.submission.id }, { id: 'a', attempt: 1, final: false });
    await handler({ submissionId: result.submission.id }, { id: 'b', attempt: 2, final: false });
    assert.equal((await board.store.db.selectFrom('entries').selectAll().execute()).length, 1);
    const status = (await submissionStatus(board.store, result.submission.id))!;
    assert.deepEqual([status.state, status.attempts], ['scored', 1], 'the second delivery found it scored and did nothing');
  } finally {
    await board.close();
  }
});

test('the reconciler sends a submission stored but never sent (a crash in between), and fails one whose job failed for good', async () => {
  const board = await demoBoard('sqlite', cluster.get);
  try {
    const benchmark = (await benchmarkBySlug(board.store, 'demo'))!;
    const input = { fileName: 'p.jsonl', content: predictionsJsonl(board.questions, (q) => q.answer), model: { name: 'M', openWeights: true }, teamId: null, userId: null, kind: 'baseline' as const };
    const lost = await submitPredictions(board.store, noDispatch, benchmark, input);
    assert.ok(lost.ok);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await submissionStatus(board.store, lost.submission.id))!.state, 'queued', 'nothing sent it');
    assert.deepEqual(await reconcileScoring(board.store, board.queue, 0), { resent: 1, failed: 0 });
    assert.equal((await settled(board.store, lost.submission.id)).state, 'scored');

    // A job that failed for good while its submission still says "scoring" (its last worker died).
    const stuck = await submitPredictions(board.store, noDispatch, benchmark, input);
    assert.ok(stuck.ok);
    // Backdated: the reconciler only looks at submissions untouched for a while, and "a while" must not be 0 ms.
    await board.store.db.updateTable('submissions').set({ state: 'scoring', job_id: 'job-gone-wrong', updated_at: new Date(Date.now() - 60_000).toISOString() }).where('id', '=', stuck.submission.id).execute();
    await board.store.db.insertInto('jobs').values({
      id: 'job-gone-wrong', queue: 'score-submission', job_key: stuck.submission.id, data_json: '{}', state: 'failed', attempts: 3, retry_limit: 2, retry_delay_ms: 0, expire_ms: 1000,
      run_after: new Date().toISOString(), lease_until: null, worker: 'dead', last_error: 'lease ran out', created_at: new Date().toISOString(), updated_at: new Date().toISOString(),
    }).execute();
    assert.deepEqual(await reconcileScoring(board.store, board.queue, 0), { resent: 0, failed: 1 });
    const failed = (await submissionStatus(board.store, stuck.submission.id))!;
    assert.equal(failed.state, 'failed');
    assert.match(failed.error!, /did not finish .* retry it/);
  } finally {
    await board.close();
  }
});

test('scoring threads run at low CPU priority (Linux: only the thread), so the web thread of the same process wins the CPU', { skip: process.platform !== 'linux' ? 'nice values are per thread only on Linux' : false }, async () => {
  const store = await freshStore('sqlite', cluster.get);
  const niceness = () => readdirSync(`/proc/${process.pid}/task`).map((t) => Number(readFileSync(`/proc/${process.pid}/task/${t}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]));
  const before = niceness().filter((n) => n === 19).length;
  const pool = await startScoringPool(store, 1, { score: DEFAULT_SCORE_SETTINGS, pollMs: 100, reconcileMs: 60_000, staleAfterMs: 60_000, stopTimeoutMs: 1000 });
  try {
    assert.equal(niceness().filter((n) => n === 19).length, before + 1, 'one more thread at nice 19');
    assert.equal(getPriority(), 0, 'the process itself (its main thread) keeps normal priority');
  } finally {
    await pool.stop();
    await store.close();
  }
});
