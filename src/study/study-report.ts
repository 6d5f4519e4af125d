import type { Store } from '../store/connect.js';
import { caseTimes, studyAnswers, studyModels } from '../store/study-answers.js';
import { studyReaders, type StudyReader } from '../store/study-readers.js';
import { studyItems, type Study, type StudyItem } from '../store/studies.js';
import { entryAnswers } from './model-answers.js';
import { studyResults, timeSummary, type Rater, type StudyResults } from './results.js';

/** Everything the host's results page and the exports show. */
export interface StudyReport {
  items: StudyItem[];
  readers: (StudyReader & { answered: number; time: ReturnType<typeof timeSummary> })[];
  raters: Rater[];
  results: StudyResults;
}

/**
 * Readers (current answers; revoked readers left out) and models (runs added to the study, and the verified
 * entries of its benchmark) on the study's items, with accuracy, agreement and time per case.
 */
export async function studyReport(store: Store, study: Study): Promise<StudyReport> {
  const items = await studyItems(store, study.id);
  const idAt = new Map(items.map((i) => [i.position, i.question_id]));
  const [readers, answers, times, models, entries] = await Promise.all([
    studyReaders(store, study.id), studyAnswers(store, study.id), caseTimes(store, study.id), studyModels(store, study.id),
    study.benchmark_id ? entryAnswers(store, study.benchmark_id, items) : Promise.resolve([]),
  ]);
  const active = readers.filter((r) => !r.revoked_at);
  const readerRaters: Rater[] = active.map((r) => ({ name: r.name, kind: 'reader', answers: new Map(answers.filter((a) => a.reader_id === r.id).map((a) => [idAt.get(a.position)!, a.answer])) }));
  const modelRaters: Rater[] = [...models, ...entries.filter((e) => !models.some((m) => m.name === e.name))]
    .map((m) => ({ name: m.name, kind: 'model', answers: m.answers instanceof Map ? m.answers : new Map(Object.entries(m.answers)) }));
  const raters = [...readerRaters, ...modelRaters];
  return {
    items,
    readers: readers.map((r) => ({ ...r, answered: answers.filter((a) => a.reader_id === r.id).length, time: timeSummary(times.get(r.id)) })),
    raters,
    results: studyResults(items.map((i) => ({ questionId: i.question_id, task: i.task, gold: i.gold })), raters),
  };
}

/** A rater's answers as the `{id, answer}` lines `cxrbench agreement` reads (unanswered: answer null). */
export function answerFileLines(items: readonly StudyItem[], rater: Rater): string {
  return items.map((i) => JSON.stringify({ id: i.question_id, answer: rater.answers.get(i.question_id) ?? null })).join('\n') + '\n';
}

/** The study's answer key `{id, answer, task}` (for the host only: it holds the gold). */
export function answerKeyLines(items: readonly StudyItem[]): string {
  return items.map((i) => JSON.stringify({ id: i.question_id, answer: i.gold, task: i.task })).join('\n') + '\n';
}

/** A file name for a rater's export: lowercase letters, digits and dashes. */
export function exportName(rater: Pick<Rater, 'name' | 'kind'>): string {
  return `${rater.kind}-${rater.name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'unnamed'}.jsonl`;
}
