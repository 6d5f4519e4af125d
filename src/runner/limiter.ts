/**
 * A concurrency limit for requests, optionally adaptive: it halves on a rate-limit answer or when latency
 * rises well above its running baseline, and grows back by one after each window of successes (AIMD, the
 * rule TCP uses), never above the configured maximum.
 */
export class ConcurrencyLimiter {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  private current: number;
  private successesSinceChange = 0;
  private averageLatency: number | null = null;
  private bestAverageLatency = Infinity;

  constructor(
    private readonly max: number,
    private readonly adaptive: boolean,
  ) {
    if (!Number.isInteger(max) || max < 1) throw new Error(`concurrency must be a whole number ≥ 1, got ${max}`);
    this.current = max;
  }

  /** The limit in force now. */
  get limit(): number {
    return this.current;
  }

  /** Requests running now. */
  get running(): number {
    return this.active;
  }

  /** Waits for a slot; call the returned function when the request is done. */
  async acquire(): Promise<() => void> {
    while (this.active >= this.current) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
      this.wake();
    };
  }

  /** Feeds back a success and its latency. */
  onSuccess(latencyMs: number): void {
    if (!this.adaptive) return;
    this.averageLatency = this.averageLatency === null ? latencyMs : 0.8 * this.averageLatency + 0.2 * latencyMs;
    this.bestAverageLatency = Math.min(this.bestAverageLatency, this.averageLatency);
    this.successesSinceChange++;
    // Latency far above the best seen means the server is queueing: back off, at most once per window.
    if (this.averageLatency > 3 * this.bestAverageLatency + 50 && this.successesSinceChange >= this.current) {
      this.decrease();
      return;
    }
    if (this.successesSinceChange >= this.current && this.current < this.max) {
      this.current++;
      this.successesSinceChange = 0;
      this.wake();
    }
  }

  /** Feeds back a rate-limit (429) answer. */
  onRateLimit(): void {
    if (this.adaptive) this.decrease();
  }

  private decrease(): void {
    this.current = Math.max(1, Math.floor(this.current / 2));
    this.successesSinceChange = 0;
  }

  private wake(): void {
    // Woken waiters re-check the limit, so waking one per freed slot is enough.
    this.waiting.shift()?.();
  }
}
