import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { Store } from './connect.js';
import { secretHash } from './credentials.js';

/** A secret a form made, for the page it redirects to: a new API token (with its name) or a team's invite code. */
export type Flash = { kind: 'token'; name: string; secret: string } | { kind: 'invite'; team: string; secret: string };

/**
 * How long a flash waits for its page. The redirect is followed at once; a flash never seen (the browser did not
 * follow it) is lost, which costs nothing: the token is listed on the account page, to be revoked and made again
 * (an invite code made again replaces the lost one).
 */
export const FLASH_TTL_MS = 5 * 60_000;

const VERSION = 'v1';

/**
 * The flash's key, derived from the session's cookie — which the database never holds (it keeps the cookie's
 * sha256, and this is an HMAC under another label): a copy of the database, a backup or a log cannot open a
 * flash, and every replica can, given the browser's cookie. So the plaintext is never stored anywhere.
 */
function flashKey(cookie: string): Buffer {
  return createHmac('sha256', cookie).update('cxrbench session flash').digest();
}

function seal(cookie: string, flash: Flash): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', flashKey(cookie), iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(flash), 'utf8'), cipher.final()]);
  return [VERSION, iv, cipher.getAuthTag(), body].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
}

/** The flash, or null when it does not open with this cookie (it cannot be another session's: rows are keyed by session). */
function unseal(cookie: string, sealed: string): Flash | null {
  const [version, iv, tag, body] = sealed.split('.');
  if (version !== VERSION || !iv || !tag || body === undefined) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', flashKey(cookie), Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return JSON.parse(Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8')) as Flash;
  } catch {
    return null;
  }
}

/**
 * Keeps a flash for the session of `cookie` until its next page takes it (at most FLASH_TTL_MS). One per session:
 * a newer one replaces one not yet seen. Flashes of any session that were never taken in time are dropped here.
 */
export async function putFlash(store: Store, cookie: string, flash: Flash, ttlMs = FLASH_TTL_MS): Promise<void> {
  const now = Date.now();
  await store.db.deleteFrom('session_flashes').where('expires_at', '<', new Date(now).toISOString()).execute();
  const row = { session_hash: secretHash(cookie), sealed: seal(cookie, flash), expires_at: new Date(now + ttlMs).toISOString() };
  await store.db.insertInto('session_flashes').values(row).onConflict((oc) => oc.column('session_hash').doUpdateSet({ sealed: row.sealed, expires_at: row.expires_at })).execute();
}

/**
 * Takes the session's flash: the first page to ask gets it and it is gone (one atomic delete: two tabs asking at
 * once cannot both show it). Null when there is none, or it expired.
 */
export async function takeFlash(store: Store, cookie: string): Promise<Flash | null> {
  const sessionHash = secretHash(cookie);
  // Looked for first: most account pages have no flash, and a write on every view would tell every replica the
  // board's data changed (PostgreSQL's statement triggers fire even when nothing is deleted).
  if (!(await store.db.selectFrom('session_flashes').select('session_hash').where('session_hash', '=', sessionHash).executeTakeFirst())) return null;
  const row = await store.db.deleteFrom('session_flashes').where('session_hash', '=', sessionHash).returning(['sealed', 'expires_at']).executeTakeFirst();
  if (!row || row.expires_at < new Date().toISOString()) return null;
  return unseal(cookie, row.sealed);
}
