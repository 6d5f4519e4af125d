/** The normalised benchmark item and the study it is asked about. Pure types, no I/O. */

/** An answer letter. ReXVQA items always have exactly four options. */
export type Letter = 'A' | 'B' | 'C' | 'D';

/** The four answer letters in option order. */
export const LETTERS: readonly Letter[] = ['A', 'B', 'C', 'D'];

/** The five ReXVQA reasoning tasks, spelled as the `task_name` values of the official files. */
export const TASK_NAMES = [
  'Presence Assessment',
  'Negation Assessment',
  'Differential Diagnosis',
  'Location and Distribution Assessment',
  'Geometric Information Assessment',
] as const;

/** One of the five known task names. Files may carry others: `Question.task` is an open string. */
export type TaskName = (typeof TASK_NAMES)[number];

/** True when `value` is one of the five known task names (exact spelling). */
export function isTaskName(value: string): value is TaskName {
  return (TASK_NAMES as readonly string[]).includes(value);
}

/**
 * Task names as every table, chart, CLI output and page lists them: the five in the paper's order (TASK_NAMES,
 * REFERENCE.md §1), then any others a file carries, alphabetically. Each name once.
 */
export function inPaperOrder(tasks: Iterable<string>): string[] {
  const present = new Set(tasks);
  return [...TASK_NAMES.filter((t) => present.has(t)), ...[...present].filter((t) => !isTaskName(t)).sort()];
}

/** One image of a study, as referenced by the dataset file. */
export interface ImageRef {
  /** The path exactly as the record gives it after repair (e.g. `../deid_png/…/x.png`), relative to the file's folder. */
  path: string;
  /** View position (`PA`, `AP`, `LATERAL`, …) or null when the record does not say. */
  view: string | null;
}

/** A normalised four-option question. */
export interface Question {
  /** The question key in its file (the key of the official JSON object, or `id` in JSONL). */
  id: string;
  /** The split it came from (`train`, `valid`, `test`, or a file's own name). */
  split: string;
  studyId: string;
  text: string;
  /** Option texts without their `A. ` prefixes, in letter order. */
  options: [string, string, string, string];
  answer: Letter;
  /** The `task_name` value; usually a {@link TaskName}, but kept open so unknown tasks are reported, not lost. */
  task: string;
  category: string | null;
  subcategory: string | null;
  explanation: string | null;
  images: ImageRef[];
  /** Every other field of the record (patient, report, DICOM ids, …) verbatim after repair, so writing is lossless. */
  meta: Record<string, unknown>;
}

/** The free-text sections of a radiology report; a missing section is null. */
export interface ReportSections {
  indication: string | null;
  comparison: string | null;
  findings: string | null;
  impression: string | null;
}

/** A chest X-ray study: its images, and when known its patient and report. */
export interface Study {
  id: string;
  split: string | null;
  images: ImageRef[];
  patient: { id: string | null; age: string | null; sex: string | null };
  studyDate: string | null;
  studyInstanceUid: string | null;
  accessionNumber: string | null;
  report: ReportSections;
}
