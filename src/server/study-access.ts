import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Store } from '../store/connect.js';
import { readerByAccount, readerByToken, type ReaderRefusal, type StudyReader } from '../store/study-readers.js';
import type { Study } from '../store/studies.js';

/** The cookie an invite link leaves, scoped to its study's pages: one browser can read several studies. */
export const READER_COOKIE = 'cxr_reader';

export function readerCookiePath(studyId: string): string {
  return `/read/${studyId}`;
}

/**
 * The reader a request to /read/<study>/… comes from: the signed-in account when it is a reader of the study
 * (so a link cookie planted in its browser cannot steer its answers elsewhere), else the invite cookie.
 */
export async function resolveReader(store: Store, request: FastifyRequest, studyId: string): Promise<{ reader: StudyReader; study: Study } | ReaderRefusal> {
  const byAccount = request.caller?.via === 'session' ? await readerByAccount(store, studyId, request.caller.user.id) : null;
  if (byAccount && !('status' in byAccount && byAccount.status === 404)) return byAccount;
  const token = request.cookies[READER_COOKIE];
  if (token) {
    const found = await readerByToken(store, token);
    if ('status' in found || found.reader.study_id === studyId) return found;
  }
  return byAccount ?? { status: 403, message: 'Open the reading link you were sent (it signs this browser in to the study), or sign in with the board account you were invited with.' };
}

/** Sets the invite cookie for a study's pages (http-only: page scripts never see the token). */
export function setReaderCookie(reply: FastifyReply, studyId: string, token: string, secure: boolean): void {
  reply.setCookie(READER_COOKIE, token, { path: readerCookiePath(studyId), httpOnly: true, sameSite: 'lax', secure, maxAge: 90 * 86400 });
}
