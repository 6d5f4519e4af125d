import { randomUUID } from 'node:crypto';
import { CxrError } from '../core/errors.js';
import { audit } from './audit.js';
import type { Store } from './connect.js';
import { storeImage } from './images.js';
import type { StudyItemTable, StudyTable } from './schema.js';

export type Study = StudyTable;
export type StudyItem = StudyItemTable;

/** One view of a case as stored: the sha256 of its image, or null when the file was missing. */
export interface StoredView {
  path: string;
  view: string | null;
  sha256: string | null;
  /** Why there is no image (missing, not a readable image), when there is none. */
  problem?: string;
}

/** A case to store: the question with its gold (kept server-side) and its image files' bytes. */
export interface NewStudyCase {
  questionId: string;
  studyRef: string;
  task: string;
  category: string;
  question: string;
  options: readonly string[];
  gold: string;
  explanation: string | null;
  /** Each view's file (stored here), or the sha256 of an image stored already (a benchmark's), or neither: missing. */
  images: { path: string; view: string | null; content?: Buffer | null; load?: () => Buffer | null; contentType?: string | null; sha256?: string | null; problem?: string | null }[];
}

export interface NewStudy {
  title: string;
  benchmarkId: string | null;
  source: string;
  sourceSha256: string;
  sampling: Record<string, unknown>;
  seed: number;
  /** Readers' scores may be published on the public leaderboard (readers are told so; default: no). */
  publishScores?: boolean;
}

const now = () => new Date().toISOString();

/** Creates a study in `draft` with its cases and their images, all in one transaction, audited. */
export async function createStudy(store: Store, actor: string, meta: NewStudy, cases: readonly NewStudyCase[]): Promise<Study> {
  const title = meta.title.trim().slice(0, 200);
  if (!title) throw new CxrError('bad-option', 'a study needs a title');
  if (cases.length === 0) throw new CxrError('bad-option', 'a study needs at least one case');
  return store.db.transaction().execute(async (tx) => {
    const study: Study = {
      id: randomUUID(), title, benchmark_id: meta.benchmarkId, source: meta.source, source_sha256: meta.sourceSha256, sampling_json: JSON.stringify(meta.sampling),
      seed: meta.seed, state: 'draft', allow_edits: 0, invites_expire_at: null, publish_scores: meta.publishScores ? 1 : 0, published_at: null,
      created_by: actor, created_at: now(), opened_at: null, closed_at: null,
    };
    await tx.insertInto('studies').values(study).execute();
    for (const [position, c] of cases.entries()) {
      const views: StoredView[] = [];
      for (const image of c.images) {
        // Files are read one at a time, here: a 200-case study of 16-bit films is not held in memory at once.
        const content = image.content ?? image.load?.() ?? null;
        const sha256 = content && image.contentType ? await storeImage(tx, content, image.contentType) : (image.sha256 ?? null);
        views.push({ path: image.path, view: image.view, sha256, ...(sha256 ? {} : { problem: image.problem ?? 'missing' }) });
      }
      await tx.insertInto('study_items').values({
        study_id: study.id, position, question_id: c.questionId, study_ref: c.studyRef, task: c.task, category: c.category, question: c.question,
        options_json: JSON.stringify(c.options), gold: c.gold, explanation: c.explanation, images_json: JSON.stringify(views),
        missing_images: views.filter((v) => v.sha256 === null).length + (views.length === 0 ? 1 : 0),
      }).execute();
    }
    await audit(tx, actor, 'study.create', { id: study.id, title, source: meta.source, cases: cases.length, sampling: meta.sampling, publishScores: study.publish_scores === 1 });
    return study;
  });
}

export async function listStudies(store: Store): Promise<(Study & { items: number; readers: number })[]> {
  const studies = await store.db.selectFrom('studies').selectAll().orderBy('created_at', 'desc').execute();
  const items = await store.db.selectFrom('study_items').select(['study_id', (eb) => eb.fn.countAll<number>().as('n')]).groupBy('study_id').execute();
  const readers = await store.db.selectFrom('study_readers').select(['study_id', (eb) => eb.fn.countAll<number>().as('n')]).groupBy('study_id').execute();
  const count = (rows: { study_id: string; n: number | string | bigint }[], id: string) => Number(rows.find((r) => r.study_id === id)?.n ?? 0);
  return studies.map((s) => ({ ...s, items: count(items, s.id), readers: count(readers, s.id) }));
}

export async function studyById(store: Store, id: string): Promise<Study | null> {
  if (!/^[0-9a-f-]{36}$/.test(id)) return null;
  return (await store.db.selectFrom('studies').selectAll().where('id', '=', id).executeTakeFirst()) ?? null;
}

/** Every case of a study in position order, gold included. Server-side only. */
export async function studyItems(store: Store, studyId: string): Promise<StudyItem[]> {
  return store.db.selectFrom('study_items').selectAll().where('study_id', '=', studyId).orderBy('position', 'asc').execute();
}

export function viewsOf(item: Pick<StudyItem, 'images_json'>): StoredView[] {
  return JSON.parse(item.images_json) as StoredView[];
}

