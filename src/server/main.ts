import { join } from 'node:path';
import { Command } from 'commander';
import { CxrError, EXIT } from '../core/errors.js';
import { assertMigrated, migrate, openStore } from '../store/connect.js';
import { markInterrupted } from '../store/submissions.js';
import { createApp } from './create-app.js';

/** `cxrbench serve`: the board's server shell (own entry point: the CLI and the server never import each other). */
async function main(argv: string[]): Promise<void> {
  const program = new Command('cxrbench serve')
    .description('run the leaderboard server (SQLite in --data-dir, or PostgreSQL with DATABASE_URL=postgres://…)')
    .option('--data-dir <dir>', 'folder of the SQLite database', 'board-data')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <n>', 'port', (v) => Number(v), 8080)
    .option('--migrate', 'apply pending database migrations before starting')
    .option('--max-upload-mb <n>', 'largest accepted upload', (v) => Number(v), 100)
    .option('--secure-cookies', 'mark session cookies Secure (serve behind HTTPS)')
    .option('--no-signup', 'only administrators create accounts (cxrbench board user)')
    .exitOverride();
  program.parse(argv, { from: 'user' });
  const flags = program.opts<{ dataDir: string; host: string; port: number; migrate?: boolean; maxUploadMb: number; secureCookies?: boolean; signup: boolean }>();
  const store = await openStore({ databaseUrl: process.env.DATABASE_URL, sqliteFile: join(flags.dataDir, 'board.sqlite') });
  if (flags.migrate) await migrate(store);
  await assertMigrated(store);
  const interrupted = await markInterrupted(store);
  const app = createApp(store, { maxUploadBytes: flags.maxUploadMb * 1024 * 1024, secureCookies: flags.secureCookies === true, openSignup: flags.signup });
  const address = await app.listen({ host: flags.host, port: flags.port });
  process.stdout.write(`cxrbench board on ${address} (${store.dialect}: ${store.location})${interrupted ? `; ${interrupted} interrupted scoring(s) marked for retry` : ''}\n`);
  const stop = async () => {
    await app.close();
    await store.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

main(process.argv.slice(3)).catch((error: unknown) => {
  if (error instanceof CxrError) {
    process.stderr.write(`cxrbench serve: ${error.message}\n`);
    process.exit(error.exitCode);
  }
  if (error && typeof error === 'object' && 'exitCode' in error && (error as { code?: string }).code?.startsWith('commander.')) process.exit((error as { exitCode: number }).exitCode === 0 ? 0 : EXIT.badInput);
  process.stderr.write(`cxrbench serve: internal error: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(EXIT.internal);
});
