/**
 * The catalogue of dataset problems: every validator rule and every repair has a stable code,
 * a severity and a hint that tells the user what to do. Codes are part of the public JSON output.
 */

/** error: the record or file is unusable or the benchmark is unsound; warning: usable but suspicious; repaired: fixed on read and counted. */
export type Severity = 'error' | 'warning' | 'repaired';

/** One problem found in a dataset, located by file, question key and field. */
export interface DatasetIssue {
  severity: Severity;
  code: IssueCode;
  /** Path of the file, as given on the command line (relative paths stay relative). */
  file: string;
  /** The question key (or study key), or null for a file-level problem. */
  key: string | null;
  /** The record field concerned, or null when the problem is not about one field. */
  field: string | null;
  message: string;
}

interface IssueKind {
  severity: Severity;
  /** Which paper validator it belongs to (v1 schema … v4 completeness), or the integrity checks. */
  group: 'v1-schema' | 'v2-types' | 'v3-format' | 'v4-completeness' | 'integrity' | 'repair' | 'file';
  hint: string;
}

/** Every issue code with its severity, validator group and what to do about it. */
export const ISSUE_KINDS = {
  // file-level
  'json-syntax': { severity: 'error', group: 'file', hint: 'fix the JSON at the given line and column; records after it in this file were not read' },
  'file-unreadable': { severity: 'error', group: 'file', hint: 'check that the file exists and is readable' },
  'file-empty': { severity: 'warning', group: 'file', hint: 'the file holds no question; remove it or fill it' },
  // v1 schema
  'record-not-object': { severity: 'error', group: 'v1-schema', hint: 'each value of the top-level object must be a JSON object (one question record)' },
  'missing-field': { severity: 'error', group: 'v1-schema', hint: 'add the required field to the record' },
  // v2 data types
  'wrong-type': { severity: 'error', group: 'v2-types', hint: 'give the field the documented type' },
  // v3 format
  'option-count': { severity: 'error', group: 'v3-format', hint: 'give exactly four options, A to D' },
  'option-empty': { severity: 'error', group: 'v3-format', hint: 'every option needs text after its letter' },
  'option-letter-order': { severity: 'error', group: 'v3-format', hint: 'options must be prefixed A, B, C, D in that order' },
  'duplicate-options': { severity: 'error', group: 'v3-format', hint: 'two options have the same text; make them distinct' },
  'answer-invalid': { severity: 'error', group: 'v3-format', hint: 'correct_answer must be one letter A, B, C or D' },
  'explanation-short': { severity: 'warning', group: 'v3-format', hint: 'an explanation under 20 characters rarely explains; write a sentence' },
  'view-count-mismatch': { severity: 'warning', group: 'v3-format', hint: 'ImageViewPosition should have one entry per ImagePath entry' },
  // v4 completeness
  'empty-question': { severity: 'error', group: 'v4-completeness', hint: 'the question text is empty' },
  'empty-field': { severity: 'error', group: 'v4-completeness', hint: 'the required field is empty' },
  'missing-explanation': { severity: 'warning', group: 'v4-completeness', hint: 'add correct_answer_explanation (the paper requires one per question)' },
  // integrity checks for a benchmark host
  'duplicate-key': { severity: 'error', group: 'integrity', hint: 'the same question key appears twice in one file; JSON parsers keep only the last, so one question is silently lost' },
  'unknown-task': { severity: 'warning', group: 'integrity', hint: 'not one of the five ReXVQA task names; it will be scored as its own task' },
  'missing-category': { severity: 'warning', group: 'integrity', hint: 'add a category so per-category results include this question' },
  'missing-subcategory': { severity: 'warning', group: 'integrity', hint: 'add a subcategory so per-subcategory results include this question' },
  'image-missing': { severity: 'error', group: 'integrity', hint: 'the image file does not exist under the image root; check --images' },
  'study-in-two-splits': { severity: 'error', group: 'integrity', hint: 'a study in two splits leaks test images into training; move all its questions to one split' },
  'question-in-two-splits': { severity: 'warning', group: 'integrity', hint: 'the same question text and options appear in two splits' },
  // repairs (made on read, counted, never silent)
  'nan-literal': { severity: 'repaired', group: 'repair', hint: 'bare NaN/Infinity (not valid JSON) read as null' },
  'python-none-literal': { severity: 'repaired', group: 'repair', hint: 'bare None (not valid JSON) read as null' },
  'none-string': { severity: 'repaired', group: 'repair', hint: 'the string "None" read as null' },
  'stringified-list': { severity: 'repaired', group: 'repair', hint: 'a list given as a JSON- or Python-quoted string was parsed into a list' },
  'option-prefix': { severity: 'repaired', group: 'repair', hint: 'option prefix written "A) " / "A - " / "(A) " normalised to "A. "' },
  'option-prefix-missing': { severity: 'repaired', group: 'repair', hint: 'option without a letter prefix: its position gives its letter' },
  'answer-lowercase': { severity: 'repaired', group: 'repair', hint: 'lowercase answer letter upper-cased' },
  'answer-format': { severity: 'repaired', group: 'repair', hint: 'answer given as "B." / "(B)" / "B. text": the letter was kept' },
  'task-name-case': { severity: 'repaired', group: 'repair', hint: 'task name matched a known task except for case or spacing' },
  'number-as-string': { severity: 'repaired', group: 'repair', hint: 'a number where a string was expected was converted to a string' },
  'path-leading-slash': { severity: 'repaired', group: 'repair', hint: 'leading "/" stripped from an image path (paths are relative to the metadata folder)' },
  'optional-field-missing': { severity: 'repaired', group: 'repair', hint: 'an optional field is absent; read as null' },
} as const satisfies Record<string, IssueKind>;

/** A stable issue code. */
export type IssueCode = keyof typeof ISSUE_KINDS;

/** Builds an issue with the catalogue's severity for `code`. */
export function issue(code: IssueCode, file: string, key: string | null, field: string | null, message: string): DatasetIssue {
  return { severity: ISSUE_KINDS[code].severity, code, file, key, field, message };
}
