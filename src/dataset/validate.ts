import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { issue, ISSUE_KINDS, type DatasetIssue, type IssueCode } from '../core/dataset-issue.js';
import type { Question } from '../core/question.js';
import { REPAIR_EXAMPLES, type RepairSummary, type ValidationReport } from '../core/validation-report.js';
import type { DatasetLayout, QuestionFile } from './layout.js';
import { readQuestionFile } from './read-dataset.js';
import { countUsable, UsabilityTracker, type UsableCounts } from './usable.js';

export { resolveImagePath } from './image-path.js';

/** Options of {@link validateDataset}. */
export interface ValidateOptions {
  /**
   * Check that every image file exists. `'default'` resolves image paths against the folder of the file that
   * lists them (the official `metadata/` folder); a folder path resolves them against that folder instead,
   * after dropping leading `../` (so `--images /data/rexgradient` finds `/data/rexgradient/deid_png/…`).
   * Undefined: images are not checked.
   */
  images?: 'default' | string;
}

/**
 * Validates a whole dataset: the paper's structural validators v1–v4 on every record, and the integrity
 * checks a benchmark host needs across records and splits (repeated keys, study leakage between splits,
 * questions repeated across splits, missing image files). Reports every problem; never stops at the first.
 *
 * Memory stays bounded at full scale: files are streamed, and question fingerprints are kept for every
 * file except the largest, which is read last and only compared against the others.
 */
export async function validateDataset(layout: DatasetLayout, options: ValidateOptions = {}): Promise<ValidationReport> {
  const tracker = new UsabilityTracker(options.images);
  const state = new ValidationState(layout, tracker);
  const bySize = [...layout.files].sort((a, b) => sizeOf(a) - sizeOf(b));
  for (const [index, file] of bySize.entries()) {
    const keepFingerprints = index < bySize.length - 1;
    for await (const event of readQuestionFile(file)) {
      if (event.kind === 'file-issue') {
        state.add(event.issue);
        continue;
      }
      tracker.observe(event);
      state.records++;
      for (const found of event.issues) state.add(found);
      if (event.question) state.checkQuestion(event.question, file, keepFingerprints);
    }
  }
  // Repeated keys and studies in two splits also make records read before them unusable: count again.
  const usable = tracker.needsSecondPass ? await countUsable(layout, tracker) : state.usableSoFar(layout);
  return state.report(layout, usable);
}

function sizeOf(file: QuestionFile): number {
  try {
    return statSync(file.path).size;
  } catch {
    return 0;
  }
}

class ValidationState {
  records = 0;
  private readonly errors: DatasetIssue[] = [];
  private readonly warnings: DatasetIssue[] = [];
  private readonly repairs = new Map<string, RepairSummary>();
  private readonly byCode: Partial<Record<IssueCode, number>> = {};
  private readonly usableByTask: Record<string, Record<string, number>> = {};
  private readonly studyFirstSeen = new Map<string, { split: string; key: string; file: string }>();
  private readonly leakReported = new Set<string>();
  private readonly fingerprints = new Map<string, { split: string; key: string }>();
  private readonly reportedImages = new Set<string>();

  private readonly fileOrder: Map<string, number>;

  constructor(
    layout: DatasetLayout,
    private readonly tracker: UsabilityTracker,
  ) {
    this.fileOrder = new Map(layout.files.map((f, i) => [f.path, i]));
  }

  add(found: DatasetIssue): void {
    this.byCode[found.code] = (this.byCode[found.code] ?? 0) + 1;
    if (found.severity === 'error') this.errors.push(found);
    else if (found.severity === 'warning') this.warnings.push(found);
    else this.addRepair(found);
  }

  private addRepair(found: DatasetIssue): void {
    const id = `${found.code}\u0000${found.field ?? ''}`;
    let summary = this.repairs.get(id);
    if (!summary) {
      const where = found.field ? ` (${found.field})` : '';
      summary = { code: found.code, field: found.field, count: 0, examples: [], message: `${ISSUE_KINDS[found.code].hint}${where}` };
      this.repairs.set(id, summary);
    }
    summary.count++;
    const last = summary.examples.at(-1);
    const sameRecord = last !== undefined && last.file === found.file && last.key === found.key;
    if (!sameRecord && summary.examples.length < REPAIR_EXAMPLES) summary.examples.push({ file: found.file, key: found.key });
  }

