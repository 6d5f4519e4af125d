import type { Store } from '../store/connect.js';
import { caseTimes, studyAnswers, studyModels } from '../store/study-answers.js';
import { studyReaders, type StudyReader } from '../store/study-readers.js';
import { studyItems, type Study, type StudyItem } from '../store/studies.js';
import { entryAnswers } from './model-answers.js';
import { readerOrder } from './sample.js';
import { studyResults, timeSummary, type Rater, type StudyResults } from './results.js';

/**
 * A rater as the exports and per-reader tables show it: a reader's confidence (1–5, null: not given) and seconds on
 * each case, by question id, besides the answers; a model has neither.
 */
export interface ReportRater extends Rater {
  confidence?: ReadonlyMap<string, number | null>;
  seconds?: ReadonlyMap<string, number>;
  /** A reader's question ids in their own reading order: their case k is element k − 1 (what they call "case 7"). */
  readingOrder?: readonly string[];
}

/** Everything the host's results page and the exports show. */
export interface StudyReport {
  items: StudyItem[];
  readers: (StudyReader & { answered: number; time: ReturnType<typeof timeSummary> })[];
  raters: ReportRater[];
  results: StudyResults;
}

/**
 * Readers (current answers; revoked readers left out) and models (runs added to the study, and the verified
 * entries of its benchmark) on the study's items, with accuracy, agreement and time per case.
 */
export async function studyReport(store: Store, study: Study, options: { models?: boolean } = {}): Promise<StudyReport> {
  const items = await studyItems(store, study.id);
  const idAt = new Map(items.map((i) => [i.position, i.question_id]));
  // Models are read from their files (entries: every stored submission): only when results are shown.
  const withModels = options.models ?? true;
  const [readers, answers, times, models, entries] = await Promise.all([
    studyReaders(store, study.id), studyAnswers(store, study.id), caseTimes(store, study.id), withModels ? studyModels(store, study.id) : Promise.resolve([]),
    withModels && study.benchmark_id ? entryAnswers(store, study.benchmark_id, items) : Promise.resolve([]),
  ]);
  const active = readers.filter((r) => !r.revoked_at);
  const readerRaters: ReportRater[] = active.map((r) => {
    const own = answers.filter((a) => a.reader_id === r.id);
    return {
      name: r.name, kind: 'reader',
      answers: new Map(own.map((a) => [idAt.get(a.position)!, a.answer])),
      confidence: new Map(own.map((a) => [idAt.get(a.position)!, a.confidence])),
      seconds: new Map([...(times.get(r.id) ?? new Map<number, number>())].map(([position, ms]) => [idAt.get(position)!, ms / 1000])),
      readingOrder: readerOrder(items.length, r.order_seed).map((p) => items[p]!.question_id),
    };
  });
  const modelRaters: ReportRater[] = [
    ...models.map((m): Rater => ({ name: m.name, kind: 'model', origin: 'run', answers: new Map(Object.entries(m.answers)) })),
    ...entries.filter((e) => !models.some((m) => m.name === e.name)).map((e): Rater => ({ name: e.name, kind: 'model', origin: 'entry', answers: e.answers })),
  ];
  const raters = [...readerRaters, ...modelRaters];
  return {
    items,
    readers: readers.map((r) => ({ ...r, answered: answers.filter((a) => a.reader_id === r.id).length, time: timeSummary(times.get(r.id)) })),
    raters,
    results: studyResults(items.map((i) => ({ questionId: i.question_id, task: i.task, gold: i.gold })), raters),
  };
}

/**
 * A rater's answers as `{id, answer, confidence, seconds}` lines, which `cxrbench agreement` reads (unanswered:
 * answer null; no confidence given, no time recorded, or a model: null).
 */
export function answerFileLines(items: readonly StudyItem[], rater: ReportRater): string {
  return items.map((i) => JSON.stringify({ id: i.question_id, answer: rater.answers.get(i.question_id) ?? null, confidence: rater.confidence?.get(i.question_id) ?? null, seconds: rater.seconds?.get(i.question_id) ?? null })).join('\n') + '\n';
}

/** The study's answer key `{id, answer, task}` (for the host only: it holds the gold). */
export function answerKeyLines(items: readonly StudyItem[]): string {
  return items.map((i) => JSON.stringify({ id: i.question_id, answer: i.gold, task: i.task })).join('\n') + '\n';
}

/**
 * File names for the raters' exports, one per rater in order: `<kind>-<name>` in lowercase letters, digits and
 * dashes, numbered when two names come out alike ("Dr. A" and "Dr A") or a name has no such letters at all — no
 * export ever overwrites another.
 */
export function exportNames(raters: readonly Pick<Rater, 'name' | 'kind'>[]): string[] {
  const taken = new Set<string>(['key']);
  return raters.map((rater, i) => {
    const slug = rater.name.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
    const base = `${rater.kind}-${slug || String(i + 1)}`;
    let name = base;
    for (let k = 2; taken.has(name); k++) name = `${base}-${k}`;
    taken.add(name);
    return `${name}.jsonl`;
  });
}
