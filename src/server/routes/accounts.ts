import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CxrError } from '../../core/errors.js';
import { checkLogin, createSession, createToken, createUser, endSession, listTokens, newInviteCode, revokeToken } from '../../store/accounts.js';
import { listBenchmarks, type Benchmark } from '../../store/benchmarks.js';
import { studiesOfAccount } from '../../store/study-readers.js';
import { csrfOk, requireCaller, SESSION_COOKIE, viewerOf } from '../auth.js';
import type { BoardContext } from '../context.js';
import { html, type Html } from '../views/html.js';
import { layout } from '../views/layout.js';

type Form = Record<string, string | undefined>;

function page(reply: FastifyReply, request: FastifyRequest, title: string, body: Html, status = 200): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(layout(title, viewerOf(request), body));
}

/** Only local paths: an open redirect would let a phishing link bounce through the board. */
function safeNext(next: string | undefined): string {
  return next && /^\/(?!\/)[^\s\\]*$/.test(next) ? next : '/';
}

function loginForm(message: string | null, email = '', next = '/'): Html {
  return html`<h1>Sign in</h1>${message ? html`<p class="problems" role="alert">${message}</p>` : ''}
<form method="post" action="/login" class="stack" id="login-form"><input type="hidden" name="next" value="${next}">
<label>Email <input type="email" name="email" value="${email}" required autocomplete="username"></label>
<label>Password <input type="password" name="password" required autocomplete="current-password"></label><button>Sign in</button></form>`;
}

function signupForm(message: string | null, values: Form = {}): Html {
  return html`<h1>Sign up</h1>${message ? html`<p class="problems" role="alert">${message}</p>` : ''}
<form method="post" action="/signup" class="stack" id="signup-form">
<label>Email <input type="email" name="email" value="${values.email ?? ''}" required autocomplete="username"></label>
<label>Display name <input name="displayName" value="${values.displayName ?? ''}" maxlength="80"></label>
<label>New team name (you can submit for it) <input name="team" value="${values.team ?? ''}" maxlength="80"></label>
<label>…or an invite code from a team member (join their team) <input name="invite" value="${values.invite ?? ''}" maxlength="80" autocomplete="off"></label>
<label>Password (at least 10 characters) <input type="password" name="password" required minlength="10" autocomplete="new-password"></label><button>Create account</button></form>`;
}

/**
 * A ready-to-paste curl command per open benchmark, for submitting by script: the board's address as people reach
 * it, the benchmark's slug, and the token just created (shown once, like the token itself) or $CXR_TOKEN — a
 * stored token is only its hash, and never printed.
 */
function submitCommands(origin: string, benchmarks: readonly Benchmark[], token: string | null): Html {
  const open = benchmarks.filter((b) => b.is_open);
  if (open.length === 0) return html``;
  const bearer = token ?? '$CXR_TOKEN';
  return html`<h2>Submit by script</h2><p class="help">${token ? 'With the new token' : 'With one of your tokens in the variable CXR_TOKEN'}; the model card's fields are listed on each benchmark's submit page.</p>
${open.map((b) => html`<p>${b.title}:</p><pre class="command" id="curl-${b.slug}"><code>curl -H "Authorization: Bearer ${bearer}" -F model='{"name": "My model"}' -F file=@${b.kind === 'rrg' ? 'reports.json' : 'rexrank-predictions.json'} ${origin}/api/benchmarks/${b.slug}/submissions</code></pre>`)}`;
}

