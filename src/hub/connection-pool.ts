/**
 * The connections a download run may hold at once, shared by every file, handed out in plan order.
 *
 * Why an order: the image archive is extracted while it downloads, from its first part to its last, so a byte of
 * part 0 is worth more than a byte of part 5. Files ask for a connection per ranged request with a rank (the file's
 * place in the plan, then the offset), and a free connection goes to the lowest rank that may have it: all
 * connections work on the earliest unfinished file, as hf_transfer does, and a later file gets one only when the
 * earlier ones have nothing left to ask for.
 *
 * Why buffers: a range fetched ahead of the file's end on disk waits in memory until the ranges before it are
 * written (the `.part` file only ever grows at its end, which is what resuming, hashing and the extraction
 * following it rely on). Such a request first takes one of a few range-sized buffers, given back once the range is
 * written; that bounds the memory held, and reusing them keeps the garbage collector out of it (with the pieces
 * themselves held instead, a fifth of the run's CPU went to full collections). A request at the file's end
 * needs no buffer (it is written as it comes), so the file that holds the buffers always gets on.
 */
export class ConnectionPool {
  private free: number;
  private buffersLeft: number;
  private readonly spare: Buffer[] = [];
  private readonly waiting: Waiter[] = [];

  constructor(
    /** Connections at once. */
    readonly size: number,
    /** Buffers for ranges fetched ahead of their file's end, all files together (none: files are fetched whole). */
    readonly buffers: number,
    /** Bytes in each buffer: the longest such range. */
    readonly bufferBytes: number,
  ) {
    this.free = size;
    this.buffersLeft = buffers;
  }

  /**
   * Waits for a connection (and, with `buffer`, one of the buffers) and returns them with what gives the connection
   * back. The buffer is given back separately, with `giveBack`, once its range is written. Rejects with the
   * signal's reason when aborted while waiting.
   */
  acquire(rank: readonly [number, number], buffer: boolean, signal?: AbortSignal): Promise<Lease> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { rank, buffer, resolve, reject, signal };
      waiter.onAbort = () => {
        const i = this.waiting.indexOf(waiter);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', waiter.onAbort, { once: true });
      const at = this.waiting.findIndex((w) => before(rank, w.rank));
      this.waiting.splice(at < 0 ? this.waiting.length : at, 0, waiter);
      this.serve();
    });
  }

  /** Requests waiting for a connection. */
  get queued(): number {
    return this.waiting.length;
  }

  /** Gives a buffer back (its range written, or thrown away). */
  giveBack(buffer: Buffer): void {
    this.spare.push(buffer);
    this.serve();
  }

  private hasBuffer(): boolean {
    return this.spare.length > 0 || this.buffersLeft > 0;
  }

  private takeBuffer(): Buffer {
    const spare = this.spare.pop();
    if (spare) return spare;
    this.buffersLeft--;
    return Buffer.allocUnsafeSlow(this.bufferBytes);
  }

  /** Hands free connections to the lowest-ranked waiters that can have one (a waiter for a buffer when none is free lets later ones by: they may be at their file's end). */
  private serve(): void {
    for (let i = 0; i < this.waiting.length && this.free > 0; ) {
      const w = this.waiting[i]!;
      if (w.buffer && !this.hasBuffer()) {
        i++;
        continue;
      }
      this.waiting.splice(i, 1);
      this.free--;
      if (w.onAbort) w.signal?.removeEventListener('abort', w.onAbort);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        this.free++;
        this.serve();
      };
      w.resolve({ release, buffer: w.buffer ? this.takeBuffer() : null });
    }
  }
}

/** A connection handed out, and the buffer asked for with it. */
export interface Lease {
  release: () => void;
  buffer: Buffer | null;
}

interface Waiter {
  rank: readonly [number, number];
  buffer: boolean;
  resolve: (lease: Lease) => void;
  reject: (reason: unknown) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

const before = (a: readonly [number, number], b: readonly [number, number]) => a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);
