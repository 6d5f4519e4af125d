import { randomUUID } from 'node:crypto';
import { CxrError } from '../core/errors.js';
import { audit } from './audit.js';
import type { Store } from './connect.js';
import type { StudyAnswerTable } from './schema.js';
import type { StudyReader } from './study-readers.js';

export type StudyAnswer = StudyAnswerTable;

/** One save from a reader's page: the answer (null: only the time moved on), and the visit it comes from. */
export interface AnswerSave {
  position: number;
  answer: 'A' | 'B' | 'C' | 'D' | null;
  confidence: number | null;
  visitId: string;
  elapsedMs: number;
  clientAt: string | null;
}

const now = () => new Date().toISOString();

/** Why a reader may not change answers now, or null when they may. */
function lockedBecause(study: { state: string; allow_edits: number }, reader: { submitted_at: string | null; revoked_at: string | null }): string | null {
  if (reader.revoked_at) return 'your invitation was withdrawn';
  if (study.state === 'closed') return 'the study is closed';
  if (study.state !== 'open') return 'the study is not open';
  if (reader.submitted_at && study.allow_edits !== 1) return 'you submitted your answers, and this study does not allow changes after submitting';
  return null;
}

/**
 * Saves one answer (last write wins: the latest save to reach the server is the answer) and records the save
 * as an event, with the tab it came from and both clocks, in one transaction. Refused when the reader's answers
 * are locked (submitted, closed study, revoked) or the case does not exist.
 */
export async function saveAnswer(store: Store, reader: Pick<StudyReader, 'id' | 'study_id'>, save: AnswerSave): Promise<void> {
  const pg = store.dialect === 'postgres';
  await store.db.transaction().execute(async (tx) => {
    // PostgreSQL: the study row is read FOR SHARE, so a close committing meanwhile waits for this save (or this save
    // sees it and refuses). The reader row is read FOR UPDATE, not FOR SHARE: this save updates it below, and two
    // saves of one reader (two tabs, a burst of autosaves) each holding a share lock and then asking to update
    // deadlock — PostgreSQL aborts one, and the reader got a 500. One reader's saves now queue; a revoke or submit
    // still waits for them. SQLite transactions here are BEGIN IMMEDIATE already.
    const studyQuery = tx.selectFrom('studies').select(['state', 'allow_edits']).where('id', '=', reader.study_id);
    const readerQuery = tx.selectFrom('study_readers').select(['submitted_at', 'revoked_at']).where('id', '=', reader.id);
    const study = await (pg ? studyQuery.forShare() : studyQuery).executeTakeFirstOrThrow();
    const current = await (pg ? readerQuery.forUpdate() : readerQuery).executeTakeFirstOrThrow();
    const locked = lockedBecause(study, current);
    if (locked) throw new CxrError('conflict', `not saved: ${locked}`);
    const item = await tx.selectFrom('study_items').select('position').where('study_id', '=', reader.study_id).where('position', '=', save.position).executeTakeFirst();
    if (!item) throw new CxrError('not-found', `the study has no case ${save.position + 1}`);
    const at = now();
    await tx.insertInto('study_answer_events').values({ id: randomUUID(), reader_id: reader.id, position: save.position, answer: save.answer, confidence: save.confidence, visit_id: save.visitId, elapsed_ms: Math.round(save.elapsedMs), client_at: save.clientAt, at }).execute();
    if (save.answer !== null) {
      await tx.insertInto('study_answers')
        .values({ reader_id: reader.id, study_id: reader.study_id, position: save.position, answer: save.answer, confidence: save.confidence, visit_id: save.visitId, first_at: at, updated_at: at })
        .onConflict((oc) => oc.columns(['reader_id', 'position']).doUpdateSet({ answer: save.answer!, confidence: save.confidence, visit_id: save.visitId, updated_at: at }))
        .execute();
    }
    await tx.updateTable('study_readers').set({ last_seen_at: at }).where('id', '=', reader.id).execute();
  });
}

