import type { FastifyReply, FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import { sessionUser, tokenCaller, type User } from '../store/accounts.js';
import type { Store } from '../store/connect.js';
import { html } from './views/html.js';
import { layout, type Viewer } from './views/layout.js';

export const SESSION_COOKIE = 'cxr_session';

/** Who is asking: a signed-in browser (session + CSRF token) or a script with an API token. */
export interface Caller {
  user: User;
  via: 'session' | 'token';
  csrf: string | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller | null;
  }
}

/** Why a request's Bearer token was not accepted, for the 401 to say (a missing token is another message). */
const tokenProblems = new WeakMap<FastifyRequest, string>();

/** Resolves the caller of a request from its Bearer token or session cookie (nothing found: anonymous). */
export async function resolveCaller(store: Store, request: FastifyRequest): Promise<Caller | null> {
  const auth = request.headers.authorization;
  if (auth?.startsWith('Bearer ')) {
    const found = await tokenCaller(store, auth.slice(7).trim());
    if ('user' in found) return { user: found.user, via: 'token', csrf: null };
    tokenProblems.set(request, found.problem === 'revoked'
      ? `this API token was revoked (${found.at.slice(0, 10)}); create a new one on your account page`
      : 'this API token is not known here: check it was copied whole (tokens start with cxr_) and is for this board');
    return null;
  }
  const cookie = request.cookies[SESSION_COOKIE];
  if (!cookie) return null;
  const session = await sessionUser(store, cookie);
  return session ? { user: session.user, via: 'session', csrf: session.csrf } : null;
}

export function viewerOf(request: FastifyRequest): Viewer | null {
  const c = request.caller;
  return c && c.via === 'session' ? { name: c.user.display_name, admin: c.user.is_admin === 1, csrf: c.csrf ?? '' } : null;
}

/** True when a sent token equals the expected one, compared in constant time (anything but text is false). */
export function sameToken(sent: unknown, expected: string | null | undefined): boolean {
  if (!expected || typeof sent !== 'string') return false;
  const a = Buffer.from(sent);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** True when a form's CSRF token matches the session's (constant-time). */
export function csrfOk(request: FastifyRequest, token: unknown): boolean {
  return sameToken(token, request.caller?.csrf);
}

/**
 * Sends a browser to the login page (pages) or answers 401 (API); returns false when there is no caller. Pages
 * need a signed-in browser: their forms carry a session's CSRF token, which an API token has not — a token
 * sent to a page gets a 403 saying so.
 */
export function requireCaller(request: FastifyRequest, reply: FastifyReply, api: boolean): request is FastifyRequest & { caller: Caller } {
  if (request.caller && (api || request.caller.via === 'session')) return true;
  if (request.caller) {
    void reply.code(403).type('text/html; charset=utf-8').send(layout('Sign in', null, html`<h1>Sign in</h1><p class="problems" role="alert">${request.url.split('?')[0]!.slice(0, 80)} is a page for a signed-in browser; an API token opens only the API (/api/…, described at /api/openapi.json).</p>`));
    return false;
  }
  if (api) void reply.code(401).send({ error: 'unauthorized', message: tokenProblems.get(request) ?? 'send an API token: Authorization: Bearer <token> (create one on your account page)' });
  else void reply.redirect(`/login?next=${encodeURIComponent(request.url)}`, 303);
  return false;
}
