import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Store } from '../store/connect.js';
import { readerByAccount, readerByToken, type ReaderRefusal, type StudyReader } from '../store/study-readers.js';
import type { Study } from '../store/studies.js';

/** The cookie an invite link leaves, scoped to its study's pages: one browser can read several studies. */
export const READER_COOKIE = 'cxr_reader';

export function readerCookiePath(studyId: string): string {
  return `/read/${studyId}`;
}

/** The reader a request to /read/<study>/… comes from: the invite cookie first, else the signed-in account. */
export async function resolveReader(store: Store, request: FastifyRequest, studyId: string): Promise<{ reader: StudyReader; study: Study } | ReaderRefusal> {
  const token = request.cookies[READER_COOKIE];
  if (token) {
    const found = await readerByToken(store, token);
    if ('status' in found) return found;
    if (found.reader.study_id === studyId) return found;
  }
  if (request.caller) return readerByAccount(store, studyId, request.caller.user.id);
  return { status: 403, message: 'Open the reading link you were sent (it signs this browser in to the study), or sign in with the board account you were invited with.' };
}

/** Sets the invite cookie for a study's pages (http-only: page scripts never see the token). */
export function setReaderCookie(reply: FastifyReply, studyId: string, token: string, secure: boolean): void {
  reply.setCookie(READER_COOKIE, token, { path: readerCookiePath(studyId), httpOnly: true, sameSite: 'lax', secure, maxAge: 90 * 86400 });
}
