import type { Store } from './connect.js';
import { CHANGES_CHANNEL } from './migrations.js';

/**
 * Tells, without asking the database, whether anything committed may have changed since a token was read. Pages
 * made from the database are kept under the token they were made at and made again only when it moves.
 */
export interface ChangeWatch {
  /** A token that changes on every committed change; null when this watch cannot tell (then ask the database). */
  token(): string | null;
  close(): Promise<void>;
}

/** How long to wait before listening again after the listening connection broke (doubling up to the maximum). */
const RETRY_MS = { first: 500, max: 30_000 };

/**
 * PostgreSQL tokens also move this often, whatever was heard: behind a pooler that does not carry LISTEN (PgBouncer
 * in transaction mode) no notification arrives, and a page would otherwise stay as it was forever. One rebuild per
 * board every few seconds costs nothing under load.
 */
export const PG_TOKEN_MAX_AGE_MS = 5000;

/**
 * SQLite: the store's own token (`data_version` and this connection's writes). PostgreSQL: one connection that
 * LISTENs on the channel migration 0009's triggers NOTIFY at every commit; each notification moves the token, and
 * so does each write this store made (at once: its own notification comes back a moment later).
 * While that connection is down the token is null, and after it is back the token has moved (what happened in
 * between was not heard). The token also moves every PG_TOKEN_MAX_AGE_MS.
 */
export async function watchChanges(store: Store): Promise<ChangeWatch> {
  if (store.changeToken) {
    const token = store.changeToken;
    return { token, close: async () => undefined };
  }
  if (!('databaseUrl' in store.connection)) return { token: () => null, close: async () => undefined };
  const { default: pg } = await import('pg');
  const url = store.connection.databaseUrl;
  const localWrites = store.localWrites ?? (() => 0);
  let generation = 0;
  let listening = false;
  let closed = false;
  let client: InstanceType<typeof pg.Client> | null = null;
  let retryMs = RETRY_MS.first;
  let retryTimer: NodeJS.Timeout | null = null;

  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
    const lost = () => {
      if (client !== next) return;
      listening = false;
      client = null;
      void next.end().catch(() => undefined);
      if (!closed) retryTimer = setTimeout(() => void connect().catch(() => undefined), retryMs);
      retryMs = Math.min(retryMs * 2, RETRY_MS.max);
    };
    next.on('notification', (message) => {
      if (message.channel === CHANGES_CHANNEL) generation++;
    });
    next.on('error', lost);
    next.on('end', lost);
    client = next;
    try {
      await next.connect();
      await next.query(`LISTEN ${CHANGES_CHANNEL}`);
    } catch (error) {
      lost();
      throw error;
    }
    if (closed) return void (await next.end().catch(() => undefined));
    generation++;
    listening = true;
    retryMs = RETRY_MS.first;
  };

  // A board whose listener cannot start still serves: the token stays null and every page asks the database.
  await connect().catch(() => undefined);
  return {
    token: () => (listening ? `pg:${generation}+${localWrites()}@${Math.floor(Date.now() / PG_TOKEN_MAX_AGE_MS)}` : null),
    close: async () => {
      closed = true;
      listening = false;
      if (retryTimer) clearTimeout(retryTimer);
      const open = client;
      client = null;
      await open?.end().catch(() => undefined);
    },
  };
}
