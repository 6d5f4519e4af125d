/**
 * The upload thread: parses an upload, checks every id against the hidden set (tens of milliseconds of CPU for a
 * 41K-line file), then hashes and stores it within the team's limits — off the web server's event loop, so pages
 * stay fast while uploads arrive. Started by {@link startUploadCheckThread}; it answers `{id, result}` or
 * `{id, error}` for each `{id, benchmarkId, input}`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { intakeHere, type SubmissionInput } from '../board/submit.js';
import { reopenStore, type Store } from '../store/connect.js';

const store = await reopenStore(workerData as Store['connection']);
const intake = intakeHere(store);
parentPort!.on('message', (m: { id: number; benchmarkId: string; input: SubmissionInput }) => {
  intake(m.benchmarkId, m.input).then(
    (result) => parentPort!.postMessage({ id: m.id, result }),
    (error: unknown) => parentPort!.postMessage({ id: m.id, error: error instanceof Error ? error.message : String(error) }),
  );
});
parentPort!.postMessage({ ready: true });
