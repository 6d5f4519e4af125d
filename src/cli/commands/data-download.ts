import type { Command } from 'commander';
import { CxrError } from '../../core/errors.js';
import { downloadDataset } from '../../hub/download.js';
import { formatBytes } from '../../hub/free-space.js';
import type { DownloadWhat } from '../../hub/selection.js';
import { downloadProgress } from '../download-progress.js';
import { wholeNumber } from '../option-parsers.js';

const WHAT = ['metadata', 'images', 'all'] as const;

interface DownloadFlags {
  out: string;
  what: string;
  splits?: string;
  revision?: string;
  tokenEnv: string;
  concurrency: number;
  retries: number;
  verify?: boolean;
  keepParts?: boolean;
  quiet?: boolean;
}

/** `cxrbench data download --out <dir>`: ReXVQA questions and ReXGradient-160K images from the hub, resumable and verified. */
export function registerDataDownload(data: Command): void {
  data
    .command('download')
    .description('download ReXVQA (questions) and ReXGradient-160K (images) from the Hugging Face Hub into the official layout; resumable and verified (docs/data.md)')
    .requiredOption('--out <dir>', 'output folder: metadata/ and deid_png/ land here (rerun the same command to resume or check)')
    .option('--what <what>', 'metadata | images | all', 'all')
    .option('--splits <list>', 'ReXVQA splits, comma-separated (e.g. valid,test); default every split the repo has')
    .option('--revision <rev>', 'branch, tag or commit for every repo, or ReXVQA=<sha>,ReXGradient-160K=<sha>; default main, pinned to its commit at the start')
    .option('--token-env <name>', 'environment variable holding the Hugging Face token', 'HF_TOKEN')
    .option('--concurrency <n>', 'connections at once (several files, or 8 MB ranges of a large one, earliest file first)', wholeNumber('--concurrency', 1, 32), 4)
    .option('--retries <n>', 'failed attempts in a row before a file is given up', wholeNumber('--retries', 0, 100), 5)
    .option('--verify', 'hash every file on disk again instead of trusting the recorded size and time')
    .option('--keep-parts', 'keep the deid_png.part* pieces after extraction (by default deleted once every image is out)')
    .option('--quiet', 'no progress display')
    .action(async (flags: DownloadFlags) => {
      if (!(WHAT as readonly string[]).includes(flags.what)) throw new CxrError('bad-option', `--what ${flags.what}: expected one of ${WHAT.join(', ')}`);
      const splits = flags.splits?.split(',').map((s) => s.trim()).filter(Boolean);
      if (splits && splits.length === 0) throw new CxrError('bad-option', '--splits: give at least one split, e.g. valid,test');
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(flags.tokenEnv)) throw new CxrError('bad-option', `--token-env ${flags.tokenEnv}: expected an environment variable name such as HF_TOKEN`);
      const token = process.env[flags.tokenEnv]?.trim() || undefined;
      const endpoint = (process.env.HF_ENDPOINT?.trim() || 'https://huggingface.co').replace(/\/+$/, '');
      const progress = downloadProgress(flags.quiet === true);
      let summary;
      try {
        summary = await downloadDataset({
          outDir: flags.out,
          what: flags.what as DownloadWhat,
          ...(splits ? { splits } : {}),
          ...(flags.revision ? { revision: flags.revision } : {}),
          hub: { endpoint, token, tokenEnv: flags.tokenEnv },
          concurrency: flags.concurrency,
          settings: { retries: flags.retries, backoffMs: 1000, stallMs: 60_000 },
          verify: flags.verify === true,
          keepParts: flags.keepParts === true,
          onEvent: progress.onEvent,
        });
      } finally {
        progress.stop();
      }
      const pins = Object.entries(summary.revisions).map(([repo, sha]) => `${repo}@${sha.slice(0, 12)}`).join(', ');
      const images = summary.images === null ? '' : `, ${summary.images} images`;
      const verb = summary.status === 'complete' ? (flags.verify ? 'complete (every file hashed again)' : 'complete') : 'downloaded';
      process.stdout.write(`${verb}: ${flags.out} — ${pins}; ${summary.files} files (${formatBytes(summary.bytes)})${images}; ${summary.seconds.toFixed(1)} s\n`);
      process.stdout.write(`next: cxrbench data validate ${flags.out} --images\n`);
    });
}
