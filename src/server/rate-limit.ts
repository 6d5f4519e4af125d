import { clearEvents, countEvent, eventCount, pruneEvents, uncountEvent, windowEnd } from '../store/rate-limits.js';
import type { Store } from '../store/connect.js';

/**
 * Counts events per key in fixed windows (failed sign-ins per address and per account, uploads per address),
 * in the database: every web replica on one database enforces the same limits, and a restart forgets nothing.
 * Fixed windows allow a burst of up to twice the limit across a window boundary; the limits are set with that
 * in mind.
 */
export class WindowLimiter {
  private hits = 0;

  constructor(
    private readonly store: Store,
    readonly limit: number,
    readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether `key` is at its limit (without counting). */
  async blocked(key: string): Promise<boolean> {
    return (await eventCount(this.store, key, this.windowMs, this.now())) >= this.limit;
  }

  /** Counts one event; false when the key was already at its limit (the event is refused). */
  async hit(key: string): Promise<boolean> {
    const count = await countEvent(this.store, key, this.windowMs, this.now());
    // Now and then, drop windows long past (any replica may; deleting twice is harmless).
    if (++this.hits % 500 === 0) await pruneEvents(this.store, new Date(this.now() - 2 * this.windowMs).toISOString());
    return count <= this.limit;
  }

  /** Takes back one counted event (counting first and giving back keeps the limit exact under concurrency). */
  async giveBack(key: string): Promise<void> {
    await uncountEvent(this.store, key, this.windowMs, this.now());
  }

  /** Seconds until `key` may act again. */
  retryAfterSeconds(): number {
    return Math.max(1, Math.ceil((windowEnd(this.now(), this.windowMs) - this.now()) / 1000));
  }

  async reset(key: string): Promise<void> {
    await clearEvents(this.store, key);
  }
}
