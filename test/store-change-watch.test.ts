import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { watchChanges, type ChangeWatch } from '../src/store/change-watch.js';
import { reopenStore, type Store } from '../src/store/connect.js';
import { cachingDatabase } from '../src/store/sqlite-statements.js';
import { DIALECTS, freshStore, lazyCluster } from './helpers/board.js';

const cluster = lazyCluster();
after(() => cluster.stop());

/** The part of a token that moves on changes heard (PostgreSQL's also moves with the clock: `@<time bucket>`). */
const heard = (watch: ChangeWatch) => watch.token()?.replace(/@\d+$/, '') ?? null;

/** Waits (up to 3 s) until what the watch heard is not `before` and not null; returns it. */
async function moved(watch: ChangeWatch, before: string | null): Promise<string> {
  const until = Date.now() + 3000;
  for (;;) {
    const now = heard(watch);
    if (now !== null && now !== before) return now;
    if (Date.now() > until) throw new Error(`the token stayed ${String(now)} (was ${String(before)})`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Reads the token a few times over 200 ms and says whether it ever moved. */
async function staysAt(watch: ChangeWatch, token: string): Promise<boolean> {
  for (let i = 0; i < 20; i++) {
    if (heard(watch) !== token) return false;
    await new Promise((r) => setTimeout(r, 10));
  }
  return true;
}

/**
 * Waits until the token has not moved for 200 ms and returns it. On PostgreSQL a store's own write moves the token
 * twice — at once (its own count) and again when its notification comes back — so a step waits for the echo to
 * land before the next write, or the echo is taken for the next write's change.
 */
async function settled(watch: ChangeWatch): Promise<string> {
  for (let i = 0; i < 50; i++) {
    const now = heard(watch);
    if (now !== null && (await staysAt(watch, now))) return now;
  }
  throw new Error('the token never rested');
}

const insertLimit = (store: Store, key: string) => store.db.insertInto('rate_limits').values({ key, window_start: '2026-01-01T00:00:00.000Z', count: 1 }).execute();

for (const dialect of DIALECTS) {
  test(`change watch (${dialect}): reads move nothing; a commit by this connection, by another connection, and inside a transaction each move the token (its own writes at once)`, { timeout: 60_000 }, async () => {
    const store = await freshStore(dialect, cluster.get);
    const other = await reopenStore(store.connection);
    const watch = await watchChanges(store);
    try {
      const start = heard(watch);
      assert.notEqual(start, null, 'the watch can tell');
      await store.db.selectFrom('benchmarks').selectAll().execute();
      await other.db.selectFrom('rate_limits').selectAll().execute();
      assert.ok(await staysAt(watch, start!), 'reads, here or elsewhere, leave the token alone');

      await insertLimit(store, 'own');
      // At once, not when PostgreSQL's notification comes back: a page asked right after this store wrote is new.
      assert.notEqual(heard(watch), start, "this store's own write moves the token before its answer returns");
      await moved(watch, start);
      const afterOwn = await settled(watch);
      await insertLimit(other, 'other');
      await moved(watch, afterOwn);
      const afterOther = await settled(watch);
      await other.db.transaction().execute(async (tx) => {
        await tx.updateTable('rate_limits').set({ count: 2 }).where('key', '=', 'other').execute();
      });
      const afterTransaction = await moved(watch, afterOther);
      assert.equal(await settled(watch), afterTransaction, 'one change heard for the transaction, and then it rests');
    } finally {
      await watch.close();
      await other.close();
      await store.close();
    }
  });
}

test('SQLite statements: one SQL text is prepared once and run again; a kept statement still being iterated is not handed out twice', () => {
  const raw = new SQLite(':memory:');
  let prepared = 0;
  const counting = new Proxy(raw, { get: (target, name) => (name === 'prepare' ? (sql: string) => (prepared++, target.prepare(sql)) : Reflect.get(target, name)) });
  const { driverDatabase } = cachingDatabase(counting);
  try {
    driverDatabase.prepare('create table t (k text)').run();
    for (const k of ['a', 'b', 'c']) driverDatabase.prepare('insert into t values (?)').run(k);
    const select = 'select k from t order by k';
    const first = driverDatabase.prepare(select);
    assert.equal(driverDatabase.prepare(select), first, 'the same statement, kept');
    const before = prepared;
    const outer: string[] = [];
    for (const row of first.iterate() as Iterable<{ k: string }>) {
      outer.push(row.k);
      // A nested use of the same SQL while the kept statement is busy: a fresh statement, not "busy executing".
      assert.deepEqual((driverDatabase.prepare(select).all() as { k: string }[]).map((r) => r.k), ['a', 'b', 'c']);
    }
    assert.deepEqual(outer, ['a', 'b', 'c']);
    assert.equal(prepared - before, 1, 'one fresh statement for the first nested use; the next ones reuse it');
  } finally {
    raw.close();
  }
});

test('change watch (postgres): every table of the board announces its changes (a migration that adds a table must add the trigger)', { timeout: 60_000 }, async () => {
  const store = await freshStore('postgres', cluster.get);
  try {
    const tables = await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE' and table_name not like 'kysely_migration%' order by table_name`.execute(store.db);
    const triggered = await sql<{ name: string }>`select distinct event_object_table as name from information_schema.triggers where trigger_schema = current_schema() and action_statement like '%cxrbench_notify_change%' order by event_object_table`.execute(store.db);
    assert.ok(tables.rows.length >= 10, `found the tables (${tables.rows.length})`);
    assert.deepEqual(triggered.rows.map((r) => r.name), tables.rows.map((r) => r.name));
  } finally {
    await store.close();
  }
});

test('change watch (postgres): while the listening connection is down the token is null (pages ask the database); back, it has moved', { timeout: 60_000 }, async () => {
  const store = await freshStore('postgres', cluster.get);
  const watch = await watchChanges(store);
  try {
    const before = heard(watch);
    assert.notEqual(before, null);
    await sql`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and query ilike 'listen %'`.execute(store.db);
    const until = Date.now() + 3000;
    while (watch.token() !== null && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
    assert.equal(watch.token(), null, 'no token while nothing listens: a change now would not be heard');
    await insertLimit(store, 'while-down');
    const back = await moved(watch, before);
    assert.notEqual(back, before, 'what happened while it was down counts as a change');
  } finally {
    await watch.close();
    await store.close();
  }
});

test('SQLite change token: a write that returns rows (INSERT … RETURNING) moves it too', () => {
  const raw = new SQLite(':memory:');
  const { driverDatabase, changeToken } = cachingDatabase(raw);
  try {
    driverDatabase.prepare('create table t (k text)').run();
    const before = changeToken();
    assert.deepEqual(driverDatabase.prepare('insert into t values (?) returning k').all('a'), [{ k: 'a' }]);
    assert.notEqual(changeToken(), before);
    const after = changeToken();
    driverDatabase.prepare('select k from t').all();
    assert.equal(changeToken(), after, 'a read does not');
  } finally {
    raw.close();
  }
});
