import { buildLeaderboard, type LeaderboardRow } from '../board/leaderboard.js';
import type { Store } from '../store/connect.js';
import { entriesVersion, publicEntries } from '../store/submissions.js';

/**
 * Leaderboards computed once and served many times. Entries are published by workers — other threads, other
 * processes, other machines — so a board is rebuilt when the entries of its benchmark change: the cache asks
 * the database for the entries' version (their count and latest time, one indexed query; with `checkMs`, at most
 * that often) and rebuilds only when it moved. A submission shown as scored is on the board at once. Rows (with
 * rank tiers, which compare every entry's items) are never rebuilt per request.
 */
export class LeaderboardCache {
  private readonly boards = new Map<string, { rows: Promise<LeaderboardRow[]>; version: string; checkedAt: number }>();

  constructor(
    private readonly store: Store,
    private readonly checkMs = 0,
  ) {}

  async rows(benchmarkId: string): Promise<LeaderboardRow[]> {
    const hit = this.boards.get(benchmarkId);
    if (hit && Date.now() - hit.checkedAt < this.checkMs) return hit.rows;
    const version = await entriesVersion(this.store, benchmarkId);
    if (hit && hit.version === version) {
      hit.checkedAt = Date.now();
      return hit.rows;
    }
    const rows = publicEntries(this.store, benchmarkId).then(buildLeaderboard);
    rows.catch(() => this.boards.delete(benchmarkId));
    this.boards.set(benchmarkId, { rows, version, checkedAt: Date.now() });
    return rows;
  }
}
