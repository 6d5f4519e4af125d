import { parse as parseCsv } from 'csv-parse/sync';

/**
 * One line of an answer file: a reader's answers, or the key of a reader study (`{id, answer, task?}`).
 * `answer` is the text as written (null or empty: unanswered); callers decide how to read it.
 */
export interface AnswerRecord {
  id: string;
  answer: string | null;
  task: string | null;
  /** Where the record is ("line 3", "row 4", "item 2"), for messages. */
  where: string;
}

/** Answer records and every problem found, each naming its line or row and field. */
export interface ParsedAnswerFile {
  records: AnswerRecord[];
  problems: string[];
}

/** Formats of an answer file: JSON Lines, a JSON array of objects, or CSV with a header `id,answer[,task]`. */
export type AnswerFileFormat = 'jsonl' | 'json' | 'csv';

/** The format a file name suggests (`.csv`, `.json`; anything else is JSON Lines). */
export function answerFormatOfFileName(name: string): AnswerFileFormat {
  const lower = name.toLowerCase();
  if (lower.endsWith('.csv')) return 'csv';
  if (lower.endsWith('.json')) return 'json';
  return 'jsonl';
}

function text(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

/**
 * Reads an answer file's text. Never throws: every problem (unparseable line, missing id, an answer that is
 * not text, a repeated id) is listed with its place. A byte-order mark and CRLF line ends are accepted.
 */
export function parseAnswerFile(content: string, format: AnswerFileFormat): ParsedAnswerFile {
  const records: AnswerRecord[] = [];
  const problems: string[] = [];
  const seen = new Set<string>();
  const body = content.replace(/^\uFEFF/, '');
  const add = (raw: unknown, where: string) => {
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
      problems.push(`${where}: expected an object {"id": …, "answer": …}`);
      return;
    }
    const r = raw as Record<string, unknown>;
    const id = text(r.id ?? r.question_id);
    if (id === null || id === '') {
      problems.push(`${where}: field "id" is missing or not text`);
      return;
    }
    const answerValue = r.answer ?? r.prediction ?? null;
    const answer = answerValue === null ? null : text(answerValue);
    if (answerValue !== null && answer === null) {
      problems.push(`${where}: field "answer" of "${id}" must be text (a letter) or null, found ${JSON.stringify(answerValue).slice(0, 40)}`);
      return;
    }
    const taskValue = r.task ?? r.task_name ?? null;
    if (taskValue !== null && typeof taskValue !== 'string') {
      problems.push(`${where}: field "task" of "${id}" must be text`);
      return;
    }
    if (seen.has(id)) {
      problems.push(`${where}: id "${id}" appears twice`);
      return;
    }
    seen.add(id);
    records.push({ id, answer: answer === null || answer.trim() === '' ? null : answer, task: taskValue === null || taskValue === '' ? null : taskValue, where });
  };

  if (format === 'csv') {
    let rows: Record<string, string>[];
    try {
      rows = parseCsv(body, { columns: (header: string[]) => header.map((h) => h.trim().toLowerCase()), skip_empty_lines: true, trim: true }) as Record<string, string>[];
    } catch (error) {
      return { records, problems: [`not a CSV file with a header row id,answer[,task] (${(error as Error).message})`] };
    }
    rows.forEach((row, i) => add({ ...row, answer: row.answer ?? row.prediction ?? null }, `row ${i + 2}`));
    return { records, problems };
  }
  if (format === 'json') {
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch (error) {
      return { records, problems: [`not JSON (${(error as Error).message}); expected an array of {"id", "answer", "task"?}`] };
    }
    if (!Array.isArray(value)) return { records, problems: ['expected a JSON array of {"id", "answer", "task"?} objects'] };
    value.forEach((item, i) => add(item, `item ${i + 1}`));
    return { records, problems };
  }
  body.split('\n').forEach((rawLine, i) => {
    const line = rawLine.replace(/\r$/, '');
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      problems.push(`line ${i + 1}: not JSON; expected {"id": …, "answer": "B"}`);
      return;
    }
    add(value, `line ${i + 1}`);
  });
  return { records, problems };
}
