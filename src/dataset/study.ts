import type { ImageRef, Question, ReportSections, Study } from '../core/question.js';

/** Reads a report or patient field that may be missing, null, a number or the text "None"/"nan". */
export function optionalText(value: unknown): string | null {
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : null;
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return trimmed === '' || trimmed === 'None' || trimmed.toLowerCase() === 'nan' ? null : value;
}

/** The report sections of a record that uses the ReXGradient field names (Indication, Comparison, Findings, Impression). */
export function reportSections(record: Record<string, unknown>): ReportSections {
  return {
    indication: optionalText(record.Indication),
    comparison: optionalText(record.Comparison),
    findings: optionalText(record.Findings),
    impression: optionalText(record.Impression),
  };
}

/** Builds the study a question is asked about from the study fields every ReXVQA record repeats. */
export function studyFromQuestion(question: Question): Study {
  const meta = question.meta;
  return {
    id: question.studyId,
    split: question.split,
    images: question.images.map((image): ImageRef => ({ ...image })),
    patient: { id: optionalText(meta.PatientID), age: optionalText(meta.PatientAge), sex: optionalText(meta.PatientSex) },
    studyDate: optionalText(meta.StudyDate),
    studyInstanceUid: optionalText(meta.StudyInstanceUid),
    accessionNumber: optionalText(meta.AccessionNumber),
    report: reportSections(meta),
  };
}
