/**
 * Counts events per key in a fixed window (in memory: one server process). Used for failed logins per
 * address and per account, and uploads per address; the daily submission limits live in the database.
 */
export class WindowLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether `key` is at its limit (without counting). */
  blocked(key: string): boolean {
    const w = this.current(key);
    return w !== null && w.count >= this.limit;
  }

  /** Counts one event; returns false when the key was already at its limit. */
  hit(key: string): boolean {
    const t = this.now();
    let w = this.current(key);
    if (!w) {
      w = { start: t, count: 0 };
      this.windows.set(key, w);
      if (this.windows.size > 100_000) this.sweep();
    }
    if (w.count >= this.limit) return false;
    w.count++;
    return true;
  }

  /** Seconds until `key` may act again. */
  retryAfterSeconds(key: string): number {
    const w = this.current(key);
    return w ? Math.max(1, Math.ceil((w.start + this.windowMs - this.now()) / 1000)) : 0;
  }

  reset(key: string): void {
    this.windows.delete(key);
  }

  private current(key: string): { start: number; count: number } | null {
    const w = this.windows.get(key);
    if (!w) return null;
    if (this.now() - w.start >= this.windowMs) {
      this.windows.delete(key);
      return null;
    }
    return w;
  }

  private sweep(): void {
    for (const key of [...this.windows.keys()]) this.current(key);
  }
}
