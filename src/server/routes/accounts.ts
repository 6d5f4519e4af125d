import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CxrError } from '../../core/errors.js';
import { checkLogin, createSession, createToken, createUser, endSession, listTokens, newInviteCode, revokeToken } from '../../store/accounts.js';
import { listBenchmarks } from '../../store/benchmarks.js';
import { putFlash, takeFlash, type Flash } from '../../store/session-flash.js';
import { studiesOfAccount } from '../../store/study-readers.js';
import { csrfOk, requireCaller, SESSION_COOKIE, viewerOf } from '../auth.js';
import type { BoardContext } from '../context.js';
import { accountPage, loginForm, signupForm, type AccountForm } from '../views/account-views.js';
import { html, type Html } from '../views/html.js';
import { layout } from '../views/layout.js';

type Form = AccountForm;

function page(reply: FastifyReply, request: FastifyRequest, title: string, body: Html, status = 200): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(layout(title, viewerOf(request), body));
}

/** Only local paths: an open redirect would let a phishing link bounce through the board. */
function safeNext(next: string | undefined): string {
  return next && /^\/(?!\/)[^\s\\]*$/.test(next) ? next : '/';
}

/**
 * Why a sign-up cannot go ahead before anything is stored, or null. The form needs a team: a new team's name or
 * an invite code — one, not both (with both, one would be ignored without a word).
 */
function teamChoiceProblem(form: Form): string | null {
  const team = form.team?.trim();
  const invite = form.invite?.trim();
  if (!team && !invite) return 'an account needs a team. Give a name for a new team, or an invite code from a member of an existing team (they make one on their account page).';
  if (team && invite) return 'give either a new team name or an invite code, not both. With the code you join that team; with a name you start a new one.';
  return null;
}

