import { CxrError } from '../core/errors.js';

/** Where a person accepts a dataset's terms: its page on the hub (or on the mirror HF_ENDPOINT names). */
export function datasetPage(endpoint: string, repo: string): string {
  return `${endpoint.replace(/\/+$/, '')}/datasets/${repo}`;
}

/** The hub's answer to a refused request: the status and, when it sends one, its X-Error-Code (GatedRepo, RepoNotFound…). */
export interface Refusal {
  status: number;
  errorCode?: string | null;
}

/**
 * Turns the hub's refusal into what the person must do, in words: no token, a token the hub does not accept,
 * terms not accepted (or access not yet granted), or no such repo. Never includes the token or a header.
 */
export function accessError(refusal: Refusal, ctx: { endpoint: string; repo: string; tokenEnv: string; hasToken: boolean; what: string }): CxrError {
  const page = datasetPage(ctx.endpoint, ctx.repo);
  const tokens = `${ctx.endpoint.replace(/\/+$/, '')}/settings/tokens`;
  const { status, errorCode } = refusal;
  if (status === 404 || errorCode === 'RepoNotFound' || errorCode === 'RevisionNotFound' || errorCode === 'EntryNotFound') {
    const gatedHint = ctx.hasToken ? '' : ` (a gated repo can look missing without a token: set ${ctx.tokenEnv})`;
    return new CxrError('hub-access', `${ctx.repo}: ${ctx.what} not found on ${ctx.endpoint} (HTTP ${status}${errorCode ? `, ${errorCode}` : ''})${gatedHint}. Check the revision and ${page}.`);
  }
  if (!ctx.hasToken && (status === 401 || status === 403)) {
    return new CxrError(
      'hub-access',
      `${ctx.repo} is gated and no token was given: accept its terms at ${page} (signed in), create a read token at ${tokens}, ` +
        `and put it in the ${ctx.tokenEnv} environment variable (or name another variable with --token-env).`,
    );
  }
  if (status === 401) {
    return new CxrError('hub-access', `${ctx.repo}: the hub did not accept the token in ${ctx.tokenEnv} (HTTP 401): it is invalid or revoked. Create a read token at ${tokens} and set ${ctx.tokenEnv} to it.`);
  }
  if (status === 403) {
    return new CxrError(
      'hub-access',
      `${ctx.repo}: the token in ${ctx.tokenEnv} has no access to this gated dataset (HTTP 403${errorCode ? `, ${errorCode}` : ''}): ` +
        `sign in as the token's owner, accept the terms at ${page} and wait for access to be granted, then rerun. ` +
        `A fine-grained token also needs "read access to contents of all public gated repos".`,
    );
  }
  return new CxrError('hub-unreachable', `${ctx.repo}: ${ctx.what} failed on ${ctx.endpoint} (HTTP ${status}); try again later.`);
}

/** True for a status that says who may read, not that the server had trouble: no retry helps it. */
export function isAccessRefusal(status: number): boolean {
  return status === 401 || status === 403 || status === 404;
}
