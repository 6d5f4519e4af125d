import type { Letter, Question } from '../core/question.js';
import { toOfficialRecord } from '../core/official-record.js';

/** One item of a hidden test set, as the server keeps it: what scoring needs, and what participants may see. */
export interface HiddenItem {
  position: number;
  questionId: string;
  studyId: string;
  task: string;
  category: string;
  subcategory: string;
  gold: Letter;
  options: [string, string, string, string];
}

/**
 * Fields of the official record a participant may download: the question as asked. A list of what is allowed,
 * not of what is secret: the answer, its explanation, and any report text (which states the answer) stay out
 * even when a dataset carries fields this code does not know.
 */
export const PUBLIC_FIELDS = ['question', 'options', 'task_name', 'category', 'subcategory', 'study_id', 'ImagePath', 'ImageViewPosition'] as const;

/** The record a participant downloads. */
export function publicRecord(question: Question): Record<string, unknown> {
  const record = toOfficialRecord(question);
  const out: Record<string, unknown> = {};
  for (const field of PUBLIC_FIELDS) if (record[field] !== undefined) out[field] = record[field];
  return out;
}

export function hiddenItem(question: Question, position: number): HiddenItem {
  return {
    position,
    questionId: question.id,
    studyId: question.studyId,
    task: question.task,
    category: question.category ?? '(none)',
    subcategory: question.subcategory ?? '(none)',
    gold: question.answer,
    options: question.options,
  };
}
