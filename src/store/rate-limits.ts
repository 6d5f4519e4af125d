import { sql } from 'kysely';
import type { Store } from './connect.js';

/** The start of the fixed window `at` falls in (ISO), so every replica counts in the same row. */
function windowStart(at: number, windowMs: number): string {
  return new Date(Math.floor(at / windowMs) * windowMs).toISOString();
}

/**
 * Counts one event for `key` in its current fixed window, in one atomic statement (an upsert that adds one and
 * returns the new count): every web replica on the same database sees the same count. Returns the count.
 */
export async function countEvent(store: Store, key: string, windowMs: number, at = Date.now()): Promise<number> {
  const row = await store.db.insertInto('rate_limits').values({ key, window_start: windowStart(at, windowMs), count: 1 })
    .onConflict((oc) => oc.columns(['key', 'window_start']).doUpdateSet({ count: sql`rate_limits.count + 1` }))
    .returning('count').executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Takes back one event of `key` in its current window (an attempt that turned out to be allowed). */
export async function uncountEvent(store: Store, key: string, windowMs: number, at = Date.now()): Promise<void> {
  await store.db.updateTable('rate_limits').set({ count: sql`count - 1` }).where('key', '=', key).where('window_start', '=', windowStart(at, windowMs)).where('count', '>', 0).execute();
}

/** Events counted for `key` in its current window. */
export async function eventCount(store: Store, key: string, windowMs: number, at = Date.now()): Promise<number> {
  const row = await store.db.selectFrom('rate_limits').select('count').where('key', '=', key).where('window_start', '=', windowStart(at, windowMs)).executeTakeFirst();
  return row ? Number(row.count) : 0;
}

/** Forgets `key`'s events (a successful sign-in clears the account's failures). */
export async function clearEvents(store: Store, key: string): Promise<void> {
  await store.db.deleteFrom('rate_limits').where('key', '=', key).execute();
}

/** Deletes windows that ended before `before` (ISO). */
export async function pruneEvents(store: Store, before: string): Promise<void> {
  await store.db.deleteFrom('rate_limits').where('window_start', '<', before).execute();
}

/** When the window `at` falls in ends (ms since the epoch). */
export function windowEnd(at: number, windowMs: number): number {
  return Math.floor(at / windowMs) * windowMs + windowMs;
}