/** Locks a reader's answers once every case is answered. */
export async function submitAnswers(store: Store, reader: Pick<StudyReader, 'id' | 'study_id'>): Promise<void> {
  const pg = store.dialect === 'postgres';
  await store.db.transaction().execute(async (tx) => {
    const studyQuery = tx.selectFrom('studies').select(['state', 'allow_edits']).where('id', '=', reader.study_id);
    const readerQuery = tx.selectFrom('study_readers').select(['submitted_at', 'revoked_at']).where('id', '=', reader.id);
    const study = await (pg ? studyQuery.forShare() : studyQuery).executeTakeFirstOrThrow();
    const current = await (pg ? readerQuery.forUpdate() : readerQuery).executeTakeFirstOrThrow();
    if (current.submitted_at) return;
    const locked = lockedBecause(study, current);
    if (locked) throw new CxrError('conflict', `not submitted: ${locked}`);
    const items = Number((await tx.selectFrom('study_items').select((eb) => eb.fn.countAll<number>().as('n')).where('study_id', '=', reader.study_id).executeTakeFirstOrThrow()).n);
    const answered = Number((await tx.selectFrom('study_answers').select((eb) => eb.fn.countAll<number>().as('n')).where('reader_id', '=', reader.id).executeTakeFirstOrThrow()).n);
    if (answered < items) throw new CxrError('conflict', `not submitted: ${items - answered} case(s) have no answer yet`);
    await tx.updateTable('study_readers').set({ submitted_at: now() }).where('id', '=', reader.id).execute();
  });
}

/** A reader's current answers by position. */
export async function readerAnswers(store: Store, readerId: string): Promise<Map<number, StudyAnswer>> {
  const rows = await store.db.selectFrom('study_answers').selectAll().where('reader_id', '=', readerId).execute();
  return new Map(rows.map((r) => [r.position, r]));
}

/** Every current answer of a study. */
export async function studyAnswers(store: Store, studyId: string): Promise<StudyAnswer[]> {
  return store.db.selectFrom('study_answers').selectAll().where('study_id', '=', studyId).execute();
}

/**
 * Time each reader spent on each case: per visit (page load, tab) the longest time it reported, summed over
 * visits — two tabs open on one case both count, and a heartbeat repeated does not.
 */
export async function caseTimes(store: Store, studyId: string): Promise<Map<string, Map<number, number>>> {
  const rows = await store.db.selectFrom('study_answer_events').innerJoin('study_readers', 'study_readers.id', 'study_answer_events.reader_id')
    .select(['study_answer_events.reader_id', 'study_answer_events.position', 'study_answer_events.visit_id', (eb) => eb.fn.max('study_answer_events.elapsed_ms').as('ms')])
    .where('study_readers.study_id', '=', studyId)
    .groupBy(['study_answer_events.reader_id', 'study_answer_events.position', 'study_answer_events.visit_id']).execute();
  const out = new Map<string, Map<number, number>>();
  for (const r of rows) {
    const byCase = out.get(r.reader_id) ?? new Map<number, number>();
    byCase.set(r.position, (byCase.get(r.position) ?? 0) + Number(r.ms));
    out.set(r.reader_id, byCase);
  }
  return out;
}

/** The saves of one reader's case, oldest first (what two tabs did, and when, by both clocks). */
export async function answerEvents(store: Store, readerId: string, position: number) {
  return store.db.selectFrom('study_answer_events').selectAll().where('reader_id', '=', readerId).where('position', '=', position).orderBy('at', 'asc').execute();
}

/** Adds a model's answers on the study's items (from a run or any prediction file), replacing one of the same name. */
export async function addStudyModel(store: Store, actor: string, studyId: string, name: string, answers: Record<string, string | null>): Promise<void> {
  await store.db.transaction().execute(async (tx) => {
    await tx.deleteFrom('study_models').where('study_id', '=', studyId).where('name', '=', name).execute();
    await tx.insertInto('study_models').values({ id: randomUUID(), study_id: studyId, name, answers_json: JSON.stringify(answers), created_at: now() }).execute();
    await audit(tx, actor, 'study.add-model', { study: studyId, name, answered: Object.values(answers).filter((a) => a !== null).length });
  });
}

export async function studyModels(store: Store, studyId: string): Promise<{ name: string; answers: Record<string, string | null> }[]> {
  const rows = await store.db.selectFrom('study_models').select(['name', 'answers_json']).where('study_id', '=', studyId).orderBy('name').execute();
  return rows.map((r) => ({ name: r.name, answers: JSON.parse(r.answers_json) as Record<string, string | null> }));
}
