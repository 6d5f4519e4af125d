import { parentPort } from 'node:worker_threads';
import { convertOne, type ConvertJob } from './convert-one.js';

// A conversion thread: decodes and renders the files the main thread sends, one at a time, and sends back the
// PNG (its buffer transferred, not copied) or the reason it failed. An unexpected error is sent back as text so
// the main thread can report the file and carry on.
parentPort?.on('message', (message: { id: number; job: ConvertJob }) => {
  void convertOne(message.job).then(
    (result) => parentPort?.postMessage({ id: message.id, result }, result.ok ? [result.png.buffer as ArrayBuffer] : []),
    (error: unknown) => parentPort?.postMessage({ id: message.id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
  );
});
