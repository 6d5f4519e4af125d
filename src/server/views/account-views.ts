import type { Benchmark } from '../../store/benchmarks.js';
import type { Flash } from '../../store/session-flash.js';
import type { Viewer } from './layout.js';
import { html, type Html } from './html.js';

/** What a sign-up or sign-in form had typed in it (never the password: it is not sent back to the browser). */
export type AccountForm = Record<string, string | undefined>;

/** A refusal at the top of a form, as a sentence. */
function problem(message: string | null): Html | string {
  return message ? html`<p class="problems" role="alert">${message[0]!.toUpperCase()}${message.slice(1)}</p>` : '';
}

/** The sign-in form; `signupOpen` offers the sign-up page to someone without an account. */
export function loginForm(message: string | null, email = '', next = '/', signupOpen = true): Html {
  return html`<h1>Sign in</h1>${problem(message)}
<form method="post" action="/login" class="stack" id="login-form"><input type="hidden" name="next" value="${next}">
<label>Email <input type="email" name="email" value="${email}" required autocomplete="username"></label>
<label>Password <input type="password" name="password" required autocomplete="current-password"></label><button>Sign in</button></form>
${signupOpen ? html`<p class="help">No account yet? <a href="/signup">Sign up</a>.</p>` : ''}`;
}

/**
 * The sign-up form. It says first what the board requires (store/accounts.ts, routes/accounts.ts): every account
 * signing up here starts a team or joins one by invite code. A refused form comes back with everything typed but
 * the password, and says so.
 */
export function signupForm(message: string | null, values: AccountForm = {}): Html {
  return html`<h1>Sign up</h1>
<p id="signup-needs">An account here belongs to a team: you need <strong>either a name for a new team</strong> (you become its first member)
<strong>or an invite code</strong> from a member of an existing team, who makes one on their account page. A team's submissions share its limits
and are shown on the leaderboards under the team's name.</p>${problem(message)}
<form method="post" action="/signup" class="stack" id="signup-form">
<label>Email <input type="email" name="email" value="${values.email ?? ''}" required autocomplete="username"></label>
<label>Display name (optional; shown to you, and to the hosts of studies and reviews you join; default: your email before the @) <input name="displayName" value="${values.displayName ?? ''}" maxlength="80"></label>
<label>New team name — to start a team (shown on the leaderboards) <input name="team" value="${values.team ?? ''}" maxlength="80"></label>
<label>…or an invite code — to join an existing team <input name="invite" value="${values.invite ?? ''}" maxlength="80" autocomplete="off"></label>
<label>Password (at least 10 characters)${message ? ' — type it again: a refused form never sends a password back' : ''} <input type="password" name="password" required minlength="10" maxlength="200" autocomplete="new-password"></label><button>Create account</button></form>
<p class="help">Already have an account? <a href="/login">Sign in</a>.</p>`;
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
  return html`<h2>Submit by script</h2><p class="help">${token ? 'With the new token' : 'With one of your tokens in the variable CXR_TOKEN'}. The model card is JSON: <code>name</code> is required; the other fields (organisation, url, paper, openWeights, parametersBillion, date, prompt, notes) are described under ModelCard in the <a href="/api/docs">API reference</a>. What you leave out is shown as “—” (not said).</p>
${open.map((b) => html`<p>${b.title}:</p><pre class="command" id="curl-${b.slug}"><code>curl -H "Authorization: Bearer ${bearer}" -F model='{"name": "My model"}' -F file=@${b.kind === 'rrg' ? 'reports.json' : 'rexrank-predictions.json'} ${origin}/api/benchmarks/${b.slug}/submissions</code></pre>`)}`;
}

/** What the account page shows. */
export interface AccountPage {
  viewer: Viewer;
  user: { email: string; team_id: string | null; team_name: string | null };
  tokens: readonly { id: string; name: string; prefix: string; created_at: string; revoked_at: string | null; last_used_at: string | null }[];
  studies: readonly { id: string; title: string; revoked_at: string | null; state: string; submitted_at: string | null }[];
  benchmarks: readonly Benchmark[];
  /** The board's address as people reach it, for the curl commands. */
  origin: string;
  /** A secret made by the form just sent (POST-redirect-GET), shown this once. */
  flash: Flash | null;
}

/** The account page: reader studies, API tokens (a new one shown once), the curl commands, and the team's invite code. */
export function accountPage(p: AccountPage): Html {
  const { viewer, user, flash } = p;
  const newToken = flash?.kind === 'token' ? flash : null;
  const invite = flash?.kind === 'invite' ? flash : null;
  const csrf = html`<input type="hidden" name="_csrf" value="${viewer.csrf}">`;
  return html`<h1>Account</h1><p>${user.email} · ${user.team_name ? html`team ${user.team_name}` : 'no team'}</p>
${user.team_id ? '' : html`<p class="notice" id="no-team">Your account belongs to no team, so it cannot submit to a benchmark (only teams can); reader studies and reviews need no team.</p>`}
${p.studies.length > 0 ? html`<h2>Reader studies you are invited to</h2><ul id="my-studies">${p.studies.map((st) => html`<li><a href="/read/${st.id}">${st.title}</a> <span class="meta">${st.revoked_at ? 'invitation withdrawn' : st.state === 'closed' ? 'closed' : st.submitted_at ? 'submitted' : 'open'}</span></li>`)}</ul>` : ''}
<h2>API tokens</h2>
${newToken ? html`<div class="token" role="status"><p>New token "${newToken.name}" — copy it now: this is the only time it is shown (the board keeps only its hash).</p><code id="new-token">${newToken.secret}</code></div>` : ''}
<p class="help">A token lets a script use the API as you (<a href="/api/docs">API reference</a>). It is shown once, when made; a lost token cannot be shown again: revoke it and make another.</p>
${p.tokens.length > 0 ? html`<div class="table-scroll"><table class="board" id="tokens"><thead><tr><th>Name</th><th>Starts with</th><th>Created</th><th>Last used</th><th></th></tr></thead><tbody>
${p.tokens.map((t) => html`<tr><td>${t.name}</td><td><code>${t.prefix}…</code></td><td>${t.created_at.slice(0, 10)}</td><td>${t.last_used_at?.slice(0, 16).replace('T', ' ') ?? '—'}</td>
<td>${t.revoked_at ? 'revoked' : html`<form method="post" action="/account/tokens/${t.id}/revoke">${csrf}<button>Revoke</button></form>`}</td></tr>`)}</tbody></table></div>` : html`<p class="empty" id="no-tokens">No tokens yet.</p>`}
<form method="post" action="/account/tokens" class="inline" id="token-form">${csrf}<label>Name (to tell your tokens apart) <input name="name" required maxlength="80"></label> <button>Create token</button></form>
${user.team_id ? submitCommands(p.origin, p.benchmarks, newToken?.secret ?? null) : ''}
${user.team_id ? html`<h2>Team invite</h2>
${invite ? html`<div class="token" role="status"><p>Invite code for ${invite.team} — share it with teammates, who give it when they sign up. This is the only time it is shown; it works until a new code is made.</p><code id="invite-code">${invite.secret}</code></div>` : ''}
<p class="help">Teammates join ${user.team_name} by signing up with an invite code. A team has one code at a time: making a new one stops the previous one from working.</p>
<form method="post" action="/account/invite" class="inline" id="invite-form">${csrf}<button>New invite code</button></form>` : ''}`;
}
