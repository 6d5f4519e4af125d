import { CxrError } from '../core/errors.js';

/** The corpus fields a source column can fill. */
export const MAPPABLE_FIELDS = ['id', 'patient', 'indication', 'comparison', 'findings', 'impression', 'images', 'views'] as const;
export type MappableField = (typeof MAPPABLE_FIELDS)[number];
export type ColumnMap = Partial<Record<MappableField, string>>;

/** Column names tried, case-insensitively, for a field the user did not map. */
const DEFAULT_NAMES: Record<MappableField, string[]> = {
  id: ['id', 'uid', 'study_id', 'studyid', 'study', 'key', 'report_id'],
  patient: ['patient', 'patient_id', 'patientid', 'subject_id'],
  indication: ['indication', 'history', 'clinical_history', 'reason'],
  comparison: ['comparison', 'comparisons'],
  findings: ['findings', 'finding', 'report_findings'],
  impression: ['impression', 'impressions', 'conclusion'],
  images: ['images', 'image', 'imagepath', 'image_path', 'path', 'paths'],
  views: ['views', 'view', 'imageviewposition', 'view_position', 'projection'],
};

/** Parses `--map findings=col,impression=col,…`; an unknown field name is an error that lists the known ones. */
export function parseColumnMap(text: string | undefined): ColumnMap {
  const map: ColumnMap = {};
  if (!text) return map;
  for (const pair of text.split(',')) {
    const [field, column, ...rest] = pair.split('=');
    if (!field || column === undefined || column.trim() === '' || rest.length > 0) {
      throw new CxrError('bad-option', `--map ${text}: expected field=column pairs separated by commas (e.g. findings=FINDINGS,impression=IMPRESSION)`);
    }
    const name = field.trim().toLowerCase();
    if (!(MAPPABLE_FIELDS as readonly string[]).includes(name)) {
      throw new CxrError('bad-option', `--map: unknown field "${field.trim()}"; the fields are ${MAPPABLE_FIELDS.join(', ')}`);
    }
    if (map[name as MappableField] !== undefined) throw new CxrError('bad-option', `--map: ${name} is mapped twice (${map[name as MappableField]} and ${column.trim()})`);
    map[name as MappableField] = column.trim();
  }
  return map;
}

/**
 * Resolves which source column fills each field: the user's mapping (which must exist in the header) first, then
 * the usual names. Throws naming the file when a mapped column is missing or no report text column is found.
 */
export function resolveColumns(header: string[], map: ColumnMap, file: string): ColumnMap {
  const resolved: ColumnMap = {};
  const lower = new Map(header.map((h) => [h.trim().toLowerCase(), h]));
  for (const field of MAPPABLE_FIELDS) {
    const wanted = map[field];
    if (wanted !== undefined) {
      const found = header.includes(wanted) ? wanted : lower.get(wanted.toLowerCase());
      if (found === undefined) throw new CxrError('bad-option', `${file}: --map ${field}=${wanted}, but there is no column "${wanted}"; the columns are ${header.join(', ')}`);
      resolved[field] = found;
      continue;
    }
    const guess = DEFAULT_NAMES[field].map((n) => lower.get(n)).find((c) => c !== undefined);
    if (guess !== undefined) resolved[field] = guess;
  }
  if (!resolved.findings && !resolved.impression) {
    throw new CxrError('bad-option', `${file}: no findings or impression column (columns: ${header.join(', ')}); name them with --map findings=<column>,impression=<column>`);
  }
  return resolved;
}
