import { createInterface } from 'node:readline';
import { CxrError } from '../core/errors.js';
import { CorpusReport } from './corpus-report.js';
import { openForReading } from './read-sources.js';

/** Streams the reports of a corpus file written by `corpus import`; a malformed line is an error naming the file and line. */
export async function* readCorpus(file: string): AsyncGenerator<CorpusReport> {
  const stream = await openForReading(file, 'the corpus (make one with cxrbench corpus import)');
  let line = 0;
  for await (const text of createInterface({ input: stream, crlfDelay: Infinity })) {
    line++;
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new CxrError('unreadable-file', `${file} line ${line}: not JSON (${(error as Error).message}); corpus files are written by cxrbench corpus import`);
    }
    const parsed = CorpusReport.safeParse(value);
    if (!parsed.success) {
      const problem = parsed.error.issues[0]!;
      throw new CxrError('unreadable-file', `${file} line ${line}, field ${problem.path.join('.') || '(record)'}: ${problem.message}`);
    }
    yield parsed.data;
  }
}