/** Sign-up, sign-in (rate-limited), sign-out, and API tokens and invite codes (each shown once, after a redirect). */
export function registerAccounts(app: FastifyInstance, ctx: BoardContext): void {
  const startSession = async (reply: FastifyReply, userId: string, next: string) => {
    const { cookie } = await createSession(ctx.store, userId);
    reply.setCookie(SESSION_COOKIE, cookie, { path: '/', httpOnly: true, sameSite: 'lax', secure: ctx.options.secureCookies, maxAge: 14 * 86400 });
    return reply.redirect(safeNext(next), 303);
  };
  const signupClosed = (request: FastifyRequest, reply: FastifyReply) => page(reply, request, 'Sign up', html`<h1>Sign up</h1><p>Sign-up is closed on this board: accounts are made by its administrators.</p>`, 403);
  /** A refused sign-up: the form again with what was typed (not the password) and why, in words. */
  const signupRefused = (request: FastifyRequest, reply: FastifyReply, form: Form, why: string) => page(reply, request, 'Sign up', signupForm(`nothing was created: ${why}`, form), 400);

  app.get('/signup', async (request, reply) => (ctx.options.openSignup ? page(reply, request, 'Sign up', signupForm(null)) : signupClosed(request, reply)));

  app.post<{ Body: Form }>('/signup', async (request, reply) => {
    if (!ctx.options.openSignup) return signupClosed(request, reply);
    const form = request.body ?? {};
    const needs = teamChoiceProblem(form);
    if (needs) return signupRefused(request, reply, form, needs);
    try {
      const user = await createUser(ctx.store, { email: form.email ?? '', password: form.password ?? '', displayName: form.displayName ?? '', teamName: form.team ?? '', inviteCode: form.invite ?? '' });
      return await startSession(reply, user.id, '/account');
    } catch (error) {
      if (error instanceof CxrError) return signupRefused(request, reply, form, error.message);
      throw error;
    }
  });

  app.get<{ Querystring: { next?: string } }>('/login', async (request, reply) => page(reply, request, 'Sign in', loginForm(null, '', safeNext(request.query.next), ctx.options.openSignup)));

  app.post<{ Body: Form }>('/login', async (request, reply) => {
    const form = request.body ?? {};
    const email = (form.email ?? '').trim().toLowerCase();
    const keys = [`ip|${request.ip}`, `account|${email}`];
    // Every attempt is counted first and given back if it succeeds: the limit holds exactly, even for attempts
    // racing on several replicas.
    const allowed = await Promise.all(keys.map((k) => ctx.loginLimiter.hit(k)));
    if (allowed.includes(false)) {
      reply.header('retry-after', String(ctx.loginLimiter.retryAfterSeconds()));
      return page(reply, request, 'Sign in', loginForm(`Too many failed sign-ins; try again in ${ctx.loginLimiter.retryAfterSeconds()} s.`, email, '/', ctx.options.openSignup), 429);
    }
    const user = await checkLogin(ctx.store, email, form.password ?? '');
    if (!user) return page(reply, request, 'Sign in', loginForm('Wrong email or password.', email, safeNext(form.next), ctx.options.openSignup), 401);
    await ctx.loginLimiter.giveBack(keys[0]!);
    await ctx.loginLimiter.reset(keys[1]!);
    return startSession(reply, user.id, form.next ?? '/');
  });

  app.post<{ Body: Form }>('/logout', async (request, reply) => {
    const cookie = request.cookies[SESSION_COOKIE];
    if (cookie && csrfOk(request, request.body?._csrf)) await endSession(ctx.store, cookie);
    reply.clearCookie(SESSION_COOKIE, { path: '/' });
    return reply.redirect('/', 303);
  });

  const expired = (request: FastifyRequest, reply: FastifyReply, why = '') => page(reply, request, 'Forbidden', html`<p class="problems">The form expired (CSRF check failed)${why}.</p>`, 403);
  /**
   * Keeps what a form made for the account page it redirects to (POST-redirect-GET): reloading that page sends
   * nothing again, and the secret is shown once — sealed under the session's cookie meanwhile (store/session-flash.ts).
   */
  const showOnAccountPage = async (request: FastifyRequest, reply: FastifyReply, flash: Flash) => {
    await putFlash(ctx.store, request.cookies[SESSION_COOKIE]!, flash);
    return reply.redirect('/account', 303);
  };

  app.get('/account', async (request, reply) => {
    if (!requireCaller(request, reply, false)) return reply;
    const [tokens, studies, benchmarks, flash] = await Promise.all([listTokens(ctx.store, request.caller.user.id), studiesOfAccount(ctx.store, request.caller.user.id), listBenchmarks(ctx.store), takeFlash(ctx.store, request.cookies[SESSION_COOKIE]!)]);
    const origin = ctx.options.publicUrl ?? `${request.protocol}://${request.host}`;
    // The page may hold a secret shown once: no cache may keep it, and Back does not show it again.
    reply.header('cache-control', 'no-store');
    return page(reply, request, 'Account', accountPage({ viewer: viewerOf(request)!, user: request.caller.user, tokens, studies, benchmarks, origin, flash }));
  });

  app.post<{ Body: Form }>('/account/tokens', async (request, reply) => {
    if (!requireCaller(request, reply, false)) return reply;
    if (!csrfOk(request, request.body?._csrf)) return expired(request, reply);
    const { name, token } = await createToken(ctx.store, request.caller.user.id, request.body?.name ?? 'token');
    return showOnAccountPage(request, reply, { kind: 'token', name, secret: token });
  });

  app.post<{ Body: Form }>('/account/invite', async (request, reply) => {
    if (!requireCaller(request, reply, false)) return reply;
    if (!csrfOk(request, request.body?._csrf) || !request.caller.user.team_id) return expired(request, reply, ', or you have no team');
    const code = await newInviteCode(ctx.store, request.caller.user.team_id);
    return showOnAccountPage(request, reply, { kind: 'invite', team: request.caller.user.team_name ?? '', secret: code });
  });

  app.post<{ Params: { id: string }; Body: Form }>('/account/tokens/:id/revoke', async (request, reply) => {
    if (!requireCaller(request, reply, false)) return reply;
    if (!csrfOk(request, request.body?._csrf)) return expired(request, reply);
    await revokeToken(ctx.store, request.caller.user.id, request.params.id);
    return reply.redirect('/account', 303);
  });
}
