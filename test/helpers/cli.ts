import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../../bin/cxrbench.js', import.meta.url));

/** What one run of the real `cxrbench` command did. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `cxrbench <args>` as a child process (the same entry point users run) and collects its output. */
export function runCli(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { cwd: options.cwd, maxBuffer: 64 << 20, env: { ...process.env, NO_COLOR: '1', ...options.env } }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}
