import { existsSync } from 'node:fs';
import type { Question } from '../core/question.js';
import type { DatasetLayout, QuestionFile } from './layout.js';
import type { DatasetEvent } from './read-dataset.js';
import { readQuestionFile } from './read-dataset.js';
import { resolveImagePath } from './image-path.js';

/**
 * The one meaning of "usable" that `data validate`, `data stats` and every count of questions share: a record
 * is usable when it became a question with no error-severity problem, including the problems only visible
 * across records —
 * - a key repeated in one file: NEITHER copy is usable (nothing says which one was meant);
 * - a study with questions in two splits: ALL its questions, in every split, are unusable (the leak);
 * - when images are checked, a question with a missing image file.
 *
 * The first two are only known once every record has been read, so a count made in one streaming pass may
 * need a second pass over the files; `needsSecondPass` says when (never on a clean dataset).
 */
export class UsabilityTracker {
  private readonly duplicateKeys = new Map<string, Set<string>>();
  private readonly studySplit = new Map<string, string>();
  private readonly leakingStudies = new Set<string>();
  private readonly imageExists = new Map<string, boolean>();

  /** `images`: undefined (images not checked), `'default'` or an image root, as for `data validate --images`. */
  constructor(private readonly images?: 'default' | string) {}

  /** Records what one pass-1 event shows about other records (repeated keys, studies across splits). */
  observe(event: DatasetEvent): void {
    if (event.kind !== 'record') return;
    if (event.issues.some((i) => i.code === 'duplicate-key')) {
      let keys = this.duplicateKeys.get(event.file.path);
      if (!keys) this.duplicateKeys.set(event.file.path, (keys = new Set()));
      keys.add(event.source.key);
    }
    const q = event.question;
    if (!q) return;
    const first = this.studySplit.get(q.studyId);
    if (first === undefined) this.studySplit.set(q.studyId, q.split);
    else if (first !== q.split) this.leakingStudies.add(q.studyId);
  }

  /** True when some record seen so far may have been counted as usable before a later record showed it is not. */
  get needsSecondPass(): boolean {
    return this.duplicateKeys.size > 0 || this.leakingStudies.size > 0;
  }

  /** The images of a question that do not exist on disk (checked once per path); empty when images are not checked. */
  missingImages(question: Question, file: QuestionFile): { path: string; absolute: string }[] {
    if (this.images === undefined) return [];
    const missing: { path: string; absolute: string }[] = [];
    for (const image of question.images) {
      const absolute = resolveImagePath(image.path, file.baseDir, this.images);
      let exists = this.imageExists.get(absolute);
      if (exists === undefined) this.imageExists.set(absolute, (exists = existsSync(absolute)));
      if (!exists) missing.push({ path: image.path, absolute });
    }
    return missing;
  }

  /** Whether a question is usable given everything observed (final once every file has been observed). */
  isUsable(question: Question, file: QuestionFile): boolean {
    if (this.duplicateKeys.get(file.path)?.has(question.id)) return false;
    if (this.leakingStudies.has(question.studyId)) return false;
    return this.missingImages(question, file).length === 0;
  }
}

/** Usable questions per split and, within each, per task: the counts `data validate` and `data stats` both report. */
export interface UsableCounts {
  bySplit: Record<string, number>;
  byTask: Record<string, Record<string, number>>;
}

/** Counts usable questions per split and task with a tracker that has observed every record (pass 2 when needed). */
export async function countUsable(layout: DatasetLayout, tracker: UsabilityTracker): Promise<UsableCounts> {
  const bySplit: Record<string, number> = {};
  const byTask: Record<string, Record<string, number>> = {};
  for (const file of layout.files) {
    bySplit[file.split] ??= 0;
    const tasks = (byTask[file.split] ??= {});
    for await (const question of usableQuestionsOf(file, tracker)) {
      bySplit[file.split]!++;
      tasks[question.task] = (tasks[question.task] ?? 0) + 1;
    }
  }
  return { bySplit, byTask };
}

/** The usable questions of one file, by a tracker that has observed every record of the dataset. */
export async function* usableQuestionsOf(file: QuestionFile, tracker: UsabilityTracker): AsyncGenerator<Question> {
  for await (const event of readQuestionFile(file)) {
    if (event.kind === 'record' && event.question && tracker.isUsable(event.question, file)) yield event.question;
  }
}
