import { optionalText } from '../dataset/study.js';
import type { ColumnMap } from './column-map.js';
import { MAX_REPORT_CHARS, SECTION_NAMES, type CorpusRejection, type CorpusReport } from './corpus-report.js';

/** A source record made into a report, or the reason it could not be. */
export type RecordResult = { report: CorpusReport } | { rejection: CorpusRejection };

function listValue(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string' && v.trim() !== '');
  const text = optionalText(value);
  if (text === null) return [];
  if (text.trim().startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(text.replace(/'/g, '"'));
      if (Array.isArray(parsed)) return listValue(parsed);
    } catch {
      // not a JSON list: read it as a separated list below
    }
  }
  return text.split(/[;|]/).map((s) => s.trim()).filter((s) => s !== '');
}

/**
 * Normalises one source record (a CSV row or a JSON object) with resolved columns. Empty, "None" and "NaN"
 * sections are null; a record with no report text, with bytes that were not UTF-8, or longer than
 * {@link MAX_REPORT_CHARS} is rejected with that reason.
 */
export function reportFromRecord(record: Record<string, unknown>, columns: ColumnMap, file: string, recordName: string): RecordResult {
  const source = { file, record: recordName };
  const take = (field: keyof ColumnMap) => (columns[field] === undefined ? undefined : record[columns[field]!]);
  const sections = Object.fromEntries(SECTION_NAMES.map((name) => [name, optionalText(take(name))?.trim() ?? null])) as CorpusReport['sections'];
  for (const name of SECTION_NAMES) if (sections[name] !== null && /^(?:none\.?|nan|null|n\/a)$/i.test(sections[name]!)) sections[name] = null;
  const text = SECTION_NAMES.map((name) => sections[name] ?? '').join('');
  if (sections.findings === null && sections.impression === null) return { rejection: { source, reason: 'no report text: findings and impression are empty, None or NaN' } };
  if (text.includes('\uFFFD')) return { rejection: { source, reason: 'the report has bytes that are not UTF-8 (read as U+FFFD); re-encode the file as UTF-8' } };
  if (text.length > MAX_REPORT_CHARS) return { rejection: { source, reason: `the report is ${text.length.toLocaleString('en')} characters long (limit ${MAX_REPORT_CHARS.toLocaleString('en')}): not a single report` } };
  const id = optionalText(take('id'))?.trim() || recordName;
  const paths = listValue(take('images'));
  const views = listValue(take('views'));
  return {
    report: {
      id,
      patientId: optionalText(take('patient'))?.trim() ?? null,
      sections,
      images: paths.map((path, i) => ({ path, view: views[i] ?? null })),
      source,
    },
  };
}
