/** What a lookup found, and how to keep what was made on a miss. */
export interface MemoLookup {
  /** The kept response, made at the current token; null on a miss. */
  hit: Buffer | null;
  /** Keeps `value` under the token read at lookup (not now: a change while it was made must make it again). */
  keep(value: Buffer): void;
}

/**
 * Whole responses (a page as the bytes sent) kept per key under the database's change token: while nothing was
 * committed, a request costs neither a query, nor rendering, nor UTF-8 encoding — the three that made the
 * leaderboard page slow under load. A null token (the store cannot tell cheaply) keeps nothing.
 */
export class ResponseMemo {
  private readonly kept = new Map<string, { token: string; value: Buffer }>();

  constructor(
    private readonly token: () => string | null,
    private readonly maxKeys = 256,
  ) {}

  lookup(key: string): MemoLookup {
    const token = this.token();
    const found = token === null ? undefined : this.kept.get(key);
    return {
      hit: found && found.token === token ? found.value : null,
      keep: (value) => {
        if (token === null) return;
        // A handful of keys per board (sort orders); a flood of distinct keys (odd query strings) cannot grow it.
        if (!this.kept.has(key) && this.kept.size >= this.maxKeys) this.kept.clear();
        this.kept.set(key, { token, value });
      },
    };
  }
}