/** True when the image is one of the study's (a reader may fetch only those). */
export async function studyHasImage(store: Store, studyId: string, sha256: string): Promise<boolean> {
  const items = await store.db.selectFrom('study_items').select('images_json').where('study_id', '=', studyId).execute();
  return items.some((i) => viewsOf(i).some((v) => v.sha256 === sha256));
}

/** Removes the cases whose images are missing (draft only), renumbering the rest in order; returns how many went. */
export async function dropCasesWithoutImages(store: Store, actor: string, studyId: string): Promise<number> {
  return store.db.transaction().execute(async (tx) => {
    const study = await tx.selectFrom('studies').select('state').where('id', '=', studyId).executeTakeFirst();
    if (study?.state !== 'draft') throw new CxrError('conflict', 'cases can be removed only before the study opens');
    const items = await tx.selectFrom('study_items').selectAll().where('study_id', '=', studyId).orderBy('position', 'asc').execute();
    const kept = items.filter((i) => i.missing_images === 0);
    if (kept.length === 0) throw new CxrError('conflict', 'every case has missing images: nothing would be left to read');
    await tx.deleteFrom('study_items').where('study_id', '=', studyId).execute();
    for (const [position, item] of kept.entries()) await tx.insertInto('study_items').values({ ...item, position }).execute();
    await audit(tx, actor, 'study.drop-missing', { id: studyId, dropped: items.length - kept.length });
    return items.length - kept.length;
  });
}

/** Why a study's readers' scores cannot be published, or null when they may (on closing, if the host chooses). */
export function publishRefusal(study: Pick<Study, 'publish_scores' | 'benchmark_id'>): string | null {
  if (study.benchmark_id === null) return 'the study was drawn from a question set, not a benchmark of the board: there is no public leaderboard to publish on';
  if (study.publish_scores !== 1) return 'the study was created without permission to publish readers\' scores, and its readers were told so';
  return null;
}

/**
 * Moves a study on: `open` (from draft, every image present) or `closed` (from open: answers freeze and
 * results, gold and explanations become visible to readers). Readers' scores go public only when closing with
 * `publish`, which the study must allow (see {@link publishRefusal}); closing alone publishes nothing.
 */
export async function setStudyState(store: Store, actor: string, studyId: string, next: 'open' | 'closed', options: { publish?: boolean } = {}): Promise<void> {
  await store.db.transaction().execute(async (tx) => {
    const query = tx.selectFrom('studies').select(['state', 'publish_scores', 'benchmark_id']).where('id', '=', studyId);
    // FOR UPDATE: waits for saves in flight (they hold the row FOR SHARE), so no answer lands after the close.
    const study = await (store.dialect === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
    if (!study) throw new CxrError('not-found', `no study ${studyId}`);
    if (next === 'open') {
      if (study.state !== 'draft') throw new CxrError('conflict', `the study is ${study.state}; only a draft can be opened`);
      const missing = await tx.selectFrom('study_items').select('question_id').where('study_id', '=', studyId).where('missing_images', '>', 0).execute();
      if (missing.length > 0) throw new CxrError('conflict', `${missing.length} case(s) have missing images (${missing.slice(0, 5).map((m) => m.question_id).join(', ')}${missing.length > 5 ? ', …' : ''}): add the files and create the study again, or remove those cases first`);
      await tx.updateTable('studies').set({ state: 'open', opened_at: now() }).where('id', '=', studyId).execute();
    } else {
      if (study.state !== 'open') throw new CxrError('conflict', `the study is ${study.state}; only an open study can be closed`);
      const refused = options.publish ? publishRefusal(study) : null;
      if (refused) throw new CxrError('conflict', `readers' scores cannot be published: ${refused}`);
      const at = now();
      await tx.updateTable('studies').set({ state: 'closed', closed_at: at, published_at: options.publish ? at : null }).where('id', '=', studyId).execute();
    }
    await audit(tx, actor, `study.${next === 'open' ? 'open' : 'close'}`, { id: studyId, ...(next === 'closed' ? { publish: options.publish === true } : {}) });
  });
}

/** Whether readers may change submitted answers, and when invite links stop working (null: never). */
export async function setStudySettings(store: Store, actor: string, studyId: string, settings: { allowEdits: boolean; invitesExpireAt: string | null }): Promise<void> {
  await store.db.transaction().execute(async (tx) => {
    await tx.updateTable('studies').set({ allow_edits: settings.allowEdits ? 1 : 0, invites_expire_at: settings.invitesExpireAt }).where('id', '=', studyId).execute();
    await audit(tx, actor, 'study.settings', { id: studyId, ...settings });
  });
}

/** Deletes a study that never opened, with its cases and readers (an opened study keeps its record). */
export async function deleteDraftStudy(store: Store, actor: string, studyId: string): Promise<void> {
  await store.db.transaction().execute(async (tx) => {
    const study = await tx.selectFrom('studies').select(['state', 'title']).where('id', '=', studyId).executeTakeFirst();
    if (!study) throw new CxrError('not-found', `no study ${studyId}`);
    if (study.state !== 'draft') throw new CxrError('conflict', `the study is ${study.state}: only a draft can be deleted (an opened study keeps its record)`);
    await tx.deleteFrom('studies').where('id', '=', studyId).execute();
    await audit(tx, actor, 'study.delete-draft', { id: studyId, title: study.title });
  });
}
