import { buildLeaderboard, type LeaderboardRow } from '../board/leaderboard.js';
import type { Store } from '../store/connect.js';
import { entriesVersion, publicEntries } from '../store/submissions.js';

/**
 * Leaderboards computed once and served many times. Entries are published by workers — other threads, other
 * processes, other machines — so a board is rebuilt when the entries of its benchmark change: while the
 * database's change token (store/change-watch.ts) has not moved, nothing is asked; when it has (or the store
 * cannot tell), the cache asks the database for the entries' version (their count and latest time, one indexed
 * query; with `checkMs`, at most that often) and rebuilds only when it moved. A submission shown as scored is on
 * the board at once. Rows (with rank tiers, which compare every entry's items) are never rebuilt per request.
 */
export class LeaderboardCache {
  private readonly boards = new Map<string, { rows: Promise<LeaderboardRow[]>; version: string; checkedAt: number; token: string | null; derived: Map<string, unknown> }>();

  constructor(
    private readonly store: Store,
    private readonly changeToken: () => string | null = () => null,
    private readonly checkMs = 0,
  ) {}

  async rows(benchmarkId: string): Promise<LeaderboardRow[]> {
    return (await this.current(benchmarkId)).rows;
  }

  /**
   * Something made from a board's rows (a serialized API answer, a rendered table), made once per version of its
   * entries and `key`: serializing or rendering dozens of entries per request is what made pages slow under load.
   * `key` must name everything else the result depends on.
   */
  async derived<T>(benchmarkId: string, key: string, make: (rows: LeaderboardRow[]) => T): Promise<T> {
    const board = await this.current(benchmarkId);
    const rows = await board.rows;
    if (board.derived.has(key)) return board.derived.get(key) as T;
    // A handful of keys per version (sort orders, open or closed); a flood of distinct keys cannot grow it.
    if (board.derived.size >= 64) board.derived.clear();
    const value = make(rows);
    board.derived.set(key, value);
    return value;
  }

  /** Drops one derived value (e.g. a promise that failed), so the next request makes it again. */
  forget(benchmarkId: string, key: string): void {
    this.boards.get(benchmarkId)?.derived.delete(key);
  }

  private async current(benchmarkId: string) {
    const hit = this.boards.get(benchmarkId);
    // Read before the version query: a change committed while it runs moves the token, so the next request asks again.
    const token = this.changeToken();
    if (hit && token !== null && hit.token === token) return hit;
    if (hit && Date.now() - hit.checkedAt < this.checkMs) return hit;
    const version = await entriesVersion(this.store, benchmarkId);
    const again = this.boards.get(benchmarkId);
    if (again && again.version === version) {
      again.checkedAt = Date.now();
      again.token = token;
      return again;
    }
    const rows = publicEntries(this.store, benchmarkId).then(buildLeaderboard);
    rows.catch(() => this.boards.delete(benchmarkId));
    const board = { rows, version, checkedAt: Date.now(), token, derived: new Map<string, unknown>() };
    this.boards.set(benchmarkId, board);
    return board;
  }
}
