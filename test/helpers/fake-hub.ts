import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A file of a stand-in repo: in git (small, listed with its blob sha1) or in LFS (listed with sha256, served by the CDN). */
export interface HubFile {
  path: string;
  content: Buffer;
  lfs: boolean;
}

/** A stand-in dataset repo at one commit. */
export interface HubRepo {
  name: string;
  sha: string;
  files: HubFile[];
  /** Gated: `resolve` needs a granted token (401 without one or with an unknown one, 403 with a known one not granted). */
  gated?: boolean;
}

/** One request either server saw. */
export interface SeenRequest {
  server: 'hub' | 'cdn';
  method: string;
  path: string;
  range: string | null;
  authorization: string | null;
}

/** Misbehaviour to inject into the CDN, per file path; each fires `times` times, then the file is served cleanly. */
export interface Faults {
  /** Flip one byte in the middle of the body. */
  corrupt: Map<string, number>;
  /** Send `afterBytes` of the body, then cut the connection. */
  drop: Map<string, { afterBytes: number; times: number }>;
  /** Send the body in 16 kB slices this many ms apart (0: at once). */
  throttleMs: number;
  /** Paths the CDN does not answer while they are here (a download that hangs: for kill tests). */
  hold: Set<string>;
  /** Paths whose Range header the CDN ignores, answering 200 with the whole file (a server without range support). */
  ignoreRange: Set<string>;
  /**
   * The generation of the CDN addresses `resolve` hands out: the CDN refuses (403, as S3 does once a signature has
   * expired) an address of an older one. Add one to expire every address handed out so far.
   */
  signature: number;
  /** After this many CDN answers, `signature` goes up by one (by itself, between two requests: no timing involved). */
  expireAfter: number | null;
}

/** The running stand-in: a hub on one 127.0.0.1 port and a CDN it redirects to on another. */
export interface FakeHub {
  url: string;
  cdnUrl: string;
  requests: SeenRequest[];
  faults: Faults;
  close(): Promise<void>;
}

