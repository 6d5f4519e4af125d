import { issue, type DatasetIssue } from '../core/dataset-issue.js';
import type { Question } from '../core/question.js';
import type { DatasetLayout, QuestionFile } from './layout.js';
import { normalizeRecord } from './normalize.js';
import { readJsonl } from './sources/jsonl.js';
import { JsonStructureError, readRexvqaJson } from './sources/rexvqa-json.js';
import type { SourceRecord } from './sources/source-record.js';

/** What reading a dataset produces, in file order: each record with its question (or null) and issues, and file-level issues. */
export type DatasetEvent =
  | { kind: 'record'; file: QuestionFile; source: SourceRecord; question: Question | null; issues: DatasetIssue[] }
  | { kind: 'file-issue'; file: QuestionFile; issue: DatasetIssue };

function recordsOf(file: QuestionFile): AsyncGenerator<SourceRecord> {
  return file.format === 'jsonl' ? readJsonl(file.path, file.split) : readRexvqaJson(file.path, file.split);
}

/**
 * Streams one question file: parses, repairs and checks each record, and rejects repeated keys (JSON
 * parsers silently keep only the last; we keep the first and report the rest). Never throws for bad
 * content: a broken file structure or an unreadable file becomes a `file-issue` event.
 */
export async function* readQuestionFile(file: QuestionFile): AsyncGenerator<DatasetEvent> {
  const seenKeys = new Set<string>();
  let records = 0;
  try {
    for await (const source of recordsOf(file)) {
      records++;
      if (source.syntaxError !== undefined) {
        const problem = issue('json-syntax', file.path, source.key, null, `record is not valid JSON: ${source.syntaxError}`);
        yield { kind: 'record', file, source, question: null, issues: [problem] };
        continue;
      }
      if (source.keyMissing) {
        const problem = issue('missing-field', file.path, source.key, 'id', `line ${source.line} has no "id" (the question key); the record is left out`);
        yield { kind: 'record', file, source, question: null, issues: [problem] };
        continue;
      }
      if (seenKeys.has(source.key)) {
        const problem = issue('duplicate-key', file.path, source.key, null, `key "${source.key}" appears again at line ${source.line}; the first record with this key is kept, this one is left out`);
        yield { kind: 'record', file, source, question: null, issues: [problem] };
        continue;
      }
      seenKeys.add(source.key);
      const { question, issues } = normalizeRecord(source.value, { file: file.path, key: source.key, split: file.split });
      yield { kind: 'record', file, source, question, issues };
    }
    if (records === 0) yield { kind: 'file-issue', file, issue: issue('file-empty', file.path, null, null, 'the file holds no question') };
  } catch (error) {
    if (error instanceof JsonStructureError) {
      const where = `line ${error.line}, column ${error.column} (byte ${error.byteOffset})`;
      const message = `${error.reason} at ${where}; ${records} record(s) before it were read`;
      yield { kind: 'file-issue', file, issue: issue('json-syntax', file.path, null, null, message) };
    } else if (isFsError(error)) {
      yield { kind: 'file-issue', file, issue: issue('file-unreadable', file.path, null, null, `cannot read the file: ${error.code} ${error.message}`) };
    } else throw error;
  }
}

function isFsError(error: unknown): error is NodeJS.ErrnoException & { code: string } {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string';
}

/** Streams every file of a dataset in split order. */
export async function* readDataset(layout: DatasetLayout): AsyncGenerator<DatasetEvent> {
  for (const file of layout.files) yield* readQuestionFile(file);
}

/** Streams the usable questions of a dataset (records with errors are skipped: run `validateDataset` to see them). */
export async function* readQuestions(layout: DatasetLayout, splits?: readonly string[]): AsyncGenerator<Question> {
  for (const file of layout.files) {
    if (splits && !splits.includes(file.split)) continue;
    for await (const event of readQuestionFile(file)) if (event.kind === 'record' && event.question) yield event.question;
  }
}
