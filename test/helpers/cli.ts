import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../../bin/cxrbench.js', import.meta.url));

/** What one run of the real `cxrbench` command did. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `cxrbench <args>` as a child process (the same entry point users run) and collects its output. With
 * `timeoutMs` a run still going then is killed (SIGKILL): its code is 137 and its stderr ends saying so, so a
 * command that hangs or runs away fails its test instead of stalling the suite.
 */
export function runCli(args: string[], options: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    const settings = { cwd: options.cwd, maxBuffer: 64 << 20, env: { ...process.env, NO_COLOR: '1', ...options.env }, ...(options.timeoutMs ? { timeout: options.timeoutMs, killSignal: 'SIGKILL' as const } : {}) };
    execFile(process.execPath, [bin, ...args], settings, (error, stdout, stderr) => {
      if (error?.killed) return resolve({ code: 137, stdout, stderr: `${stderr}(killed after ${options.timeoutMs} ms)\n` });
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}
