import { Command, CommanderError } from 'commander';
import { CxrError, EXIT } from '../core/errors.js';
import { TOOL_VERSION } from '../core/version.js';
import { registerDataConvert } from './commands/data-convert.js';
import { registerDataDownload } from './commands/data-download.js';
import { registerDataStats } from './commands/data-stats.js';
import { registerDataSubset } from './commands/data-subset.js';
import { registerDataValidate } from './commands/data-validate.js';
import { registerDemo } from './commands/demo.js';
import { registerExtract } from './commands/extract.js';
import { registerEval } from './commands/eval.js';
import { registerExtractAudit } from './commands/extract-audit.js';
import { registerScore } from './commands/score.js';
import { registerCompare } from './commands/compare.js';
import { registerAgreement } from './commands/agreement.js';
import { registerReport } from './commands/report.js';
import { registerBoard } from './commands/board.js';
import { registerStudy } from './commands/study.js';
import { registerRrg } from './commands/rrg.js';
import { registerCorpus } from './commands/corpus.js';
import { registerCheck, registerGenerate } from './commands/generate.js';
import { registerReview } from './commands/review.js';
import { registerImages } from './commands/images.js';

/** Builds the `cxrbench` command tree. Exported for in-process tests. */
export function buildProgram(): Command {
  const program = new Command('cxrbench')
    .description('Benchmark AI on chest X-ray interpretation (ReXVQA, ReXrank)')
    .version(TOOL_VERSION)
    .exitOverride()
    .showHelpAfterError()
    // The program's -V/--version only before a subcommand: `board load --version 2` and `review export --version 1`
    // are the subcommands' own options (without this, commander printed the tool's version and exited 0).
    .enablePositionalOptions();
  registerDemo(program);
  const data = program.command('data').description('download, load, validate, describe and convert benchmark datasets');
  registerDataValidate(data);
  registerDataStats(data);
  registerDataConvert(data);
  registerDataDownload(data);
  registerDataSubset(data);
  registerEval(program);
  registerExtract(program);
  registerExtractAudit(program);
  registerScore(program);
  registerCompare(program);
  registerAgreement(program);
  registerReport(program);
  registerBoard(program);
  registerStudy(program);
  registerRrg(program);
  registerCorpus(program);
  registerGenerate(program);
  registerCheck(program);
  registerReview(program);
  registerImages(program);
  program.addHelpText('after', '\nServe a leaderboard: cxrbench serve --help (see docs/board.md)');
  return program;
}

/** Runs the CLI: user errors print one clear message and set the catalogue's exit code; anything else is a bug. */
export async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      process.exitCode = error.exitCode === 0 ? EXIT.ok : EXIT.badInput;
    } else if (error instanceof CxrError) {
      process.stderr.write(`cxrbench: ${error.message}\n`);
      process.exitCode = error.exitCode;
    } else {
      process.stderr.write(`cxrbench: internal error (please report it): ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = EXIT.internal;
    }
  }
}

// A reader that stops reading (`cxrbench --help | head -1`) closes the pipe: that is not an error of ours.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok);
    throw error;
  });
}

await main(process.argv);
