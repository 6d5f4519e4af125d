import { Command } from 'commander';
import { runShell, startBoardServices } from './shell.js';

/**
 * `cxrbench worker`: a scoring worker process — threads that take scoring jobs from the board's queue — for web
 * replicas started with `--workers 0`, or to add scoring capacity. Any number may run, on any machine that
 * reaches the PostgreSQL database (on SQLite: on the machine with the file).
 */
async function main(argv: string[]): Promise<void> {
  const program = new Command('cxrbench worker')
    .description('score submissions from the board\'s queue (PostgreSQL with DATABASE_URL, else SQLite in --data-dir)')
    .option('--data-dir <dir>', 'folder of the SQLite database', 'board-data')
    .option('--threads <n>', 'scoring threads', (v) => Number(v), 1)
    .exitOverride();
  program.parse(argv, { from: 'user' });
  const flags = program.opts<{ dataDir: string; threads: number }>();
  const log = (level: string, message: string) => process.stderr.write(`${JSON.stringify({ level, time: Date.now(), msg: message })}\n`);
  const services = await startBoardServices({ dataDir: flags.dataDir, migrateFirst: false, threads: Math.max(1, Math.floor(flags.threads)), label: 'worker', log });
  process.stdout.write(`cxrbench worker: ${services.pool!.ready.length} scoring thread(s) on ${services.store.location} (${services.queue.backend} queue)\n`);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await services.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

runShell('cxrbench worker', () => main(process.argv.slice(3)));
