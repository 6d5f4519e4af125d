import { closeSync, existsSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { z } from 'zod';
import type { Prediction } from '../core/model-io.js';

/** What was in a journal when a run (re)started. */
export interface JournalState {
  /** The latest prediction per question. */
  latest: Map<string, Prediction>;
  /** Lines that could not be read (a write cut short by a crash, a hand edit): skipped; their questions are asked again. */
  corruptLines: number;
}

/** Where the latest prediction of a question sits in the journal, and whether it failed. */
export interface JournalEntry {
  offset: number;
  length: number;
  failed: boolean;
}

/**
 * A journal line, validated field by field: a line whose response text is not a string, whose error has no
 * kind, or that has neither is corrupt — counted and asked again, never passed on to extraction or scoring.
 */
const JournalLine = z.object({
  questionId: z.string(),
  attempts: z.number().int().nonnegative(),
  latencyMs: z.number().nonnegative(),
  at: z.string(),
  response: z.object({
    text: z.string(),
    reasoning: z.string().optional(),
    usage: z.object({ promptTokens: z.number(), completionTokens: z.number(), reasoningTokens: z.number().optional() }).optional(),
    finishReason: z.string().nullable().optional(),
    endpoint: z.string().optional(),
  }).optional(),
  error: z.object({
    kind: z.enum(['rate-limit', 'server', 'network', 'timeout', 'bad-response', 'client']),
    message: z.string(),
    status: z.number().optional(),
    retryAfterMs: z.number().optional(),
  }).optional(),
}).refine((p) => (p.response === undefined) !== (p.error === undefined), 'a line holds a response or an error');

/** A journal line read back, or null when it is not a valid prediction. */
export function parsePrediction(line: string): Prediction | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  const parsed = JournalLine.safeParse(value);
  return parsed.success ? (parsed.data as Prediction) : null;
}

/**
 * Calls `visit` with every line of a file and its byte offset, reading fixed-size chunks so a journal of any
 * size passes through a bounded buffer. The last line may lack its newline (a write cut short).
 */
function forEachLine(file: string, visit: (line: string, offset: number, length: number) => void): void {
  const fd = openSync(file, 'r');
  try {
    const chunk = Buffer.allocUnsafe(1 << 20);
    let carry = Buffer.alloc(0);
    let carryOffset = 0;
    for (;;) {
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) break;
      const data = carry.length > 0 ? Buffer.concat([carry, chunk.subarray(0, read)]) : chunk.subarray(0, read);
      let start = 0;
      for (let end = data.indexOf(10, start); end !== -1; end = data.indexOf(10, start)) {
        if (end > start) visit(data.toString('utf8', start, end), carryOffset + start, end - start);
        start = end + 1;
      }
      carryOffset += start;
      carry = Buffer.from(data.subarray(start));
    }
    if (carry.length > 0) visit(carry.toString('utf8'), carryOffset, carry.length);
  } finally {
    closeSync(fd);
  }
}

/** Reads a predictions journal; the last line for a question wins (a retried error is superseded by its retry). */
export function readJournal(file: string): JournalState {
  const latest = new Map<string, Prediction>();
  let corruptLines = 0;
  if (!existsSync(file)) return { latest, corruptLines };
  forEachLine(file, (line) => {
    if (line.trim() === '') return;
    const prediction = parsePrediction(line);
    if (prediction) latest.set(prediction.questionId, prediction);
    else corruptLines++;
  });
  return { latest, corruptLines };
}

/**
 * The latest prediction of each question of a run, kept as its place in the journal rather than in memory, so a
 * run's live memory does not grow with the raw model outputs it has collected (≈ 40 bytes a question instead of
 * the whole response). `read` fetches a prediction back from the file when it is needed (scoring at the end).
 */
export class JournalIndex {
  private readonly entries = new Map<string, JournalEntry>();
  corruptLines = 0;

  private constructor(private readonly file: string) {}

  /** Indexes an existing journal (or none), calling `onPrediction` with each line that is the latest so far. */
  static open(file: string, onPrediction?: (prediction: Prediction, previous: JournalEntry | undefined) => void): JournalIndex {
    const index = new JournalIndex(file);
    if (!existsSync(file)) return index;
    forEachLine(file, (line, offset, length) => {
      if (line.trim() === '') return;
      const prediction = parsePrediction(line);
      if (!prediction) {
        index.corruptLines++;
        return;
      }
      onPrediction?.(prediction, index.entries.get(prediction.questionId));
      index.entries.set(prediction.questionId, { offset, length, failed: prediction.error !== undefined });
    });
    return index;
  }

  get size(): number {
    return this.entries.size;
  }

  /** How many questions' latest prediction is an error. */
  failedCount(): number {
    let n = 0;
    for (const e of this.entries.values()) if (e.failed) n++;
    return n;
  }

  /** The questions whose latest prediction is an error. */
  failedIds(): string[] {
    return [...this.entries].filter(([, e]) => e.failed).map(([id]) => id);
  }

  get(questionId: string): JournalEntry | undefined {
    return this.entries.get(questionId);
  }

  has(questionId: string): boolean {
    return this.entries.has(questionId);
  }

  set(questionId: string, entry: JournalEntry): void {
    this.entries.set(questionId, entry);
  }

  /**
   * A reader of the latest predictions from the file; close it when done. Reads by offset, so the journal must
   * not be rewritten while it is open (appends are fine: offsets of earlier lines do not move).
   */
  reader(): { read(questionId: string): Prediction | undefined; close(): void } {
    const fd = existsSync(this.file) ? openSync(this.file, 'r') : null;
    let buffer = Buffer.allocUnsafe(64 << 10);
    return {
      read: (questionId) => {
        const entry = this.entries.get(questionId);
        if (!entry || fd === null) return undefined;
        if (buffer.length < entry.length) buffer = Buffer.allocUnsafe(entry.length);
        const read = readSync(fd, buffer, 0, entry.length, entry.offset);
        const prediction = parsePrediction(buffer.toString('utf8', 0, read));
        if (!prediction) throw new Error(`${this.file}: the line at byte ${entry.offset} changed while the run was scored`);
        return prediction;
      },
      close: () => {
        if (fd !== null) closeSync(fd);
      },
    };
  }
}

/**
 * Appends predictions to the journal, one line each, as soon as they arrive. Each line is one write(2) on a
 * descriptor opened for appending, so a process killed with SIGKILL loses only requests still in flight (what
 * was written is in the OS page cache); a line left half-written by a power cut is skipped on resume (see
 * readJournal). The descriptor stays open: opening the file per line cost more than the requests themselves.
 */
export class JournalWriter {
  private readonly fd: number;
  /** Bytes in the file, so each append knows where its line starts (this process is the only writer). */
  private size: number;

  constructor(file: string) {
    this.fd = openSync(file, 'a+');
    this.size = fstatSync(this.fd).size;
    // A journal cut short mid-line must not glue its tail to the next record.
    if (this.size > 0) {
      const last = Buffer.alloc(1);
      readSync(this.fd, last, 0, 1, this.size - 1);
      if (last[0] !== 10) {
        writeSync(this.fd, '\n');
        this.size++;
      }
    }
  }

  /** Appends one prediction and returns where its line is (newline excluded). */
  append(prediction: Prediction): JournalEntry {
    const line = Buffer.from(`${JSON.stringify(prediction)}\n`);
    const offset = this.size;
    let written = 0;
    while (written < line.length) written += writeSync(this.fd, line, written);
    this.size += line.length;
    return { offset, length: line.length - 1, failed: prediction.error !== undefined };
  }

  close(): void {
    closeSync(this.fd);
  }
}
