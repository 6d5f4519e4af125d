import type { Database as SqliteDatabase, Statement } from 'better-sqlite3';

/** How many distinct SQL texts keep a prepared statement; the board's queries are a few hundred at most. */
const MAX_CACHED = 1000;

/** A better-sqlite3 database as Kysely's SQLite driver uses it, with prepared statements kept, and writes counted. */
export interface CachingDatabase {
  /** What Kysely's driver calls: `prepare(sql)` and `close()`. */
  driverDatabase: { prepare(sql: string): Statement; close(): void };
  /**
   * A token that changes whenever committed data may have changed: SQLite's `data_version` (moves when another
   * connection — a scoring thread, a worker process — commits) with the statements this connection ran that can
   * write (SQLite does not move `data_version` for the connection's own commits). Microseconds to read.
   */
  changeToken(): string;
}

/**
 * Kysely's SQLite driver prepares every query's SQL again on each call; preparing (parsing and planning) cost
 * the board's pages more than running the queries did (16% of a leaderboard request's CPU). Statements are kept
 * by their SQL text. A kept statement that is still being iterated (`busy`) is not handed out twice.
 */
export function cachingDatabase(database: SqliteDatabase): CachingDatabase {
  const statements = new Map<string, Statement>();
  let writes = 0;
  const dataVersion = database.prepare('PRAGMA data_version').pluck();
  const prepare = (sql: string): Statement => {
    let statement = statements.get(sql);
    if (!statement || statement.busy) {
      statement = database.prepare(sql);
      if (statements.size >= MAX_CACHED) statements.clear();
      statements.set(sql, statement);
    }
    // Counted when handed out: the driver runs it at once, in the same synchronous step, so no reader can see the
    // new data under the old token. `readonly`, not `reader`: an INSERT … RETURNING returns rows and writes.
    // Over-counting (a BEGIN, a write that changes nothing) only costs a rebuild.
    if (!statement.readonly) writes++;
    return statement;
  };
  return {
    driverDatabase: { prepare, close: () => database.close() },
    changeToken: () => `${String(dataVersion.get())}:${writes}`,
  };
}
