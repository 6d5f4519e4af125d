import type { Command } from 'commander';
import { CxrError } from '../core/errors.js';
import { parseSampleSize, parseStratifyKey, STRATIFY_KEYS, type SampleSize, type SampleSpec, type StratifyKey } from '../dataset/stratified-sample.js';

/** The sampling flags `eval` and `data subset` share. */
export interface SampleFlags {
  sample?: SampleSize;
  stratify?: StratifyKey;
}

/** Adds `--sample` and `--stratify` to a command (the seed is the command's own `--seed`). */
export function addSampleOptions(command: Command): Command {
  return command
    .option('--sample <n|share>', 'a stratified sample: a number of questions (200), a percentage (1%) or a share (0.01); seeded by --seed', (v: string) => parseSampleSize(v))
    .option('--stratify <key>', `with --sample, allocate it over ${STRATIFY_KEYS.join(' | ')} in proportion (largest remainder); default one stratum`, (v: string) => parseStratifyKey(v));
}

/** The sample the flags ask for (without its seed), or null without `--sample`; `--stratify` alone is refused. */
export function sampleFromFlags(flags: SampleFlags): Omit<SampleSpec, 'seed'> | null {
  if (!flags.sample) {
    if (flags.stratify) throw new CxrError('bad-option', `--stratify ${flags.stratify} needs --sample <n|share> (e.g. --sample 1%)`);
    return null;
  }
  return { size: flags.sample, stratify: flags.stratify ?? null };
}

/** One line describing a drawn sample: size, share, stratify key, seed and the count per stratum. */
export function sampleLine(sample: { size: number; share: number | null; stratify: StratifyKey | null; seed: number; strata: Record<string, { selected: number; of: number }> }): string {
  const strata = Object.entries(sample.strata).map(([name, c]) => `${name} ${c.selected}/${c.of}`).join(', ');
  return `sample: ${sample.size} question(s)${sample.share !== null ? ` (${+(sample.share * 100).toFixed(6)}%)` : ''}${sample.stratify ? ` stratified by ${sample.stratify}` : ''}, seed ${sample.seed}: ${strata}\n`;
}
