import type { CorpusReport } from '../corpus/corpus-report.js';
import type { GeneratedQuestion } from './generated-question.js';
import { imageOnlySentences } from './minimum-necessary.js';

/**
 * A generated question as an official ReXVQA record (the fields every other command reads), with the report's
 * sections and the question's difficulty and generator kept as extra fields.
 */
/** The findings and impression sentences about the image alone (minimum necessary), as records carry them. */
export function reportImageOnly(report: CorpusReport): { findings: string | null; impression: string | null } {
  return { findings: imageOnlySentences(report.sections.findings), impression: imageOnlySentences(report.sections.impression) };
}

export function toGeneratedRecord(q: GeneratedQuestion, report: CorpusReport, imageOnly = reportImageOnly(report)): Record<string, unknown> {
  return {
    question: q.question,
    options: q.options.map((o, i) => `${'ABCD'[i]}. ${o}`),
    correct_answer: q.answer,
    correct_answer_explanation: q.explanation,
    task_name: q.task,
    category: q.category,
    subcategory: q.subcategory,
    study_id: q.reportId,
    ImagePath: q.images.map((i) => i.path),
    ImageViewPosition: q.images.map((i) => i.view),
    PatientID: q.patientId,
    // Optional official fields the corpus does not give (and the PHI rules would keep out): present, as null.
    PatientAge: null,
    PatientSex: null,
    StudyDate: null,
    StudyInstanceUid: null,
    ImageModality: null,
    class: null,
    validation_code: null,
    // Only the sentences about the image (minimum necessary): never who was called, by whom, or where. The
    // indication (history: names, ages, places) and the comparison (dates of prior studies) are left out.
    Indication: null,
    Comparison: null,
    Findings: imageOnly.findings,
    Impression: imageOnly.impression,
    difficulty: q.difficulty,
    generator: `${q.generator.name} ${q.generator.version}${q.generator.model ? ` (${q.generator.model})` : ''}`,
  };
}
