/**
 * The upload check thread: parses an upload and checks every id against the hidden set (tens of milliseconds of
 * CPU for a 41K-line file) off the web server's event loop, so pages stay fast while uploads arrive. Started by
 * {@link startUploadCheckPool}; it answers `{id, problems}` or `{id, error}` for each `{id, benchmarkId, content, format}`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { checkHere } from '../board/submit.js';
import type { PredictionFormat } from '../core/prediction-file.js';
import { reopenStore, type Store } from '../store/connect.js';


const store = await reopenStore(workerData as Store['connection']);
const check = checkHere(store);
parentPort!.on('message', (m: { id: number; benchmarkId: string; content: string; format: PredictionFormat }) => {
  check(m.benchmarkId, m.content, m.format).then(
    (problems) => parentPort!.postMessage({ id: m.id, problems }),
    (error: unknown) => parentPort!.postMessage({ id: m.id, error: error instanceof Error ? error.message : String(error) }),
  );
});
parentPort!.postMessage({ ready: true });
