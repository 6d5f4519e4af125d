import { createReadStream, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseCsv } from 'csv-parse';
import { z } from 'zod';
import { issue, type DatasetIssue } from '../../core/dataset-issue.js';
import type { ImageRef, Study } from '../../core/question.js';
import { CxrError } from '../../core/errors.js';
import { NAN_SENTINEL, NONE_SENTINEL } from '../bare-words.js';
import { cleanImagePath, readListValue, type ReportIssue } from '../fields.js';
import { optionalText, reportSections } from '../study.js';
import { JsonStructureError, streamObjectMembers } from './json-object-stream.js';
import { parseRecordText } from './parse-record-text.js';

/**
 * ReXGradient-160K study metadata (the source reports of ReXVQA): per split a
 * `<split>_metadata_view_position.json` object keyed `p<PatientID>_a<Accession>_s<StudyUID>`, and per-split CSVs
 * with the same columns. Each record becomes a {@link Study} with its report sections and image views.
 */

const scalar = z.union([z.string(), z.number(), z.null()]).optional();
const listOrString = z.union([z.array(z.union([z.string(), z.null()])), z.string(), z.null()]).optional();

/** The fields of a ReXGradient study record; all optional, since real files leave many out. */
export const RexgradientStudyRecord = z.looseObject({
  PatientID: scalar,
  AccessionNumber: scalar,
  StudyInstanceUid: scalar,
  StudyDate: scalar,
  PatientAge: scalar,
  PatientSex: scalar,
  Indication: scalar,
  Comparison: scalar,
  Findings: scalar,
  Impression: scalar,
  ImagePath: listOrString,
  ImageViewPosition: listOrString,
});

/** One study read from a source file, or the problems that kept it out. */
export interface StudyRead {
  study: Study | null;
  issues: DatasetIssue[];
}

/** The key ReXGradient uses for a study. */
export function rexgradientStudyKey(patientId: string, accession: string, studyUid: string): string {
  return `p${patientId}_a${accession}_s${studyUid}`;
}

/** Normalises one ReXGradient study record (from JSON or CSV). */
export function studyFromRexgradientRecord(raw: unknown, key: string, split: string, file: string): StudyRead {
  const issues: DatasetIssue[] = [];
  const parsed = RexgradientStudyRecord.safeParse(raw);
  if (!parsed.success) {
    for (const problem of parsed.error.issues) {
      const field = problem.path.map(String).join('.') || null;
      issues.push(issue(problem.path.length === 0 ? 'record-not-object' : 'wrong-type', file, key, field, problem.message));
    }
    return { study: null, issues };
  }
  const record: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(parsed.data)) {
    if (value === NAN_SENTINEL || value === NONE_SENTINEL) {
      issues.push(issue(value === NAN_SENTINEL ? 'nan-literal' : 'python-none-literal', file, key, field, `bare literal in ${field} read as null`));
      record[field] = null;
    } else if (value === 'None') {
      issues.push(issue('none-string', file, key, field, `"None" in ${field} read as null`));
      record[field] = null;
    } else record[field] = value;
  }
  const report: ReportIssue = (code, field, message) => issues.push(issue(code, file, key, field, message));
  const paths = readListValue(record.ImagePath ?? null, 'ImagePath', report) ?? [];
  const views = readListValue(record.ImageViewPosition ?? null, 'ImageViewPosition', report) ?? [];
  if (views.length > 0 && views.length !== paths.length) {
    report('view-count-mismatch', 'ImageViewPosition', `${paths.length} image path(s) but ${views.length} view position(s)`);
  }
  const images: ImageRef[] = [];
  for (const [i, path] of paths.entries()) {
    if (typeof path !== 'string' || path.trim() === '') continue;
    images.push({ path: cleanImagePath(path, report), view: optionalText(views[i]) });
  }
  const study: Study = {
    id: key,
    split,
    images,
    patient: { id: optionalText(record.PatientID), age: optionalText(record.PatientAge), sex: optionalText(record.PatientSex) },
    studyDate: optionalText(record.StudyDate),
    studyInstanceUid: optionalText(record.StudyInstanceUid),
    accessionNumber: optionalText(record.AccessionNumber),
    report: reportSections(record),
  };
  return { study, issues };
}

/** Streams the studies of a `<split>_metadata_view_position.json` (one object keyed by study). */
export async function* readRexgradientJson(file: string, split: string): AsyncGenerator<StudyRead> {
  try {
    for await (const member of streamObjectMembers(createReadStream(file, { highWaterMark: 1 << 20 }))) {
      const parsed = parseRecordText(member.text, member.hasBareWords);
      if (!parsed.ok) {
        yield { study: null, issues: [issue('json-syntax', file, member.key, null, `${parsed.message} (record at line ${member.line})`)] };
        continue;
      }
      yield studyFromRexgradientRecord(parsed.value, member.key, split, file);
    }
  } catch (error) {
    if (!(error instanceof JsonStructureError)) throw error;
    yield { study: null, issues: [issue('json-syntax', file, null, null, error.message)] };
  }
}

/**
 * Streams the studies of a ReXGradient CSV (one row per study, header row with the JSON field names). The study
 * key is taken from a `key`/`study_id` column when there is one, else built from PatientID, AccessionNumber and
 * StudyInstanceUid.
 */
export async function* readRexgradientCsv(file: string, split: string): AsyncGenerator<StudyRead> {
  const rows = createReadStream(file).pipe(parseCsv({ columns: true, bom: true, skip_empty_lines: true, relax_column_count: true }));
  let row = 1;
  for await (const record of rows as AsyncIterable<Record<string, string>>) {
    row++;
    const key =
      record.key || record.study_id || record.StudyKey ||
      (record.PatientID && record.AccessionNumber && record.StudyInstanceUid
        ? rexgradientStudyKey(record.PatientID, record.AccessionNumber, record.StudyInstanceUid)
        : `row ${row}`);
    const cleaned = Object.fromEntries(Object.entries(record).map(([k, v]) => [k, v === '' ? null : v]));
    yield studyFromRexgradientRecord(cleaned, key, split, file);
  }
}

const STUDY_JSON = /^(.+)_metadata_view_position\.json$/;
/** A per-split CSV is named after its split: `train.csv`, `train_metadata.csv`, … (the split is the name up to the first `_`). */
const STUDY_CSV = /^([^_.]+)[^/]*\.csv$/;

/**
 * Streams every study of a ReXGradient metadata folder: the `<split>_metadata_view_position.json` files, or,
 * when there are none, the per-split CSVs (`<split>…​.csv`).
 */
export async function* readRexgradientStudies(dir: string): AsyncGenerator<StudyRead> {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    throw new CxrError('path-not-found', `${dir}: no such folder. Expected a ReXGradient-160K metadata folder with <split>_metadata_view_position.json files.`);
  }
  const json = names.filter((n) => STUDY_JSON.test(n));
  const csv = names.filter((n) => n.endsWith('.csv'));
  if (json.length === 0 && csv.length === 0) {
    throw new CxrError('layout-unrecognised', `${dir}: expected <split>_metadata_view_position.json files or per-split CSVs; found: ${names.slice(0, 12).join(', ') || 'nothing'}`);
  }
  if (json.length > 0) {
    for (const name of json) yield* readRexgradientJson(join(dir, name), STUDY_JSON.exec(name)![1]!);
  } else {
    for (const name of csv) yield* readRexgradientCsv(join(dir, name), STUDY_CSV.exec(name)?.[1] ?? name);
  }
}