  checkQuestion(question: Question, file: QuestionFile, keepFingerprint: boolean): void {
    this.checkStudyLeak(question, file);
    this.checkRepeatedQuestion(question, file, keepFingerprint);
    this.checkImages(question, file);
    if (this.tracker.isUsable(question, file)) {
      const tasks = (this.usableByTask[file.split] ??= {});
      tasks[question.task] = (tasks[question.task] ?? 0) + 1;
    }
  }

  /** Usable counts as far as one pass can tell (exact when nothing needs a second pass). */
  usableSoFar(layout: DatasetLayout): UsableCounts {
    const byTask = Object.fromEntries(layout.files.map((f) => [f.split, this.usableByTask[f.split] ?? {}]));
    const bySplit = Object.fromEntries(Object.entries(byTask).map(([split, tasks]) => [split, Object.values(tasks).reduce((a, b) => a + b, 0)]));
    return { bySplit, byTask };
  }

  private checkStudyLeak(question: Question, file: QuestionFile): void {
    const first = this.studyFirstSeen.get(question.studyId);
    if (first === undefined) {
      this.studyFirstSeen.set(question.studyId, { split: question.split, key: question.id, file: file.path });
      return;
    }
    if (first.split === question.split) return;
    const pair = `${question.studyId}\u0000${[first.split, question.split].sort().join('\u0000')}`;
    if (this.leakReported.has(pair)) return;
    this.leakReported.add(pair);
    // Files are read smallest first; report the leak at the question of the split that comes later (test, not train).
    const here = { split: question.split, key: question.id, file: file.path };
    const [earlier, later] = (this.fileOrder.get(first.file) ?? 0) <= (this.fileOrder.get(file.path) ?? 0) ? [first, here] : [here, first];
    const message = `study ${question.studyId} has questions in ${earlier.split} (e.g. "${earlier.key}") and in ${later.split}`;
    this.add(issue('study-in-two-splits', later.file, later.key, 'study_id', message));
  }

  private checkRepeatedQuestion(question: Question, file: QuestionFile, keepFingerprint: boolean): void {
    const fold = (s: string) => s.trim().replace(/\s+/g, ' ').toLowerCase();
    const fingerprint = createHash('sha1').update([question.text, ...question.options].map(fold).join('\u0001')).digest('base64');
    const seen = this.fingerprints.get(fingerprint);
    if (seen && seen.split !== question.split) {
      const message = `same question text and options as ${seen.split} question "${seen.key}"`;
      this.add(issue('question-in-two-splits', file.path, question.id, 'question', message));
    } else if (!seen && keepFingerprint) {
      this.fingerprints.set(fingerprint, { split: question.split, key: question.id });
    }
  }

  private checkImages(question: Question, file: QuestionFile): void {
    for (const { path, absolute } of this.tracker.missingImages(question, file)) {
      if (this.reportedImages.has(absolute)) continue;
      this.reportedImages.add(absolute);
      this.add(issue('image-missing', file.path, question.id, 'ImagePath', `image "${path}" not found at ${absolute}`));
    }
  }

  report(layout: DatasetLayout, usable: UsableCounts): ValidationReport {
    // Files were read smallest first; list problems in the layout's split order, records in file order.
    const order = this.fileOrder;
    const inFileOrder = (a: DatasetIssue, b: DatasetIssue) => (order.get(a.file) ?? 0) - (order.get(b.file) ?? 0);
    this.errors.sort(inFileOrder);
    this.warnings.sort(inFileOrder);
    const repaired = [...this.repairs.values()].sort((a, b) => b.count - a.count || a.code.localeCompare(b.code));
    const questions = Object.values(usable.bySplit).reduce((a, b) => a + b, 0);
    return {
      errors: this.errors,
      warnings: this.warnings,
      repaired,
      counts: {
        files: layout.files.length,
        records: this.records,
        questions,
        excluded: this.records - questions,
        errors: this.errors.length,
        warnings: this.warnings.length,
        repaired: repaired.reduce((n, r) => n + r.count, 0),
        byCode: this.byCode,
        bySplit: usable.bySplit,
        byTask: usable.byTask,
      },
    };
  }
}
