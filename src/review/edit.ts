import { LETTERS } from '../core/question.js';
import { toOfficialRecord } from '../core/official-record.js';
import { normalizeRecord } from '../dataset/normalize.js';

/** What a reviewer may change in a question: the text, the four options, the answer and the explanation. */
export interface QuestionEdit {
  question: string;
  options: readonly string[];
  answer: string;
  explanation: string;
}

/** A refusal of one field, in words for the reviewer; `field` is the form field it belongs to. */
export interface Problem {
  field: string;
  message: string;
}

/** Warnings of the loader that an edit must not introduce: the reviewer writes the explanation, so it must explain. */
const REFUSED_WARNINGS = new Set(['missing-explanation', 'explanation-short']);

const FIELD_OF: Record<string, string> = { question: 'edit_question', options: 'edit_options', correct_answer: 'edit_answer', correct_answer_explanation: 'edit_explanation' };

/** The question, options, answer and explanation of a record as a reviewer sees them (option texts without their letters). */
export function editableText(record: Record<string, unknown>): QuestionEdit {
  const options = Array.isArray(record.options) ? record.options.map((o, i) => String(o).replace(new RegExp(`^\\s*\\(?${LETTERS[i] ?? '?'}[.):]\\s*`), '')) : [];
  return {
    question: String(record.question ?? ''),
    options,
    answer: String(record.correct_answer ?? ''),
    explanation: typeof record.correct_answer_explanation === 'string' ? record.correct_answer_explanation : '',
  };
}

/**
 * Applies a reviewer's edit to a record and checks the result with the dataset loader's own rules
 * (normalizeRecord: a non-empty question, four non-empty distinct options, an answer A–D, …) plus an explanation
 * of at least a sentence. Returns the edited record in the official form, or every reason it was refused.
 */
export function applyEdit(original: Record<string, unknown>, edit: QuestionEdit, where: { key: string; split: string }): { record: Record<string, unknown> } | { problems: Problem[] } {
  const letters = 'ABCDEFGHIJ';
  const edited: Record<string, unknown> = {
    ...structuredClone(original),
    question: edit.question.trim(),
    // Letters come from the position; a reviewer who typed one in front of the text does not get it twice.
    options: edit.options.map((text, i) => `${letters[i] ?? '?'}. ${text.trim().replace(new RegExp(`^${letters[i] ?? '?'}[.)]\\s+`), '')}`),
    correct_answer: edit.answer.trim(),
    correct_answer_explanation: edit.explanation.trim(),
  };
  const { question, issues } = normalizeRecord(edited, { file: 'the edited question', key: where.key, split: where.split });
  const problems = issues
    .filter((i) => i.severity === 'error' || REFUSED_WARNINGS.has(i.code))
    .map((i) => ({ field: FIELD_OF[i.field ?? ''] ?? 'edit_question', message: i.message }));
  if (problems.length > 0 || !question) return { problems: problems.length > 0 ? problems : [{ field: 'edit_question', message: 'the edited question could not be read' }] };
  const record = toOfficialRecord(question);
  const before = editableText(original);
  const after = editableText(record);
  if (JSON.stringify(before) === JSON.stringify(after)) return { problems: [{ field: 'decision', message: 'the edit changes nothing: choose Accept, or change the text' }] };
  return { record };
}
