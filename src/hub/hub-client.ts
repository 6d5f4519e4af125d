import { datasetInfo, HubApiError, listFiles } from '@huggingface/hub';
import { CxrError } from '../core/errors.js';
import { accessError } from './access-error.js';
import type { ListedFile } from './selection.js';

/** How to reach the hub: its base URL (HF_ENDPOINT for a mirror) and the token, which stays in memory only. */
export interface HubConnection {
  endpoint: string;
  token: string | undefined;
  /** The environment variable the token came from, named in messages instead of the token. */
  tokenEnv: string;
}

const SHA = /^[0-9a-f]{40}$/;

function credentials(hub: HubConnection): { accessToken?: string } {
  if (hub.token === undefined) return {};
  // The client refuses other shapes with a TypeError; say it in words (and without echoing the value).
  if (!hub.token.startsWith('hf_')) throw new CxrError('hub-access', `${hub.tokenEnv} does not hold a Hugging Face token (they start with "hf_"); copy a read token from ${hub.endpoint.replace(/\/+$/, '')}/settings/tokens.`);
  return { accessToken: hub.token };
}

/** Maps a failure of a hub API call to a user error: refusals say what to do, a dead link says the hub is unreachable. */
function hubFailure(error: unknown, hub: HubConnection, repo: string, what: string): CxrError {
  if (error instanceof CxrError) return error;
  if (error instanceof HubApiError) return accessError({ status: error.statusCode }, { endpoint: hub.endpoint, repo, tokenEnv: hub.tokenEnv, hasToken: hub.token !== undefined, what });
  const reason = error instanceof Error ? ((error.cause as { code?: string } | undefined)?.code ?? error.message) : String(error);
  return new CxrError('hub-unreachable', `${repo}: ${what} failed, ${hub.endpoint} is unreachable (${reason}); check the network or HF_ENDPOINT and rerun.`);
}

/**
 * Resolves a branch or tag (default `main`) to its commit once, so every later request names the same commit and
 * a push made while hundreds of GB are fetched cannot mix two versions. A full 40-hex sha is still checked.
 */
export async function resolveRevision(hub: HubConnection, repo: string, revision = 'main'): Promise<string> {
  try {
    const info = await datasetInfo({ name: repo, revision, hubUrl: hub.endpoint, additionalFields: ['sha'], ...credentials(hub) });
    const sha = (info as { sha?: unknown }).sha;
    if (typeof sha !== 'string' || !SHA.test(sha)) throw new CxrError('hub-unreachable', `${repo}: the hub at ${hub.endpoint} answered revision ${revision} without a commit sha; is HF_ENDPOINT a Hugging Face hub?`);
    return sha;
  } catch (error) {
    throw hubFailure(error, hub, repo, `revision ${revision}`);
  }
}

/** Every file of a dataset repo at a commit, with its size and the hash the hub lists (LFS sha256, or git blob sha1). */
export async function listRepoFiles(hub: HubConnection, repo: string, revision: string): Promise<ListedFile[]> {
  const out: ListedFile[] = [];
  try {
    for await (const entry of listFiles({ repo: { type: 'dataset', name: repo }, revision, recursive: true, hubUrl: hub.endpoint, ...credentials(hub) })) {
      if (entry.type !== 'file') continue;
      out.push(entry.lfs ? { path: entry.path, size: entry.lfs.size, sha256: entry.lfs.oid } : { path: entry.path, size: entry.size, ...(entry.oid ? { gitSha1: entry.oid } : {}) });
    }
  } catch (error) {
    throw hubFailure(error, hub, repo, `listing files at ${revision}`);
  }
  return out;
}
