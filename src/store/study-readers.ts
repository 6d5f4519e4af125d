import { randomInt, randomUUID } from 'node:crypto';
import { CxrError } from '../core/errors.js';
import { audit } from './audit.js';
import type { Store } from './connect.js';
import { newSecret, secretHash } from './credentials.js';
import type { Kysely } from 'kysely';
import type { Database, StudyReaderTable, StudyTable } from './schema.js';

export type StudyReader = StudyReaderTable;

/** Invite tokens start with this, so a person (and a secret scanner) can tell what a leaked string is. */
export const READER_TOKEN_PREFIX = 'cxr_read_';

const now = () => new Date().toISOString();

async function nextReaderName(store: Store, studyId: string, name: string): Promise<string> {
  const given = name.trim().slice(0, 80);
  const taken = new Set((await store.db.selectFrom('study_readers').select('name').where('study_id', '=', studyId).execute()).map((r) => r.name));
  if (given) {
    if (taken.has(given)) throw new CxrError('conflict', `this study has a reader called "${given}" already`);
    return given;
  }
  for (let k = taken.size + 1; ; k++) if (!taken.has(`Reader ${k}`)) return `Reader ${k}`;
}

/**
 * Refuses an invitation to a closed study (its answers are frozen: a new reader could read nothing), from the
 * web and the CLI alike.
 */
async function assertStillInvitable(tx: Kysely<Database>, studyId: string): Promise<void> {
  const study = await tx.selectFrom('studies').select('state').where('id', '=', studyId).executeTakeFirst();
  if (!study) throw new CxrError('not-found', `no study ${studyId}`);
  if (study.state === 'closed') throw new CxrError('conflict', 'the study is closed: its answers are frozen and no reader can be invited');
}

function newReader(studyId: string, name: string, userId: string | null, tokenHash: string | null): StudyReader {
  return { id: randomUUID(), study_id: studyId, name, user_id: userId, token_hash: tokenHash, csrf: newSecret(), order_seed: randomInt(0, 2 ** 31), created_at: now(), revoked_at: null, submitted_at: null, last_seen_at: null };
}

/** Invites a reader by link: the token is returned once and only its sha256 is kept. */
export async function inviteByLink(store: Store, actor: string, studyId: string, name: string): Promise<{ reader: StudyReader; token: string }> {
  const token = newSecret(READER_TOKEN_PREFIX);
  const reader = newReader(studyId, await nextReaderName(store, studyId, name), null, secretHash(token));
  await store.db.transaction().execute(async (tx) => {
    await assertStillInvitable(tx, studyId);
    await tx.insertInto('study_readers').values(reader).execute();
    await audit(tx, actor, 'study.invite-link', { study: studyId, reader: reader.id, name: reader.name });
  });
  return { reader, token };
}

/** Invites a board account (it reads when signed in, from any device). */
export async function inviteAccount(store: Store, actor: string, studyId: string, email: string, name: string): Promise<StudyReader> {
  const user = await store.db.selectFrom('users').select(['id', 'display_name']).where('email', '=', email.trim().toLowerCase()).executeTakeFirst();
  if (!user) throw new CxrError('not-found', `no board account for ${email.trim()}; invite by link instead, or ask them to sign up first`);
  if (await store.db.selectFrom('study_readers').select('id').where('study_id', '=', studyId).where('user_id', '=', user.id).executeTakeFirst()) throw new CxrError('conflict', `${email.trim()} is a reader of this study already`);
  const reader = newReader(studyId, await nextReaderName(store, studyId, name || user.display_name), user.id, null);
  await store.db.transaction().execute(async (tx) => {
    await assertStillInvitable(tx, studyId);
    await tx.insertInto('study_readers').values(reader).execute();
    await audit(tx, actor, 'study.invite-account', { study: studyId, reader: reader.id, email: email.trim().toLowerCase() });
  });
  return reader;
}

export async function revokeReader(store: Store, actor: string, studyId: string, readerId: string): Promise<boolean> {
  return store.db.transaction().execute(async (tx) => {
    const result = await tx.updateTable('study_readers').set({ revoked_at: now() }).where('id', '=', readerId).where('study_id', '=', studyId).where('revoked_at', 'is', null).executeTakeFirst();
    if (Number(result.numUpdatedRows) > 0) await audit(tx, actor, 'study.revoke-reader', { study: studyId, reader: readerId });
    return Number(result.numUpdatedRows) > 0;
  });
}

