import { buildLeaderboard, type LeaderboardRow } from '../board/leaderboard.js';
import type { Store } from '../store/connect.js';
import { publicEntries } from '../store/submissions.js';

/**
 * Leaderboards computed once and served many times: rows (with rank tiers, which compare every entry's items)
 * are rebuilt when this process publishes an entry, and at most every `ttlMs` otherwise (another process on
 * the same PostgreSQL may have published one).
 */
export class LeaderboardCache {
  private readonly boards = new Map<string, { rows: Promise<LeaderboardRow[]>; at: number }>();

  constructor(
    private readonly store: Store,
    private readonly ttlMs = 2000,
  ) {}

  rows(benchmarkId: string): Promise<LeaderboardRow[]> {
    const hit = this.boards.get(benchmarkId);
    if (hit && Date.now() - hit.at < this.ttlMs) return hit.rows;
    const rows = publicEntries(this.store, benchmarkId).then(buildLeaderboard);
    rows.catch(() => this.boards.delete(benchmarkId));
    this.boards.set(benchmarkId, { rows, at: Date.now() });
    return rows;
  }

  invalidate(benchmarkId: string): void {
    this.boards.delete(benchmarkId);
  }
}
