import { Command } from 'commander';
import type { FastifyInstance } from 'fastify';
import { DEFAULT_BOARD_PORT } from '../board/board-address.js';
import { CxrError } from '../core/errors.js';
import { createApp } from './create-app.js';
import { runShell, startBoardServices } from './shell.js';
import { watchChanges } from '../store/change-watch.js';

/**
 * `cxrbench serve`: the board's web server (own entry point: the CLI and the server never import each other).
 * Scoring runs in `--workers` threads of this process and/or in `cxrbench worker` processes — never on the
 * web server's event loop. Web replicas are stateless: sessions, limits and the queue live in the database.
 */
/** Listens, or says plainly why the address cannot be had (another program on the port, a port below 1024). */
async function listenOn(app: FastifyInstance, host: string, port: number): Promise<string> {
  try {
    return await app.listen({ host, port });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new CxrError('bad-option', `--port ${port}: ${host}:${port} is in use by another program; serve on another port (--port <n>; a demo board's links follow \`cxrbench demo --board <dir> --port <n>\`)`);
    if (code === 'EACCES') throw new CxrError('bad-option', `--port ${port}: this user may not listen on ${host}:${port} (ports below 1024 need privileges); choose a port of 1024 or more`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new CxrError('bad-option', `--host ${host}: not an address of this machine (${code})`);
    throw error;
  }
}

async function main(argv: string[]): Promise<void> {
  const program = new Command('cxrbench serve')
    .description('run the leaderboard server (SQLite in --data-dir, or PostgreSQL with DATABASE_URL=postgres://…)')
    .option('--data-dir <dir>', 'folder of the SQLite database', 'board-data')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <n>', 'port', (v) => Number(v), DEFAULT_BOARD_PORT)
    .option('--migrate', 'apply pending database migrations (and install the scoring queue) before starting')
    .option('--workers <n>', 'scoring threads in this process (0: a pure web replica; run `cxrbench worker` elsewhere)', (v) => Number(v), 1)
    .option('--max-upload-mb <n>', 'largest accepted upload', (v) => Number(v), 100)
    .option('--login-attempts <n>', 'failed sign-ins allowed per address and per account in 15 minutes', (v) => Number(v), 10)
    .option('--uploads-per-hour <n>', 'uploads allowed per address per hour (the teams\' submission limits are separate)', (v) => Number(v), 30)
    .option('--secure-cookies', 'mark session cookies Secure (serve behind HTTPS)')
    .option('--public-url <url>', 'the board\'s address as people reach it (e.g. https://board.example.org), for the reading links it hands out')
    .option('--no-signup', 'only administrators create accounts (cxrbench board user)')
    .option('--log-level <level>', 'request log level: fatal, error, warn, info, debug or silent (JSON lines on stdout)', 'info')
    .exitOverride();
  program.parse(argv, { from: 'user' });
  const flags = program.opts<{ dataDir: string; host: string; port: number; migrate?: boolean; workers: number; maxUploadMb: number; loginAttempts: number; uploadsPerHour: number; secureCookies?: boolean; signup: boolean; logLevel: string; publicUrl?: string }>();
  if (flags.publicUrl !== undefined && !/^https?:\/\/[^\s/]+(\/[^\s]*)?$/.test(flags.publicUrl)) throw new CxrError('bad-option', `--public-url ${flags.publicUrl}: expected an http(s) address such as https://board.example.org`);
  for (const [name, value] of [['--workers', flags.workers], ['--max-upload-mb', flags.maxUploadMb], ['--login-attempts', flags.loginAttempts], ['--uploads-per-hour', flags.uploadsPerHour], ['--port', flags.port]] as const) {
    if (!Number.isFinite(value) || value < 0) throw new CxrError('bad-option', `${name} ${String(value)}: expected a number ≥ 0`);
  }
  if (!Number.isInteger(flags.port) || flags.port > 65535) throw new CxrError('bad-option', `--port ${flags.port}: expected a port, a whole number from 0 to 65535 (0: any free port)`);
  const level = (['fatal', 'error', 'warn', 'info', 'debug', 'silent'] as const).find((l) => l === flags.logLevel) ?? 'info';
  const log = (lvl: string, message: string) => process.stderr.write(`${JSON.stringify({ level: lvl, time: Date.now(), msg: message })}\n`);
  const services = await startBoardServices({ dataDir: flags.dataDir, migrateFirst: flags.migrate === true, threads: Math.max(0, Math.floor(flags.workers)), label: 'serve', log });
  // Pages are kept until the database changes; on PostgreSQL the change is heard by LISTEN (one connection).
  const changes = await watchChanges(services.store);
  const app = createApp({ store: services.store, queue: services.queue, changes }, {
    maxUploadBytes: flags.maxUploadMb * 1024 * 1024, loginAttempts: flags.loginAttempts, uploadsPerWindow: flags.uploadsPerHour, uploadWindowMs: 60 * 60_000,
    secureCookies: flags.secureCookies === true, openSignup: flags.signup, publicUrl: flags.publicUrl?.replace(/\/+$/, '') ?? null, log: { level },
  });
  const address = await listenOn(app, flags.host, flags.port);
  process.stdout.write(`cxrbench board on ${address} (${services.store.dialect}: ${services.store.location}; ${services.queue.backend} queue; ${services.pool?.ready.length ?? 0} scoring thread(s))\n`);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await app.close();
    await changes.close();
    await services.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

runShell('cxrbench serve', () => main(process.argv.slice(3)));