/** A reader's page views move `last_seen_at` at most this often: a write per reader a minute, not one per page. */
export const SEEN_EVERY_MS = 60_000;

/**
 * Notes that a reader opened a page of their study (`last_seen_at`), so the host can tell a reader who opened
 * the link but answered nothing from one who never opened it. Writes only when the last note (a page or a save)
 * is older than SEEN_EVERY_MS: every write wakes the board's change watch, so reading pages must not write each time.
 */
export async function noteReaderSeen(store: Store, reader: Pick<StudyReader, 'id' | 'last_seen_at'>, at = new Date()): Promise<void> {
  if (reader.last_seen_at !== null && at.getTime() - Date.parse(reader.last_seen_at) < SEEN_EVERY_MS) return;
  await store.db.updateTable('study_readers').set({ last_seen_at: at.toISOString() }).where('id', '=', reader.id).execute();
}

export async function studyReaders(store: Store, studyId: string): Promise<StudyReader[]> {
  return store.db.selectFrom('study_readers').selectAll().where('study_id', '=', studyId).orderBy('created_at', 'asc').execute();
}

/** Why a reader cannot open a study, in words for the page. */
export type ReaderRefusal = { status: 403 | 404 | 410; message: string };

function refusal(study: StudyTable | undefined, reader: StudyReader | undefined): ReaderRefusal | null {
  if (!study || !reader) return { status: 404, message: 'This reading link is not known here. Check that it was copied whole, or ask the study\'s host for a new one.' };
  if (reader.revoked_at) return { status: 403, message: `This invitation was withdrawn by the study's host on ${reader.revoked_at.slice(0, 10)}. Ask them for a new link if you should still read.` };
  if (reader.token_hash && study.invites_expire_at && study.invites_expire_at < now() && study.state !== 'closed') return { status: 410, message: `This reading link expired on ${study.invites_expire_at.slice(0, 16).replace('T', ' ')} UTC. Ask the study's host to extend it.` };
  if (study.state === 'draft') return { status: 403, message: 'This study has not opened yet. The host will tell you when it does; the link will work then.' };
  return null;
}

/** The reader an invite token belongs to, with its study, or why it cannot be used. */
export async function readerByToken(store: Store, token: string): Promise<{ reader: StudyReader; study: StudyTable } | ReaderRefusal> {
  const reader = token.startsWith(READER_TOKEN_PREFIX) && token.length < 200 ? await store.db.selectFrom('study_readers').selectAll().where('token_hash', '=', secretHash(token)).executeTakeFirst() : undefined;
  const study = reader ? await store.db.selectFrom('studies').selectAll().where('id', '=', reader.study_id).executeTakeFirst() : undefined;
  return refusal(study, reader) ?? { reader: reader!, study: study! };
}

/** The reader row of a signed-in account in a study, or why it cannot read. */
export async function readerByAccount(store: Store, studyId: string, userId: string): Promise<{ reader: StudyReader; study: StudyTable } | ReaderRefusal> {
  const reader = await store.db.selectFrom('study_readers').selectAll().where('study_id', '=', studyId).where('user_id', '=', userId).executeTakeFirst();
  const study = reader ? await store.db.selectFrom('studies').selectAll().where('id', '=', studyId).executeTakeFirst() : undefined;
  const refused = refusal(study, reader);
  if (refused?.status === 404) return { status: 404, message: 'You are not a reader of this study.' };
  return refused ?? { reader: reader!, study: study! };
}

/** The studies an account is invited to read (for its account page). */
export async function studiesOfAccount(store: Store, userId: string) {
  return store.db.selectFrom('study_readers').innerJoin('studies', 'studies.id', 'study_readers.study_id')
    .select(['studies.id', 'studies.title', 'studies.state', 'study_readers.submitted_at', 'study_readers.revoked_at'])
    .where('study_readers.user_id', '=', userId).where('studies.state', '!=', 'draft').execute();
}