/** Sign-up, sign-in (rate-limited), sign-out, and API tokens (shown once). */
export function registerAccounts(app: FastifyInstance, ctx: BoardContext): void {
  const startSession = async (reply: FastifyReply, userId: string, next: string) => {
    const { cookie } = await createSession(ctx.store, userId);
    reply.setCookie(SESSION_COOKIE, cookie, { path: '/', httpOnly: true, sameSite: 'lax', secure: ctx.options.secureCookies, maxAge: 14 * 86400 });
    return reply.redirect(safeNext(next), 303);
  };

  app.get('/signup', async (request, reply) => (ctx.options.openSignup ? page(reply, request, 'Sign up', signupForm(null)) : page(reply, request, 'Sign up', html`<p>Accounts are created by the board's administrators.</p>`, 403)));

  app.post<{ Body: Form }>('/signup', async (request, reply) => {
    if (!ctx.options.openSignup) return page(reply, request, 'Sign up', html`<p>Accounts are created by the board's administrators.</p>`, 403);
    const form = request.body ?? {};
    try {
      if (!form.team?.trim() && !form.invite?.trim()) return page(reply, request, 'Sign up', signupForm('give a new team name or an invite code', form), 400);
      const user = await createUser(ctx.store, { email: form.email ?? '', password: form.password ?? '', displayName: form.displayName ?? '', teamName: form.team ?? '', inviteCode: form.invite ?? '' });
      return await startSession(reply, user.id, '/account');
    } catch (error) {
      if (error instanceof CxrError) return page(reply, request, 'Sign up', signupForm(error.message, form), 400);
      throw error;
    }
  });

  app.get<{ Querystring: { next?: string } }>('/login', async (request, reply) => page(reply, request, 'Sign in', loginForm(null, '', safeNext(request.query.next))));

  app.post<{ Body: Form }>('/login', async (request, reply) => {
    const form = request.body ?? {};
    const email = (form.email ?? '').trim().toLowerCase();
    const keys = [`ip|${request.ip}`, `account|${email}`];
    // Every attempt is counted first and given back if it succeeds: the limit holds exactly, even for attempts
    // racing on several replicas.
    const allowed = await Promise.all(keys.map((k) => ctx.loginLimiter.hit(k)));
    if (allowed.includes(false)) {
      reply.header('retry-after', String(ctx.loginLimiter.retryAfterSeconds()));
      return page(reply, request, 'Sign in', loginForm(`Too many failed sign-ins; try again in ${ctx.loginLimiter.retryAfterSeconds()} s.`, email), 429);
    }
    const user = await checkLogin(ctx.store, email, form.password ?? '');
    if (!user) return page(reply, request, 'Sign in', loginForm('Wrong email or password.', email, safeNext(form.next)), 401);
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

  const accountPage = async (request: FastifyRequest & { caller: NonNullable<FastifyRequest['caller']> }, reply: FastifyReply, fresh: { name: string; token: string } | null, invite: string | null = null) => {
    const viewer = viewerOf(request)!;
    const [tokens, studies, benchmarks] = await Promise.all([listTokens(ctx.store, request.caller.user.id), studiesOfAccount(ctx.store, request.caller.user.id), listBenchmarks(ctx.store)]);
    const origin = ctx.options.publicUrl ?? `${request.protocol}://${request.host}`;
    return page(reply, request, 'Account', html`<h1>Account</h1><p>${request.caller.user.email} · team ${request.caller.user.team_name ?? '—'}</p>
${studies.length > 0 ? html`<h2>Reader studies you are invited to</h2><ul id="my-studies">${studies.map((st) => html`<li><a href="/read/${st.id}">${st.title}</a> <span class="meta">${st.revoked_at ? 'invitation withdrawn' : st.state === 'closed' ? 'closed' : st.submitted_at ? 'submitted' : 'open'}</span></li>`)}</ul>` : ''}
${fresh ? html`<div class="token" role="status"><p>New token "${fresh.name}" — copy it now, it is not shown again:</p><code id="new-token">${fresh.token}</code></div>` : ''}
<h2>API tokens</h2><div class="table-scroll"><table class="board" id="tokens"><thead><tr><th>Name</th><th>Starts with</th><th>Created</th><th>Last used</th><th></th></tr></thead><tbody>
${tokens.map((t) => html`<tr><td>${t.name}</td><td><code>${t.prefix}…</code></td><td>${t.created_at.slice(0, 10)}</td><td>${t.last_used_at?.slice(0, 16).replace('T', ' ') ?? '—'}</td>
<td>${t.revoked_at ? 'revoked' : html`<form method="post" action="/account/tokens/${t.id}/revoke"><input type="hidden" name="_csrf" value="${viewer.csrf}"><button>Revoke</button></form>`}</td></tr>`)}</tbody></table></div>
<form method="post" action="/account/tokens" class="inline" id="token-form"><input type="hidden" name="_csrf" value="${viewer.csrf}"><label>Name <input name="name" required maxlength="80"></label><button>Create token</button></form>
${request.caller.user.team_id ? submitCommands(origin, benchmarks, fresh?.token ?? null) : ''}
${request.caller.user.team_id ? html`<h2>Team invite</h2>${invite ? html`<div class="token" role="status"><p>Invite code for ${request.caller.user.team_name} — share it with teammates; it is not shown again, and a new one replaces it:</p><code id="invite-code">${invite}</code></div>` : ''}
<form method="post" action="/account/invite" class="inline" id="invite-form"><input type="hidden" name="_csrf" value="${viewer.csrf}"><button>New invite code</button></form>` : ''}`);
  };

  app.post<{ Body: Form }>('/account/invite', async (request, reply) => {
    if (!requireCaller(request, reply, false)) return reply;
    if (!csrfOk(request, request.body?._csrf) || !request.caller.user.team_id) return page(reply, request, 'Forbidden', html`<p class="problems">The form expired (CSRF check failed), or you have no team.</p>`, 403);
    const code = await newInviteCode(ctx.store, request.caller.user.team_id);
    reply.header('cache-control', 'no-store');
    return accountPage(request, reply, null, code);
  });

  app.get('/account', async (request, reply) => {
    if (!requireCaller(request, reply, false)) return reply;
    return accountPage(request, reply, null);
  });

  app.post<{ Body: Form }>('/account/tokens', async (request, reply) => {
    if (!requireCaller(request, reply, false)) return reply;
    if (!csrfOk(request, request.body?._csrf)) return page(reply, request, 'Forbidden', html`<p class="problems">The form expired (CSRF check failed).</p>`, 403);
    const name = request.body?.name ?? 'token';
    const { token } = await createToken(ctx.store, request.caller.user.id, name);
    reply.header('cache-control', 'no-store');
    return accountPage(request, reply, { name, token });
  });

  app.post<{ Params: { id: string }; Body: Form }>('/account/tokens/:id/revoke', async (request, reply) => {
    if (!requireCaller(request, reply, false)) return reply;
    if (!csrfOk(request, request.body?._csrf)) return page(reply, request, 'Forbidden', html`<p class="problems">The form expired (CSRF check failed).</p>`, 403);
    await revokeToken(ctx.store, request.caller.user.id, request.params.id);
    return reply.redirect('/account', 303);
  });
}
