import { randomUUID } from 'node:crypto';
import { CxrError } from '../core/errors.js';
import type { Store } from './connect.js';
import { hashPassword, newSecret, passwordProblem, secretHash, verifyPassword } from './credentials.js';
import type { UserTable } from './schema.js';

export type User = Omit<UserTable, 'password_hash'> & { team_name: string | null };

const SESSION_DAYS = 14;
const now = () => new Date().toISOString();

/**
 * Creates a user and, when a team name is given, a new team it belongs to (the name must be free); with an
 * invite code instead, the user joins the team whose current code it is.
 */
export async function createUser(store: Store, input: { email: string; password: string; displayName: string; teamName?: string | null; inviteCode?: string | null; admin?: boolean }): Promise<User> {
  const email = input.email.trim().toLowerCase();
  if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email) || email.length > 200) throw new CxrError('bad-option', `"${input.email}" is not an email address`);
  const problem = passwordProblem(input.password);
  if (problem) throw new CxrError('bad-option', problem);
  const displayName = input.displayName.trim().slice(0, 80) || email.split('@')[0]!;
  const teamName = input.teamName?.trim().slice(0, 80) || null;
  const passwordHash = await hashPassword(input.password);
  return store.db.transaction().execute(async (tx) => {
    if (await tx.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst()) throw new CxrError('conflict', `an account for ${email} exists already: sign in with it, or use another email`);
    let teamId: string | null = null;
    let joined: string | null = null;
    const invite = input.inviteCode?.trim();
    if (invite) {
      const team = await tx.selectFrom('teams').select(['id', 'name']).where('invite_hash', '=', secretHash(invite)).executeTakeFirst();
      if (!team) throw new CxrError('not-found', 'that invite code is not valid (ask a team member for the current one)');
      teamId = team.id;
      joined = team.name;
    } else if (teamName) {
      if (await tx.selectFrom('teams').select('id').where('name', '=', teamName).executeTakeFirst()) throw new CxrError('conflict', `the team name "${teamName}" is taken: choose another, or ask a member of that team for an invite code to join it`);
      teamId = randomUUID();
      await tx.insertInto('teams').values({ id: teamId, name: teamName, created_at: now(), invite_hash: null }).execute();
    }
    const user = { id: randomUUID(), email, display_name: displayName, password_hash: passwordHash, is_admin: input.admin ? 1 : 0, team_id: teamId, created_at: now() };
    await tx.insertInto('users').values(user).execute();
    const { password_hash: _hidden, ...rest } = user;
    return { ...rest, team_name: joined ?? teamName };
  });
}

function userQuery(store: Store) {
  return store.db.selectFrom('users').leftJoin('teams', 'teams.id', 'users.team_id').select(['users.id', 'users.email', 'users.display_name', 'users.is_admin', 'users.team_id', 'users.created_at', 'teams.name as team_name']);
}

/** The user whose email and password match, or null (the same answer, and about the same time, for a wrong email or password). */
export async function checkLogin(store: Store, email: string, password: string): Promise<User | null> {
  const row = await store.db.selectFrom('users').select(['id', 'password_hash']).where('email', '=', email.trim().toLowerCase()).executeTakeFirst();
  // Hash anyway when the email is unknown, so timing does not tell which emails have accounts.
  const ok = await verifyPassword(password, row?.password_hash ?? 'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
  if (!row || !ok) return null;
  return (await userQuery(store).where('users.id', '=', row.id).executeTakeFirst()) ?? null;
}

/** Starts a session; returns the cookie value (stored only as its hash) and its CSRF token. */
export async function createSession(store: Store, userId: string): Promise<{ cookie: string; csrf: string }> {
  const cookie = newSecret();
  const csrf = newSecret();
  await store.db.deleteFrom('sessions').where('expires_at', '<', now()).execute(); // expired ones go at the next sign-in
  await store.db.insertInto('sessions').values({ id_hash: secretHash(cookie), user_id: userId, csrf, expires_at: new Date(Date.now() + SESSION_DAYS * 86_400_000).toISOString(), created_at: now() }).execute();
  return { cookie, csrf };
}

export async function sessionUser(store: Store, cookie: string): Promise<{ user: User; csrf: string } | null> {
  const row = await store.db.selectFrom('sessions').select(['user_id', 'csrf', 'expires_at']).where('id_hash', '=', secretHash(cookie)).executeTakeFirst();
  if (!row || row.expires_at < now()) return null;
  const user = await userQuery(store).where('users.id', '=', row.user_id).executeTakeFirst();
  return user ? { user, csrf: row.csrf } : null;
}

export async function endSession(store: Store, cookie: string): Promise<void> {
  await store.db.deleteFrom('sessions').where('id_hash', '=', secretHash(cookie)).execute();
}

/** Creates an API token; the token itself is returned once and only its hash is kept. */
export async function createToken(store: Store, userId: string, name: string): Promise<{ id: string; name: string; token: string }> {
  const token = newSecret('cxr_');
  const id = randomUUID();
  const stored = name.trim().slice(0, 80) || 'token';
  await store.db.insertInto('api_tokens').values({ id, user_id: userId, name: stored, token_hash: secretHash(token), prefix: token.slice(0, 10), created_at: now(), revoked_at: null, last_used_at: null }).execute();
  return { id, name: stored, token };
}

export async function listTokens(store: Store, userId: string) {
  return store.db.selectFrom('api_tokens').select(['id', 'name', 'prefix', 'created_at', 'revoked_at', 'last_used_at']).where('user_id', '=', userId).orderBy('created_at', 'desc').execute();
}

/** Revokes one of the user's tokens; false when it is not theirs or does not exist. */
export async function revokeToken(store: Store, userId: string, tokenId: string): Promise<boolean> {
  const result = await store.db.updateTable('api_tokens').set({ revoked_at: now() }).where('id', '=', tokenId).where('user_id', '=', userId).where('revoked_at', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function tokenUser(store: Store, token: string): Promise<User | null> {
  const found = await tokenCaller(store, token);
  return 'user' in found ? found.user : null;
}

/** The user of an API token, or why there is none: not a token of this board, or revoked (and when). */
export async function tokenCaller(store: Store, token: string): Promise<{ user: User } | { problem: 'unknown' } | { problem: 'revoked'; at: string }> {
  const row = await store.db.selectFrom('api_tokens').select(['id', 'user_id', 'last_used_at', 'revoked_at']).where('token_hash', '=', secretHash(token)).executeTakeFirst();
  if (!row) return { problem: 'unknown' };
  if (row.revoked_at) return { problem: 'revoked', at: row.revoked_at };
  // A write per API call would serialise a busy script's requests on SQLite: record use once a minute at most.
  if (!row.last_used_at || Date.now() - Date.parse(row.last_used_at) > 60_000) await store.db.updateTable('api_tokens').set({ last_used_at: now() }).where('id', '=', row.id).execute();
  const user = await userQuery(store).where('users.id', '=', row.user_id).executeTakeFirst();
  return user ? { user } : { problem: 'unknown' };
}

/** Makes a new invite code for a team (replacing the previous one); returned once, stored as sha256. */
export async function newInviteCode(store: Store, teamId: string): Promise<string> {
  const code = newSecret('team_').slice(0, 29);
  await store.db.updateTable('teams').set({ invite_hash: secretHash(code) }).where('id', '=', teamId).execute();
  return code;
}