// Memoised per buffer: the listing and every resolve and CDN answer name these hashes, and hashing a 256 MB part on
// each request made the stand-in, not the client under test, the slow side of bench/download-extract.ts.
const hashes = new WeakMap<Buffer, Map<string, string>>();
function memo(kind: string, b: Buffer, compute: () => string): string {
  let known = hashes.get(b);
  if (!known) hashes.set(b, (known = new Map()));
  let value = known.get(kind);
  if (value === undefined) known.set(kind, (value = compute()));
  return value;
}
const gitSha1 = (b: Buffer) => memo('git-sha1', b, () => createHash('sha1').update(`blob ${b.length}\0`).update(b).digest('hex'));
const sha256 = (b: Buffer) => memo('sha256', b, () => createHash('sha256').update(b).digest('hex'));
// An LFS file's git oid is that of its pointer file, as on the real hub (not of the content, which git never holds).
const lfsPointer = (b: Buffer) => Buffer.from(`version https://git-lfs.github.com/spec/v1\noid sha256:${sha256(b)}\nsize ${b.length}\n`);

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** Serves `content` honouring Range (bytes=N- and N-M), with the faults set for `path`. */
function serveBytes(req: IncomingMessage, res: ServerResponse, content: Buffer, path: string, faults: Faults): void {
  if (faults.hold.has(path)) return;
  let start = 0;
  let end = content.length - 1;
  const range = faults.ignoreRange.has(path) ? null : /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
  if (range) {
    start = Number(range[1]);
    if (range[2]) end = Math.min(Number(range[2]), end);
    if (start > end) {
      res.writeHead(416, { 'content-range': `bytes */${content.length}` });
      res.end();
      return;
    }
  }
  let body = content.subarray(start, end + 1);
  const corrupt = faults.corrupt.get(path) ?? 0;
  if (corrupt > 0 && body.length > 0) {
    faults.corrupt.set(path, corrupt - 1);
    body = Buffer.from(body);
    body[body.length >> 1]! ^= 0xff;
  }
  const headers: Record<string, string> = { 'content-length': String(body.length), 'accept-ranges': 'bytes', etag: `"${sha256(content)}"` };
  if (range) headers['content-range'] = `bytes ${start}-${end}/${content.length}`;
  res.writeHead(range ? 206 : 200, headers);
  const drop = faults.drop.get(path);
  if (drop && drop.times > 0) {
    drop.times--;
    // a moment after the bytes, so they reach the client before the cut (as a real mid-file drop does)
    res.write(body.subarray(0, drop.afterBytes), () => setTimeout(() => res.socket?.destroy(), 100));
    return;
  }
  if (faults.throttleMs <= 0) {
    res.end(body);
    return;
  }
  let at = 0;
  const tick = () => {
    if (res.destroyed) return;
    if (at >= body.length) return void res.end();
    res.write(body.subarray(at, at + 16384));
    at += 16384;
    setTimeout(tick, faults.throttleMs);
  };
  tick();
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * Starts a stand-in Hugging Face hub on 127.0.0.1 speaking what `data download` and @huggingface/hub use:
 * `GET /api/datasets/<repo>/revision/<rev>` (with `sha`), `GET /api/datasets/<repo>/tree/<rev>?recursive=true`
 * (paged by a Link header, LFS files with `lfs.oid` and `lfs.size`), and `GET /datasets/<repo>/resolve/<rev>/<path>`
 * (git files served here, LFS files by a 302 to a second server, the "CDN", which honours Range). `granted` tokens
 * may read gated repos; `known` tokens are valid but not granted.
 */
export async function startFakeHub(repos: HubRepo[], tokens: { granted: string[]; known?: string[] } = { granted: [] }, pageSize = 4): Promise<FakeHub> {
  const requests: SeenRequest[] = [];
  const faults: Faults = { corrupt: new Map(), drop: new Map(), throttleMs: 0, hold: new Set(), ignoreRange: new Set(), signature: 0, expireAfter: null };
  const blobs = new Map<string, HubFile>();
  for (const repo of repos) for (const f of repo.files) if (f.lfs) blobs.set(sha256(f.content), f);
  const seen = (server: 'hub' | 'cdn', req: IncomingMessage) =>
    requests.push({ server, method: req.method ?? '', path: decodeURIComponent((req.url ?? '').split('?')[0]!), range: req.headers.range ?? null, authorization: req.headers.authorization ?? null });

  const cdn = createServer((req, res) => {
    seen('cdn', req);
    const m = /^\/blob\/([0-9a-f]{64})$/.exec((req.url ?? '').split('?')[0]!);
    const file = m && blobs.get(m[1]!);
    if (!file) return json(res, 404, { error: 'no such blob' });
    const signed = new URL(req.url ?? '/', 'http://cdn').searchParams.get('X-Amz-Signature');
    if (signed !== `stand-in-${faults.signature}`) {
      res.writeHead(403, { 'content-type': 'application/xml' });
      res.end('<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>');
      return;
    }
    if (faults.expireAfter !== null && --faults.expireAfter === 0) faults.signature++, (faults.expireAfter = null);
    serveBytes(req, res, file.content, file.path, faults);
  });
  const cdnUrl = await listen(cdn);

  const hub = createServer((req, res) => {
    seen('hub', req);
    const url = new URL(req.url ?? '/', 'http://hub');
    const api = /^\/api\/datasets\/([^/]+\/[^/]+)\/(revision|tree)\/([^/]+)(?:\/(.*))?$/.exec(url.pathname);
    const resolve = /^\/datasets\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(url.pathname);
    const name = decodeURIComponent((api ?? resolve)?.[1] ?? '');
    const repo = repos.find((r) => r.name === name);
    if (!repo) return json(res, 404, { error: 'Repository not found' }, { 'x-error-code': 'RepoNotFound' });
    const rev = decodeURIComponent((api ? api[3] : resolve![2])!);
    if (rev !== 'main' && rev !== repo.sha) return json(res, 404, { error: `Invalid rev id: ${rev}` }, { 'x-error-code': 'RevisionNotFound' });
    const auth = req.headers.authorization?.replace(/^Bearer /, '');
    if (auth !== undefined && !tokens.granted.includes(auth) && !(tokens.known ?? []).includes(auth)) {
      return json(res, 401, { error: 'Invalid credentials in Authorization header' });
    }
    if (api && api[2] === 'revision') {
      return json(res, 200, { _id: `id-${repo.name}`, id: repo.name, sha: repo.sha, private: false, gated: repo.gated ? 'manual' : false, downloads: 0, likes: 0, lastModified: '2025-06-01T00:00:00.000Z' });
    }
    if (api) {
      const dirs = new Set<string>();
      for (const f of repo.files) for (let i = f.path.indexOf('/'); i > 0; i = f.path.indexOf('/', i + 1)) dirs.add(f.path.slice(0, i));
      const entries = [
        ...[...dirs].map((path) => ({ type: 'directory', oid: gitSha1(Buffer.from(path)), size: 0, path })),
        ...repo.files.map((f) => ({ type: 'file', oid: gitSha1(f.lfs ? lfsPointer(f.content) : f.content), size: f.lfs ? 134 : f.content.length, path: f.path, ...(f.lfs ? { lfs: { oid: sha256(f.content), size: f.content.length, pointerSize: 134 } } : {}) })),
      ];
      const cursor = Number(url.searchParams.get('cursor') ?? 0);
      const page = entries.slice(cursor, cursor + pageSize);
      const headers: Record<string, string> = {};
      if (cursor + pageSize < entries.length) {
        const next = new URL(`http://127.0.0.1:${(hub.address() as AddressInfo).port}${url.pathname}${url.search}`);
        next.searchParams.set('cursor', String(cursor + pageSize));
        headers.link = `<${next.href}>; rel="next"`;
      }
      return json(res, 200, page, headers);
    }
    const path = decodeURIComponent(resolve![3]!);
    const file = repo.files.find((f) => f.path === path);
    if (repo.gated && !tokens.granted.includes(auth ?? '')) {
      return auth === undefined
        ? json(res, 401, { error: `Access to dataset ${repo.name} is restricted. You must have access to it and be authenticated to access it. Please log in.` }, { 'x-error-code': 'GatedRepo' })
        : json(res, 403, { error: `Access to dataset ${repo.name} is restricted and you are not in the authorized list. Visit https://huggingface.co/datasets/${repo.name} to ask for access.` }, { 'x-error-code': 'GatedRepo' });
    }
    if (!file) return json(res, 404, { error: 'Entry not found' }, { 'x-error-code': 'EntryNotFound' });
    if (!file.lfs) return serveBytes(req, res, file.content, file.path, faults);
    res.writeHead(302, { location: `${cdnUrl}/blob/${sha256(file.content)}?X-Amz-Signature=stand-in-${faults.signature}`, 'x-linked-size': String(file.content.length), 'x-linked-etag': `"${sha256(file.content)}"` });
    res.end();
  });
  const url = await listen(hub);
  return {
    url,
    cdnUrl,
    requests,
    faults,
    close: async () => {
      for (const s of [hub, cdn]) {
        s.closeAllConnections();
        await new Promise((r) => s.close(r));
      }
    },
  };
}
