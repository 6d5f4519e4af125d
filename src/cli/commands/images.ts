import { availableParallelism } from 'node:os';
import type { Command } from 'commander';
import { CxrError, EXIT } from '../../core/errors.js';
import { convertImages } from '../../images/convert-images.js';
import { LAYOUTS, type Layout } from '../../images/output-layout.js';
import { parseWindow } from '../../images/transforms.js';

interface ConvertFlags {
  out: string;
  scale: string;
  bits: string;
  window: string;
  layout: string;
  deid?: boolean;
  threads?: string;
  metadata?: string;
}

/** `cxrbench images convert`: DICOM files or folders → greyscale PNG + manifest.jsonl (docs/images.md). */
export function registerImages(program: Command): void {
  const images = program.command('images').description('DICOM images: decode, window, resize → PNG');
  images
    .command('convert <paths...>')
    .description('convert DICOM files (or folders of them) to 8- or 16-bit greyscale PNG, with a manifest.jsonl line per image; re-running skips what is done')
    .requiredOption('--out <dir>', 'the output folder (created if missing)')
    .option('--scale <factor>', 'resize factor, 0 < factor ≤ 1 (anti-aliased Lanczos-3)', '1')
    .option('--bits <n>', '8 | 16 bits per pixel in the PNG', '8')
    .option('--window <w>', 'auto (the first window in the file, else its first VOI LUT, else min/max) | none (the full modality range) | lut[:n] (the file\'s n-th VOI LUT, 1 by default) | <center>/<width>', 'auto')
    .option('--layout <layout>', `${LAYOUTS.join(' | ')}`, 'rexgradient')
    .option('--deid', 'replace patient ids and accession numbers in paths and the manifest with keyed hashes (key kept in <out>.deid-key)')
    .option('--metadata <file>', 'also write ReXGradient-style study metadata (JSON keyed p<PatientID>_a<Accession>_s<StudyUID>: ImagePath, ImageViewPosition) for everything in the manifest')
    .option('--threads <n>', 'conversion threads (default: the CPUs available, at most 8)')
    .action(async (paths: string[], flags: ConvertFlags) => {
      const threads = flags.threads === undefined ? Math.min(availableParallelism(), 8) : Number(flags.threads);
      if (!Number.isInteger(threads) || threads < 1) throw new CxrError('bad-option', `--threads ${flags.threads}: expected a whole number ≥ 1`);
      const scale = Number(flags.scale);
      if (!(scale > 0 && scale <= 1)) throw new CxrError('bad-option', `--scale ${flags.scale}: expected a number with 0 < scale ≤ 1`);
      if (flags.bits !== '8' && flags.bits !== '16') throw new CxrError('bad-option', `--bits ${flags.bits}: expected 8 or 16`);
      const window = parseWindow(flags.window);
      if (!window) throw new CxrError('bad-option', `--window ${flags.window}: expected auto, none, lut, lut:<n> or <center>/<width> with width > 0 (e.g. 2048/4096)`);
      if (!(LAYOUTS as readonly string[]).includes(flags.layout)) throw new CxrError('bad-option', `--layout ${flags.layout}: expected one of ${LAYOUTS.join(', ')}`);
      const summary = await convertImages(
        paths,
        { out: flags.out, scale, bits: flags.bits === '16' ? 16 : 8, window, layout: flags.layout as Layout, deid: flags.deid === true, threads, ...(flags.metadata ? { metadata: flags.metadata } : {}) },
        (failure) => process.stderr.write(`cxrbench: ${failure.file}: ${failure.reason}\n`),
      );
      process.stdout.write(`converted ${summary.converted}, skipped ${summary.skipped} (already converted), failed ${summary.failed.length}; manifest: ${summary.manifest}\n`);
      if (summary.failed.length > 0) process.exitCode = EXIT.findings;
    });
}
