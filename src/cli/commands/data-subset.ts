import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Option, type Command } from 'commander';
import { CxrError } from '../../core/errors.js';
import type { Question } from '../../core/question.js';
import { detectLayout } from '../../dataset/layout.js';
import { readQuestions } from '../../dataset/read-dataset.js';
import { writeRexvqaJson } from '../../dataset/sources/rexvqa-json-write.js';
import { drawStratifiedSample } from '../../dataset/stratified-sample.js';
import { placeSubsetImages, type SubsetImageMode } from '../../dataset/subset-images.js';
import { sha256File } from '../evaluate.js';
import { wholeNumber } from '../option-parsers.js';
import { addSampleOptions, sampleFromFlags, sampleLine, type SampleFlags } from '../sample-options.js';

interface SubsetFlags extends SampleFlags {
  split: string;
  seed: number;
  out: string;
  images: SubsetImageMode | 'none';
  force?: boolean;
}

/** The file beside a subset's metadata/ that says where it came from (source file and hash, the sample). */
export const SUBSET_PROVENANCE = 'subset.json';

/**
 * `cxrbench data subset <dir> --split valid --sample 1% --stratify task --seed s --out <dir>`: a mini split in the
 * official layout, drawn with the same function as `eval --sample`, so both evaluate the same question ids.
 */
export function registerDataSubset(data: Command): void {
  const command = data
    .command('subset')
    .description('write a stratified sample of one split as a mini dataset in the official layout (metadata/<split>_vqa_data.json, images linked)')
    .argument('<dir>', 'the dataset to read')
    .requiredOption('--split <name>', 'the split to sample (the output has only this split)')
    .requiredOption('--out <folder>', 'output folder (created; an existing question file is not overwritten unless --force)')
    .option('--seed <n>', 'seed of the sample (the same as eval --seed gives eval --sample)', wholeNumber('--seed'), 0)
    .addOption(new Option('--images <mode>', 'link: symbolic links to the source images; copy: copies; none: references only').choices(['link', 'copy', 'none']).default('link'))
    .option('--force', 'overwrite an existing question file');
  addSampleOptions(command).action(async (dir: string, flags: SubsetFlags) => {
    const spec = sampleFromFlags(flags);
    if (!spec) throw new CxrError('bad-option', 'data subset needs --sample <n|share> (e.g. --sample 1% --stratify task)');
    const layout = detectLayout(dir);
    const file = layout.files.find((f) => f.split === flags.split);
    if (!file) throw new CxrError('bad-option', `--split ${flags.split}: ${dir} has splits ${layout.files.map((f) => f.split).join(', ')}`);
    const outBase = join(flags.out, 'metadata');
    const target = join(outBase, `${flags.split}_vqa_data.json`);
    if (existsSync(target) && !flags.force) throw new CxrError('output-exists', `${target} exists; pass --force to overwrite it`);
    const { count, sample } = await drawStratifiedSample(readQuestions(layout, [flags.split]), { ...spec, seed: flags.seed });
    const chosen: Question[] = [];
    for await (const q of readQuestions(layout, [flags.split])) if (sample.ids.has(q.id)) chosen.push(q);
    mkdirSync(outBase, { recursive: true });
    const images = flags.images === 'none' ? null : placeSubsetImages(chosen, { file: file.path, baseDir: file.baseDir }, flags.out, outBase, flags.images);
    const written = await writeRexvqaJson(chosen, target);
    const manifest = { size: sample.size, share: spec.size.kind === 'share' ? spec.size.share : null, stratify: spec.stratify, seed: flags.seed, strata: sample.strata };
    writeFileSync(join(flags.out, SUBSET_PROVENANCE), JSON.stringify({ source: { path: file.path, split: flags.split, sha256: await sha256File(file.path), count: count }, sample: manifest, ids: chosen.map((q) => q.id) }, null, 2) + '\n');
    process.stderr.write(`${flags.split}: ${written} of ${count} question(s) → ${target}\n`);
    process.stderr.write(sampleLine(manifest));
    if (images) {
      process.stderr.write(`images: ${images.placed} ${flags.images === 'link' ? 'linked' : 'copied'}${images.present ? `, ${images.present} already there` : ''}${images.absolute ? `, ${images.absolute} absolute reference(s) kept` : ''}\n`);
      if (images.missing.length > 0) process.stderr.write(`warning: ${images.missing.length} image(s) are not in the source, so not placed (e.g. ${images.missing.slice(0, 3).join(', ')}); data validate --images lists them\n`);
    }
  });
}
