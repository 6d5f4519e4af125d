import { createReadStream, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { parse as parseCsv } from 'csv-parse';
import { CxrError } from '../core/errors.js';
import { readRexgradientStudies } from '../dataset/sources/rexgradient.js';
import { resolveColumns, type ColumnMap } from './column-map.js';
import { reportFromRecord, type RecordResult } from './report-from-record.js';

/** The corpus formats `corpus import` reads. */
export const CORPUS_FORMATS = ['rexgradient', 'csv', 'jsonl'] as const;
export type CorpusFormat = (typeof CORPUS_FORMATS)[number];

/** Reads a CSV of reports (header row; columns resolved from the map or the usual names), one result per row. */
/** Opens a file for reading, or throws a clear error naming it (a missing file, a folder, no permission). */
export async function openForReading(file: string, what: string): Promise<ReturnType<typeof createReadStream>> {
  let stats;
  try {
    stats = statSync(file);
  } catch (error) {
    throw new CxrError('unreadable-file', `${file}: cannot read ${what} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  if (stats.isDirectory()) throw new CxrError('unreadable-file', `${file}: cannot read ${what} (it is a folder, not a file)`);
  // A device or pipe never ends (or never opens): a corpus is a file.
  if (!stats.isFile()) throw new CxrError('unreadable-file', `${file}: cannot read ${what} (it is ${stats.isFIFO() ? 'a named pipe' : 'a device'}, not a regular file; save the data to a file)`);
  const stream = createReadStream(file);
  try {
    await new Promise<void>((resolve, reject) => stream.once('open', () => resolve()).once('error', reject));
  } catch (error) {
    throw new CxrError('unreadable-file', `${file}: cannot read ${what} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  return stream;
}

export async function* readCsvReports(file: string, map: ColumnMap): AsyncGenerator<RecordResult> {
  const stream = await openForReading(file, 'the reports');
  const rows = stream.pipe(parseCsv({ columns: (header: string[]) => header, bom: true, skip_empty_lines: true, relax_column_count: true, relax_quotes: true, max_record_size: 8 << 20 }));
  let columns: ColumnMap | null = null;
  let row = 1;
  try {
    for await (const record of rows as AsyncIterable<Record<string, string>>) {
      row++;
      columns ??= resolveColumns(Object.keys(record), map, file);
      yield reportFromRecord(record, columns, file, `row ${row}`);
    }
  } catch (error) {
    if (error instanceof CxrError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EISDIR' || code === 'EACCES') throw new CxrError('unreadable-file', `${file}: cannot read (${code})`);
    throw new CxrError('unreadable-file', `${file}: not a readable CSV after row ${row}: ${(error as Error).message}`);
  }
  if (columns === null) throw new CxrError('unreadable-file', `${file}: no rows (an empty CSV, or only a header)`);
}

/**
 * The refusal of a JSONL file none of whose records could give a report (as a CSV without a report column is
 * refused): which fields were expected and which keys its first object has.
 */
function noReportFields(file: string, map: ColumnMap, objects: number, firstKeys: string[] | null): CxrError {
  const expected = map.findings || map.impression ? `the keys --map names (${[map.findings && `findings=${map.findings}`, map.impression && `impression=${map.impression}`].filter(Boolean).join(', ')})` : 'a findings or impression key';
  if (objects === 0) return new CxrError('bad-option', `${file}: no JSON object on any line; expected one report per line, with ${expected}`);
  return new CxrError('bad-option', `${file}: none of its ${objects} record(s) has ${expected} (the first has ${firstKeys!.length ? `keys ${firstKeys!.slice(0, 20).join(', ')}${firstKeys!.length > 20 ? ', …' : ''}` : 'no keys'}); name the report's keys with --map findings=<key>,impression=<key>`);
}

/**
 * Reads JSONL reports (one object per line; keys resolved like CSV columns). A line that is not an object, or an
 * object without the report's keys, is rejected — but a file in which no object has them is refused whole.
 */
export async function* readJsonlReports(file: string, map: ColumnMap): AsyncGenerator<RecordResult> {
  const stream = await openForReading(file, 'the reports');
  let line = 0;
  let objects = 0;
  let withReportKeys = 0;
  let firstKeys: string[] | null = null;
  for await (const text of createInterface({ input: stream, crlfDelay: Infinity })) {
    line++;
    if (text.trim() === '') continue;
    const recordName = `line ${line}`;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      yield { rejection: { source: { file, record: recordName }, reason: `not JSON: ${(error as Error).message}` } };
      continue;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      yield { rejection: { source: { file, record: recordName }, reason: 'not a JSON object' } };
      continue;
    }
    const record = value as Record<string, unknown>;
    objects++;
    firstKeys ??= Object.keys(record);
    let columns: ColumnMap;
    try {
      columns = resolveColumns(Object.keys(record), map, `${file} ${recordName}`);
      withReportKeys++;
    } catch (error) {
      // One record without the mapped keys is that record's problem, not the file's.
      yield { rejection: { source: { file, record: recordName }, reason: (error as Error).message.replace(`${file} ${recordName}: `, '') } };
      continue;
    }
    yield reportFromRecord(record, columns, file, recordName);
  }
  if (withReportKeys === 0) throw noReportFields(file, map, objects, firstKeys);
}

/** Reads a ReXGradient-160K metadata folder through the dataset reader; records it cannot read are rejections. */
export async function* readRexgradientReports(dir: string): AsyncGenerator<RecordResult> {
  for await (const { study, issues } of readRexgradientStudies(dir)) {
    const first = issues[0];
    if (study === null) {
      yield { rejection: { source: { file: first?.file ?? dir, record: first?.key ?? '?' }, reason: issues.map((i) => i.message).join('; ') || 'unreadable record' } };
      continue;
    }
    const r = study.report;
    const record: Record<string, unknown> = { id: study.id, patient: study.patient.id, indication: r.indication, comparison: r.comparison, findings: r.findings, impression: r.impression, images: study.images.map((i) => i.path), views: study.images.map((i) => i.view ?? '') };
    const columns = { id: 'id', patient: 'patient', indication: 'indication', comparison: 'comparison', findings: 'findings', impression: 'impression', images: 'images', views: 'views' };
    yield reportFromRecord(record, columns, first?.file ?? dir, study.id);
  }
}

/** The reader for a format. */
export function readCorpusSource(path: string, format: CorpusFormat, map: ColumnMap): AsyncGenerator<RecordResult> {
  if (format === 'csv') return readCsvReports(path, map);
  if (format === 'jsonl') return readJsonlReports(path, map);
  return readRexgradientReports(path);
}
