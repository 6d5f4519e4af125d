import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import type { Extraction, JudgeItem } from '../../core/extraction.js';
import { CxrError, EXIT } from '../../core/errors.js';
import { extractAnswer } from '../../extract/extract.js';
import { ExtractInputLine } from '../../extract/extract-input.js';
import { judgeWanted, withJudgeVerdict } from '../../extract/judge-verdict.js';
import { addJudgeOptions, judgeFromFlags, judgeStatsLine, type JudgeFlags } from '../judge-options.js';
import { checkTextFile } from '../read-text-file.js';
import { writeTextAtomically } from '../write-output.js';

interface ExtractFlags extends JudgeFlags {
  in: string;
  out?: string;
  strict?: boolean;
  judgeJournal?: string;
}

/** `cxrbench extract --in <file.jsonl>`: re-extract answers from other tools' outputs with the cxrbench reader. */
export function registerExtract(program: Command): void {
  const command = program
    .command('extract')
    .description('read lines {id, output, options?, question?} and write lines {id, letter, rule} (letter null when no single answer can be read)')
    .requiredOption('--in <file>', 'JSONL input, one {id, output, options?, question?} per line')
    .option('--out <file>', 'write here (atomically) instead of standard output')
    .option('--strict', 'JSON and <answer> tags only')
    .option('--judge-journal <file>', "where the judge's replies are kept, so a rerun asks nothing twice (default <out or in>.judge.jsonl)");
  addJudgeOptions(command).action(async (opts: ExtractFlags) => {
    // Every line's result is held until the end: the input is a file of bounded size, never a device or pipe.
    checkTextFile(opts.in, '--in');
    let input;
    try {
      input = createReadStream(opts.in);
      await new Promise((resolve, reject) => input!.once('open', resolve).once('error', reject));
    } catch {
      throw new CxrError('unreadable-file', `${opts.in}: cannot read the file`);
    }
    const judge = await judgeFromFlags(opts, opts.judgeJournal ?? `${opts.out ?? opts.in}.judge.jsonl`);
    const read: { id: string; extraction: Extraction; item: JudgeItem | null }[] = [];
    const ids = new Set<string>();
    let bad = 0;
    let lineNumber = 0;
    for await (const raw of createInterface({ input, crlfDelay: Infinity })) {
      lineNumber++;
      const text = lineNumber === 1 ? raw.replace(/^\uFEFF/, '') : raw;
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
      const { id, output, options, question } = parsed.data;
      if (ids.has(id)) {
        bad++;
        process.stderr.write(`${opts.in}:${lineNumber}: field id: "${id}" appears twice; this line is skipped\n`);
        continue;
      }
      ids.add(id);
      const extraction = extractAnswer(output, options, { strict: opts.strict === true });
      const item = judge && output !== null && judgeWanted(extraction) ? { id, output, options: options ?? [], ...(question ? { question } : {}) } : null;
      read.push({ id, extraction, item });
    }
    const verdicts = judge ? await judge.decide(read.flatMap((r) => (r.item ? [r.item] : []))) : new Map();
    const byRule = new Map<string, number>();
    const lines = read.map(({ id, extraction }) => {
      const final = judge ? withJudgeVerdict(extraction, verdicts.get(id), judge.model) : extraction;
      byRule.set(final.rule, (byRule.get(final.rule) ?? 0) + 1);
      return JSON.stringify({ id, letter: final.letter, rule: final.rule, ...(final.judge ? { judge: final.judge } : {}) });
    });
    const body = lines.length > 0 ? `${lines.join('\n')}\n` : '';
    if (opts.out) await writeTextAtomically(opts.out, body);
    else process.stdout.write(body);
    const summary = [...byRule.entries()].sort((a, b) => b[1] - a[1]).map(([rule, n]) => `${rule} ${n}`).join(', ');
    process.stderr.write(`extracted ${lines.length} line(s)${bad ? `, ${bad} bad line(s) skipped` : ''}: ${summary || 'nothing'}\n`);
    if (judge) process.stderr.write(judgeStatsLine(judge));
    process.exitCode = bad > 0 ? EXIT.findings : EXIT.ok;
  });
}
