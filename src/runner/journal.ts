import { appendFileSync, closeSync, existsSync, openSync, readFileSync, writeSync } from 'node:fs';
import type { Prediction } from '../core/model-io.js';

/** What was in a journal when a run (re)started. */
export interface JournalState {
  /** The latest prediction per question. */
  latest: Map<string, Prediction>;
  /** Lines that could not be read (a write cut short by a crash, a hand edit): skipped; their questions are asked again. */
  corruptLines: number;
}

function isPrediction(value: unknown): value is Prediction {
  if (!value || typeof value !== 'object') return false;
  const p = value as Record<string, unknown>;
  return typeof p.questionId === 'string' && typeof p.attempts === 'number' && (typeof p.response === 'object' || typeof p.error === 'object');
}

/** Reads a predictions journal; the last line for a question wins (a retried error is superseded by its retry). */
export function readJournal(file: string): JournalState {
  const latest = new Map<string, Prediction>();
  let corruptLines = 0;
  if (!existsSync(file)) return { latest, corruptLines };
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      const value: unknown = JSON.parse(line);
      if (isPrediction(value)) latest.set(value.questionId, value);
      else corruptLines++;
    } catch {
      corruptLines++;
    }
  }
  return { latest, corruptLines };
}

/**
 * Appends predictions to the journal, one line each, as soon as they arrive. Each line is one write(2) on a
 * descriptor opened for appending, so a process killed with SIGKILL loses only requests still in flight (what
 * was written is in the OS page cache); a line left half-written by a power cut is skipped on resume (see
 * readJournal). The descriptor stays open: opening the file per line cost more than the requests themselves.
 */
export class JournalWriter {
  private readonly fd: number;

  constructor(file: string) {
    // A journal cut short mid-line must not glue its tail to the next record.
    if (existsSync(file)) {
      const text = readFileSync(file, 'utf8');
      if (text.length > 0 && !text.endsWith('\n')) appendFileSync(file, '\n');
    }
    this.fd = openSync(file, 'a');
  }

  append(prediction: Prediction): void {
    writeSync(this.fd, `${JSON.stringify(prediction)}\n`);
  }

  close(): void {
    closeSync(this.fd);
  }
}
