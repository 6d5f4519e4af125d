import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../../bin/cxrbench.js', import.meta.url));

/** Queue timings short enough that a dead scorer's job is taken again within seconds (the defaults suit a real board). */
export const FAST_QUEUE = { CXRBENCH_SCORING_LEASE_SECONDS: '3', CXRBENCH_QUEUE_SUPERVISE_SECONDS: '1', CXRBENCH_QUEUE_POLL_MS: '200', CXRBENCH_SCORING_RETRY_DELAY_SECONDS: '0' };

/** A `cxrbench` child process with everything it printed so far. */
export type CxrbenchProcess = ChildProcess & { output: () => string };

/**
 * Starts `cxrbench <args>` and resolves once it printed `ready` (stdout or stderr). `env` is added to this
 * process's environment; a key set to undefined is removed (e.g. DATABASE_URL for a SQLite board).
 */
export async function startCxrbench(args: string[], ready: string, env: Record<string, string | undefined> = {}, timeoutMs = 20_000): Promise<CxrbenchProcess> {
  const merged: NodeJS.ProcessEnv = { ...process.env };
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete merged[k];
    else merged[k] = v;
  }
  const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: merged });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  for (let waited = 0; waited < timeoutMs && !out.includes(ready); waited += 50) await new Promise((r) => setTimeout(r, 50));
  if (!out.includes(ready)) {
    child.kill('SIGKILL');
    throw new Error(`cxrbench ${args[0]} did not start: ${out}`);
  }
  return Object.assign(child, { output: () => out });
}

/** Stops a child (SIGTERM, or the signal given) and waits for it to exit; nothing when it already has. */
export async function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill(signal);
  await exited;
}

/**
 * Waits (up to ~20 s) until `state()` says the submission is being scored, then kills `server` with SIGKILL and
 * waits for it to exit: the crash lands while the scoring thread is at work. Fails the test when it never is.
 */
export async function killWhileScoring(server: ChildProcess, state: () => Promise<string | undefined>): Promise<void> {
  let now: string | undefined;
  for (let i = 0; i < 4000 && now !== 'scoring'; i++) {
    now = await state();
    if (now !== 'scoring') await new Promise((r) => setTimeout(r, 5));
  }
  if (now !== 'scoring') throw new Error(`never caught the scoring thread at work (last state ${now ?? 'none'})`);
  const exited = new Promise((r) => server.once('exit', r));
  server.kill('SIGKILL');
  await exited;
}
