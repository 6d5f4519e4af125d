import type { DatasetIssue, IssueCode } from './dataset-issue.js';

/** A repair kind that happened, with how often, and the first few places it happened. */
export interface RepairSummary {
  code: IssueCode;
  field: string | null;
  count: number;
  /** Up to {@link REPAIR_EXAMPLES} places (file and key), so a user can look at one. */
  examples: { file: string; key: string | null }[];
  message: string;
}

/** How many example places each repair summary keeps: repairs can touch every record of a 573K file. */
export const REPAIR_EXAMPLES = 5;

/** Everything `data validate` found. Errors and warnings are listed one by one, every one; repairs are counted by kind. */
export interface ValidationReport {
  errors: DatasetIssue[];
  warnings: DatasetIssue[];
  repaired: RepairSummary[];
  counts: {
    files: number;
    /** Records read from the files (including unusable ones). */
    records: number;
    /**
     * Usable questions: records with no error-severity problem, counting the problems only visible across
     * records (neither copy of a repeated key, no question of a study in two splits, none with a missing image
     * when images are checked). `data stats` counts the same.
     */
    questions: number;
    /** Records left out because of an error (records − questions). */
    excluded: number;
    errors: number;
    warnings: number;
    repaired: number;
    /** Occurrences per issue code, over all severities. */
    byCode: Partial<Record<IssueCode, number>>;
    /** Usable questions per split. */
    bySplit: Record<string, number>;
    /** Usable questions per split and task. */
    byTask: Record<string, Record<string, number>>;
  };
}

/** True when the report has no error (warnings and repairs do not fail validation). */
export function isValid(report: ValidationReport): boolean {
  return report.errors.length === 0;
}
