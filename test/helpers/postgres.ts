import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BIN = process.env.CXRBENCH_PG_BIN ?? '/usr/lib/postgresql/15/bin';

/**
 * The environment variable through which the test runner (scripts/run-tests.ts) hands every test file the URL of
 * the one cluster it started for the run: files then make databases in it instead of starting a cluster each.
 */
export const SHARED_CLUSTER_ENV = 'CXRBENCH_TEST_PG_URL';

/** A private PostgreSQL cluster on 127.0.0.1: its URL (database `postgres`) and how to stop it. */
export interface PostgresCluster {
  url: string;
  stop(): void;
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

// runuser lives in /usr/sbin, which a CI's PATH may not include.
const RUNUSER = ['/usr/sbin/runuser', '/sbin/runuser', '/usr/bin/runuser'].find((p) => existsSync(p)) ?? 'runuser';

/** Runs a PostgreSQL binary as the `postgres` OS user when we are root (initdb refuses root). */
function asPostgres(command: string, args: string[]): void {
  const root = process.getuid?.() === 0;
  const result = root ? spawnSync(RUNUSER, ['-u', 'postgres', '--', join(BIN, command), ...args], { encoding: 'utf8' }) : spawnSync(join(BIN, command), args, { encoding: 'utf8' });
  if (result.error) throw new Error(`${command}: cannot start ${root ? RUNUSER : join(BIN, command)}: ${result.error.message}`);
  if (result.status !== 0) throw new Error(`${command} failed (exit ${result.status}): ${result.stderr || result.stdout}`);
}

/**
 * The run's shared cluster when the test runner started one (stopping it is the runner's job, so `stop` does
 * nothing), else a throwaway cluster of this file's own: initdb into a temp dir, pg_ctl on a free port on
 * 127.0.0.1 only (no Unix socket clash with a system server), trust auth for the local test user. Stop it in an
 * `after` hook.
 */
export async function startPostgres(options: { maxConnections?: number } = {}): Promise<PostgresCluster> {
  const shared = process.env[SHARED_CLUSTER_ENV];
  if (shared) return { url: shared, stop() {} };
  if (!existsSync(join(BIN, 'initdb'))) throw new Error(`PostgreSQL 15 binaries not found in ${BIN} (apt-get install postgresql-15), or set CXRBENCH_PG_BIN`);
  const dir = mkdtempSync(join(tmpdir(), 'cxrbench-pg-'));
  const data = join(dir, 'data');
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
  }
  asPostgres('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
  const port = await freePort();
  asPostgres('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', '-o', `-p ${port} -h 127.0.0.1 -k ${dir} -F -c fsync=off -c full_page_writes=off -c max_connections=${options.maxConnections ?? 100}`, 'start']);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop() {
      try {
        asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
