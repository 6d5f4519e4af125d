import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DatabaseConnection, Kysely } from 'kysely';
import type { MigrationProvider } from 'kysely/migration';
import { CxrError } from '../core/errors.js';
import { cachingDatabase } from './sqlite-statements.js';
import type { Database } from './schema.js';

/** An open leaderboard database. */
export interface Store {
  db: Kysely<Database>;
  dialect: 'sqlite' | 'postgres';
  /** Where it is, without a password (for messages). */
  location: string;
  /** How to reach it again from another thread or process: the PostgreSQL URL (never printed), or the SQLite file. */
  connection: { databaseUrl: string } | { sqliteFile: string };
  close(): Promise<void>;
  /**
   * SQLite only: a token that changes whenever committed data may have changed (any connection, any process), read
   * in microseconds; PostgreSQL's comes from `watchChanges` (store/change-watch.ts).
   */
  changeToken?: () => string;
  /** PostgreSQL only: how many writes this store has made (the change watch adds them to what it hears). */
  localWrites?: () => number;
}

// The migrations (and Kysely with them) load only when a command migrates or checks: ~0.1 s of every start-up.
const provider: MigrationProvider = { getMigrations: async () => (await import('./migrations.js')).MIGRATIONS };

// Kysely and the drivers are loaded when a store is opened: every other command starts ~0.15 s faster.
async function migrator(store: Store) {
  const { Migrator } = await import('kysely/migration');
  return new Migrator({ db: store.db, provider });
}

/** Hides the password of a postgres:// URL. */
function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'the DATABASE_URL';
  }
}

/**
 * Where a SQLite database is to be opened: its folder must be a folder, and — unless it may be created — the file
 * must be there already, so a mistyped folder is said as such instead of becoming a new, empty database.
 */
function checkSqlitePlace(file: string, create: boolean): void {
  const folder = dirname(file);
  let kind;
  try {
    kind = statSync(folder, { throwIfNoEntry: false });
  } catch (error) {
    throw new CxrError('path-not-found', `${folder} cannot be a folder (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): give the folder that holds (or is to hold) the board's database, board.sqlite`);
  }
  if (kind && !kind.isDirectory()) throw new CxrError('path-not-found', `${folder} is a file, not a folder: give the folder that holds (or is to hold) the board's database, board.sqlite`);
  if (!create && !existsSync(file)) throw new CxrError('path-not-found', `there is no board database at ${file}: check the folder (--data-dir), or create one there with \`cxrbench db migrate --data-dir ${folder}\``);
}

/**
 * Opens the store: PostgreSQL when `databaseUrl` is a postgres:// URL, else a SQLite file at `sqliteFile` —
 * created when missing only if `create` (the default); otherwise a missing file is refused.
 * Checks the connection at once, so an unreachable server is reported here, with what to fix.
 */
export async function openStore(options: { databaseUrl?: string | undefined; sqliteFile: string; create?: boolean }): Promise<Store> {
  const url = options.databaseUrl;
  if (url && /^postgres(ql)?:\/\//.test(url)) {
    const [{ default: pg }, { Kysely, PostgresDialect }, { writeCounter }] = await Promise.all([import('pg'), import('kysely'), import('./write-counter.js')]);
    const pool = new pg.Pool({ connectionString: url, max: 10, connectionTimeoutMillis: 5000 });
    const counter = writeCounter();
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), plugins: [counter.plugin] });
    const store: Store = { db, dialect: 'postgres', location: redact(url), connection: { databaseUrl: url }, close: () => db.destroy(), localWrites: counter.writes };
    try {
      const client = await pool.connect();
      client.release();
    } catch (error) {
      await db.destroy();
      throw new CxrError('db-unreachable', `cannot connect to PostgreSQL at ${store.location}: ${(error as Error).message}. Check that the server runs and DATABASE_URL is right.`);
    }
    return store;
  }
  if (url) throw new CxrError('bad-option', `DATABASE_URL ${redact(url)}: expected postgres://user:password@host:port/database (leave it unset for the SQLite file)`);
  const [{ default: SQLite }, { Kysely, SqliteDialect, SqliteDriver, CompiledQuery }] = await Promise.all([import('better-sqlite3'), import('kysely')]);
  const create = options.create ?? true;
  checkSqlitePlace(options.sqliteFile, create);
  let database: InstanceType<typeof SQLite>;
  try {
    if (create) mkdirSync(dirname(options.sqliteFile), { recursive: true });
    database = new SQLite(options.sqliteFile, { fileMustExist: !create });
  } catch (error) {
    throw new CxrError('db-unreachable', `cannot open the SQLite database ${options.sqliteFile}: ${(error as Error).message}`);
  }
  // WAL: readers never wait for the writer; a crash mid-transaction rolls back on the next open.
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma('foreign_keys = ON');
  database.pragma('busy_timeout = 5000');
  // Transactions begin IMMEDIATE: the web thread, scoring threads and worker processes each hold a connection to
  // this file, and a deferred transaction that read before another connection wrote cannot then write (SQLITE_BUSY
  // at once, whatever the busy timeout). Taking the write lock first makes it wait its turn instead.
  class ImmediateDriver extends SqliteDriver {
    override async beginTransaction(connection: DatabaseConnection): Promise<void> {
      await connection.executeQuery(CompiledQuery.raw('begin immediate'));
    }
  }
  const cached = cachingDatabase(database);
  const config = { database: cached.driverDatabase };
  class ImmediateDialect extends SqliteDialect {
    override createDriver() {
      return new ImmediateDriver(config);
    }
  }
  const db = new Kysely<Database>({ dialect: new ImmediateDialect(config) });
  return { db, dialect: 'sqlite', location: options.sqliteFile, connection: { sqliteFile: options.sqliteFile }, close: () => db.destroy(), changeToken: cached.changeToken };
}

/** Opens another connection to the database a store uses (for a thread: connections do not cross threads). */
export function reopenStore(connection: Store['connection']): Promise<Store> {
  return openStore('databaseUrl' in connection ? { databaseUrl: connection.databaseUrl, sqliteFile: '' } : { sqliteFile: connection.sqliteFile });
}

/** Applies every pending migration; returns the names applied now. */
export async function migrate(store: Store): Promise<string[]> {
  const { results, error } = await (await migrator(store)).migrateToLatest();
  if (error) throw new CxrError('db-migration', `migrating ${store.location} failed: ${(error as Error).message}`);
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** Throws, saying how to fix it, unless every migration is applied. */
export async function assertMigrated(store: Store): Promise<void> {
  const migrations = await (await migrator(store)).getMigrations();
  const pending = migrations.filter((m) => m.executedAt === undefined).map((m) => m.name);
  if (pending.length > 0) {
    throw new CxrError('db-unmigrated', `the database ${store.location} is not migrated (pending: ${pending.join(', ')}). Run \`cxrbench db migrate\`, or start with \`cxrbench serve --migrate\`.`);
  }
}
