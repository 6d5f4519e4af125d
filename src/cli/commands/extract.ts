import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import { CxrError, EXIT } from '../../core/errors.js';
import { extractAnswer } from '../../extract/extract.js';
import { ExtractInputLine } from '../../extract/extract-input.js';
import { writeTextAtomically } from '../write-output.js';

/** `cxrbench extract --in <file.jsonl>`: re-extract answers from other tools' outputs with the cxrbench ladder. */
export function registerExtract(program: Command): void {
  program
    .command('extract')
    .description('read lines {id, output, options?} and write lines {id, letter, rule} (letter null when unparseable)')
    .requiredOption('--in <file>', 'JSONL input, one {id, output, options?} per line')
    .option('--out <file>', 'write here (atomically) instead of standard output')
    .option('--strict', 'JSON and <answer> tags only')
    .action(async (opts: { in: string; out?: string; strict?: boolean }) => {
      let input;
      try {
        input = createReadStream(opts.in);
        await new Promise((resolve, reject) => input!.once('open', resolve).once('error', reject));
      } catch {
        throw new CxrError('unreadable-file', `${opts.in}: cannot read the file`);
      }
      const lines: string[] = [];
      const byRule = new Map<string, number>();
      let bad = 0;
      let lineNumber = 0;
      for await (const text of createInterface({ input, crlfDelay: Infinity })) {
        lineNumber++;
        if (text.trim() === '') continue;
        let parsed;
        try {
          parsed = ExtractInputLine.safeParse(JSON.parse(text));
        } catch (error) {
          bad++;
          process.stderr.write(`${opts.in}:${lineNumber}: not JSON (${(error as Error).message})\n`);
          continue;
        }
        if (!parsed.success) {
          bad++;
          const problems = parsed.error.issues.map((i) => `field ${i.path.join('.') || '(line)'}: ${i.message}`).join('; ');
          process.stderr.write(`${opts.in}:${lineNumber}: ${problems}\n`);
          continue;
        }
        const { id, output, options } = parsed.data;
        const extraction = extractAnswer(output, options, { strict: opts.strict === true });
        byRule.set(extraction.rule, (byRule.get(extraction.rule) ?? 0) + 1);
        lines.push(JSON.stringify({ id, letter: extraction.letter, rule: extraction.rule }));
      }
      const body = lines.length > 0 ? `${lines.join('\n')}\n` : '';
      if (opts.out) await writeTextAtomically(opts.out, body);
      else process.stdout.write(body);
      const summary = [...byRule.entries()].sort((a, b) => b[1] - a[1]).map(([rule, n]) => `${rule} ${n}`).join(', ');
      process.stderr.write(`extracted ${lines.length} line(s)${bad ? `, ${bad} bad line(s) skipped` : ''}: ${summary || 'nothing'}\n`);
      process.exitCode = bad > 0 ? EXIT.findings : EXIT.ok;
    });
}
