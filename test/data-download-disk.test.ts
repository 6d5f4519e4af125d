import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, rmSync, statfsSync, symlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CxrError } from '../src/core/errors.js';
import { downloadDataset } from '../src/hub/download.js';
import { runCli } from './helpers/cli.js';
import { startFakeHub } from './helpers/fake-hub.js';
import { makeFakeRexvqa } from './helpers/fake-rexvqa-repos.js';
import { tempDir } from './helpers/records.js';

const bin = fileURLToPath(new URL('../bin/cxrbench.js', import.meta.url));
const TOKEN = 'hf_standInSecretToken0123456789';
const pngCount = (dir: string) => readdirSync(dir, { recursive: true }).filter((f) => String(f).endsWith('.png')).length;

test('data download: too little free space (statfs reported to the core) stops before fetching anything, saying how much more is needed', async () => {
  const data = await makeFakeRexvqa();
  const hub = await startFakeHub(data.repos, { granted: [TOKEN] });
  try {
    const out = join(tempDir(), 'small-disk');
    const questions = data.repos[0].files.filter((f) => f.path.endsWith('_vqa_data.json')).reduce((n, f) => n + f.content.length, 0);
    const archive = data.parts.reduce((n, p) => n + p.content.length, 0);
    const needed = questions + 2 * archive; // the pieces, then the images out of them (about the same size again)
    const error = await downloadDataset({
      outDir: out, what: 'all', hub: { endpoint: hub.url, token: TOKEN, tokenEnv: 'HF_TOKEN' }, concurrency: 2,
      settings: { retries: 1, backoffMs: 10, stallMs: 5000 }, verify: false, keepParts: false, freeSpace: async () => 1000,
    }).then(() => null, (e: unknown) => e);
    assert.ok(error instanceof CxrError, String(error));
    assert.equal(error.code, 'disk-full');
    const kb = (n: number) => `${(n / 1000).toFixed(n >= 100_000 ? 0 : 1)} kB`;
    assert.equal(error.message, `${out}: Not started: not enough free space. About ${kb(needed - 1000)} more is needed (${kb(needed)} still to write, 1.0 kB free). Free that much (or choose another --out) and rerun the same command: it goes on from where it stopped.`);
    assert.deepEqual(hub.requests.filter((r) => r.path.includes('/resolve/') || r.server === 'cdn'), [], 'nothing fetched');
  } finally {
    await hub.close();
  }
});

/** A small tmpfs when this process may mount one (root); null otherwise. */
function smallTmpfs(dir: string, bytes: number): (() => void) | null {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${Math.ceil(bytes / 4096) * 4}k`, 'tmpfs', dir], { stdio: 'ignore' });
    return () => execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
  } catch {
    return null;
  }
}

/** Fills a file system to the last byte: the write that does not fit fails with ENOSPC. */
function fill(file: string): void {
  const fd = openSync(file, 'w');
  const block = Buffer.alloc(64 << 10, 1);
  try {
    for (;;) writeSync(fd, block);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
}

test('data download: a disk that fills up mid-download (a real ENOSPC) stops cleanly with exit 3 and how much more is needed; freed, the rerun finishes', { timeout: 60_000 }, async () => {
  const data = await makeFakeRexvqa({ imageBytes: 200_000, parts: 4 });
  const hub = await startFakeHub(data.repos, { granted: [TOKEN] });
  const root = tempDir();
  const out = join(root, 'disk');
  mkdirSync(out);
  const archive = data.parts.reduce((n, p) => n + p.content.length, 0);
  // Room for the pieces and the images (tar headers included) plus 512 kB: the check before starting passes, then a
  // filler takes the rest.
  const unmount = smallTmpfs(out, archive + data.images.length * (200_000 + 1024) + (512 << 10));
  const filler = join(out, 'filler');
  try {
    hub.faults.throttleMs = 30;
    const args = [bin, 'data', 'download', '--out', out, '--what', 'images', '--concurrency', '1', '--quiet'];
    const env = { ...process.env, HF_ENDPOINT: hub.url, HF_TOKEN: TOKEN };
    const partial = join(out, '.cxrbench-download/partial/rajpurkarlab/ReXGradient-160K', `${data.parts[1]!.path}.part`);
    if (!unmount) {
      // Not root: the kernel's /dev/full gives the same ENOSPC to the write of a .part file that is a link to it.
      mkdirSync(join(partial, '..'), { recursive: true });
      symlinkSync('/dev/full', partial);
    }
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = new Promise<number | null>((r) => child.once('exit', r));
    if (unmount) {
      const first = join(out, '.cxrbench-download/partial/rajpurkarlab/ReXGradient-160K', `${data.parts[0]!.path}.part`);
      for (let i = 0; i < 2000 && !existsSync(first); i++) await new Promise((r) => setTimeout(r, 5));
      fill(filler);
      assert.equal(statfsSync(out).bavail, 0);
    }
    assert.equal(await code, 3, stderr);
    if (!unmount) assert.match(stderr, new RegExp(`^cxrbench: ${out}: a write was refused for lack of space \\(ENOSPC: a full disk or a quota\\) though \\d+(\\.\\d)? [kMGT]?B is reported free now; \\d+(\\.\\d)? (kB|MB) is still to write\\.`));
    else assert.match(stderr, new RegExp(`^cxrbench: ${out}: The disk filled up\\. About \\d+(\\.\\d)? (kB|MB) more is needed \\(\\d+(\\.\\d)? (kB|MB) still to write, \\d+(\\.\\d)? (B|kB) free\\)\\. Free that much \\(or choose another --out\\) and rerun the same command: it goes on from where it stopped\\.\\n$`));

    rmSync(filler, { force: true });
    rmSync(partial, { force: true });
    hub.faults.throttleMs = 0;
    const rerun = await runCli(['data', 'download', '--out', out, '--what', 'images'], { env: { HF_ENDPOINT: hub.url, HF_TOKEN: TOKEN }, timeoutMs: 30_000 });
    assert.equal(rerun.code, 0, rerun.stderr);
    assert.equal(pngCount(join(out, 'deid_png')), data.images.length);
  } finally {
    await hub.close();
    unmount?.();
  }
});
