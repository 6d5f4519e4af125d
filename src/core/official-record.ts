import { LETTERS, type Question } from './question.js';

/**
 * Turns a question back into an official ReXVQA record: canonical `A. ` option prefixes, then every field
 * that was kept in `meta`. Fields the source lacked (category, explanation, view positions) stay absent.
 */
export function toOfficialRecord(question: Question): Record<string, unknown> {
  const record: Record<string, unknown> = {
    question: question.text,
    options: question.options.map((text, i) => `${LETTERS[i]}. ${text}`),
    correct_answer: question.answer,
  };
  if (question.explanation !== null) record.correct_answer_explanation = question.explanation;
  record.task_name = question.task;
  if (question.category !== null) record.category = question.category;
  if (question.subcategory !== null) record.subcategory = question.subcategory;
  record.study_id = question.studyId;
  record.ImagePath = question.images.map((image) => image.path);
  if (question.images.some((image) => image.view !== null)) record.ImageViewPosition = question.images.map((image) => image.view);
  return { ...record, ...question.meta };
}
