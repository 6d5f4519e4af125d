import type { Command } from 'commander';
import { CxrError } from '../../core/errors.js';
import { parseColumnMap } from '../../corpus/column-map.js';
import { importCorpus } from '../../corpus/import-corpus.js';
import { CORPUS_FORMATS, type CorpusFormat } from '../../corpus/read-sources.js';

/** `cxrbench corpus import`: a report corpus (ReXGradient metadata, CSV, JSONL) → normalised JSONL for `generate`. */
export function registerCorpus(program: Command): void {
  const corpus = program.command('corpus').description('report corpora for question generation');
  corpus
    .command('import <path>')
    .description('normalise a report corpus into JSONL (one report per line); records that cannot be used are listed with their reason in <out>.rejected.jsonl')
    .requiredOption('--format <format>', `${CORPUS_FORMATS.join(' | ')}`)
    .requiredOption('--out <file>', 'the corpus file to write (JSONL)')
    .option('--map <pairs>', 'which columns (CSV) or keys (JSONL) hold each field: id=,patient=,indication=,comparison=,findings=,impression=,images=,views= (default: the usual names)')
    .option('--images-csv <file>', 'a CSV listing each report\'s images (id/uid, filename/path, projection/view), e.g. the IU X-ray indiana_projections.csv')
    .action(async (path: string, opts: { format: string; out: string; map?: string; imagesCsv?: string }) => {
      if (!(CORPUS_FORMATS as readonly string[]).includes(opts.format)) throw new CxrError('bad-option', `--format ${opts.format}: expected one of ${CORPUS_FORMATS.join(', ')}`);
      const summary = await importCorpus(path, opts.format as CorpusFormat, parseColumnMap(opts.map), opts.out, opts.imagesCsv);
      process.stdout.write(`imported ${summary.reports} report(s) into ${summary.out}; ${summary.rejected} record(s) rejected${summary.rejected > 0 ? ` (listed in ${summary.rejectionsFile}):` : ''}\n`);
      for (const [reason, n] of Object.entries(summary.byReason)) process.stdout.write(`  ${n} × ${reason}\n`);
    });
}
