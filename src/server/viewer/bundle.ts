import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import zlib, { brotliCompress, gzip } from 'node:zlib';
import type { PluginBuild } from 'esbuild';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * What the viewer needs beyond the board's CSP: nothing. Cornerstone's stack viewport renders on a canvas (CPU) or
 * WebGL without starting workers or wasm (the tools' compute worker is only for segmentation, unused here), its
 * inline styles are set through the DOM (allowed under style-src 'self'), and the one thing that would need more —
 * tool cursors loaded from blob: URLs (img-src blob:) — is switched off in viewer-entry.ts.
 */
export const VIEWER_CSP_ADDITIONS = '';

const here = dirname(fileURLToPath(import.meta.url));
// From src/ under tsx the entry is TypeScript; from an installed package (dist/) it is tsc's JavaScript of it.
const ENTRY = [join(here, 'viewer-entry.ts'), join(here, 'viewer-entry.js')].find((p) => existsSync(p)) ?? join(here, 'viewer-entry.ts');
const CSS = join(here, 'viewer.css');
// Packages whose versions change the bundle's content; the esbuild options below are covered by BUILD_VERSION.
const PACKAGES = ['esbuild', '@cornerstonejs/core', '@cornerstonejs/tools', '@cornerstonejs/utils', '@cornerstonejs/metadata', '@kitware/vtk.js'];
const BUILD_VERSION = '1';

/** The node_modules folder the viewer's packages are installed in (the nearest one above this file that has them). */
function nodeModules(): string {
  for (let dir = here; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules');
    if (existsSync(join(candidate, '@cornerstonejs', 'core'))) return candidate;
    if (dirname(dir) === dir) throw new Error('@cornerstonejs/core is not installed (npm install)');
  }
}

function version(modules: string, name: string): string {
  try {
    return (JSON.parse(readFileSync(join(modules, name, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'absent';
  }
}

export interface ViewerBundle {
  code: string;
  /** Content hash of the inputs, used as the ETag and the disk cache's file name. */
  hash: string;
  /** How the bundle was obtained this time and how long it took. */
  source: 'built' | 'disk-cache';
  ms: number;
}

let memo: Promise<ViewerBundle> | undefined;

/**
 * vtk.js's XML readers (imported by cornerstone's mesh cache and orientation marker, neither used here) pull in
 * xmlbuilder2, which needs Node's `events` and `url`. The viewer never reads VTK XML, so the import is a stub.
 */
const withoutXml = {
  name: 'cxrbench-without-xml',
  setup(build: PluginBuild) {
    build.onResolve({ filter: /^xmlbuilder2$/ }, () => ({ path: 'xmlbuilder2', namespace: 'cxrbench-stub' }));
    build.onLoad({ filter: /.*/, namespace: 'cxrbench-stub' }, () => ({
      contents: 'export function create() { throw new Error("the viewer bundle does not read VTK XML files"); }',
      loader: 'js' as const,
    }));
  },
};

async function buildOrLoad(): Promise<ViewerBundle> {
  const started = performance.now();
  const modules = nodeModules();
  const entrySource = await readFile(ENTRY, 'utf8');
  const key = createHash('sha256').update(BUILD_VERSION).update(entrySource).update(PACKAGES.map((p) => `${p}@${version(modules, p)}`).join());
  // npm's record of the installed tree also changes when a transitive dependency (d3, gl-matrix, dcmjs…) moves.
  const installed = join(modules, '.package-lock.json');
  if (existsSync(installed)) key.update(await readFile(installed));
  const hash = key.digest('hex').slice(0, 20);
  const cacheDir = join(modules, '.cache', 'cxrbench-viewer');
  const cached = join(cacheDir, `viewer-${hash}.js`);
  try {
    return { code: await readFile(cached, 'utf8'), hash, source: 'disk-cache', ms: performance.now() - started };
  } catch {
    // not cached yet: build below
  }
  // Loaded only when a build is needed, so a warm start never starts esbuild's service.
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [ENTRY],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome109', 'firefox115', 'safari16'],
    minify: true,
    // Keeps the libraries' licence notices (cornerstone MIT, vtk.js BSD) in the served file.
    legalComments: 'eof',
    write: false,
    logLevel: 'silent',
    define: { 'process.env.NODE_ENV': '"production"' },
    plugins: [withoutXml],
  });
  const code = result.outputFiles[0]!.text;
  try {
    await mkdir(cacheDir, { recursive: true });
    // Written under a temporary name and renamed, so a concurrent server never reads half a file.
    const temporary = `${cached}.${process.pid}.tmp`;
    await writeFile(temporary, code);
    await rename(temporary, cached);
    for (const name of await readdir(cacheDir)) if (name !== `viewer-${hash}.js` && !name.endsWith('.tmp')) await rm(join(cacheDir, name), { force: true });
  } catch {
    // a read-only install still serves the bundle from memory
  }
  return { code, hash, source: 'built', ms: performance.now() - started };
}

/** The viewer's bundle with its hash: built with esbuild on first use, then kept in memory and on disk. */
export function viewerBundleInfo(): Promise<ViewerBundle> {
  memo ??= buildOrLoad().catch((error: unknown) => {
    memo = undefined; // a failed build is retried on the next request
    throw error;
  });
  return memo;
}

/** The viewer's JavaScript (an ES module). */
export async function viewerBundle(): Promise<string> {
  return (await viewerBundleInfo()).code;
}

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);
const compressed = new Map<string, Promise<Buffer>>();

/**
 * The bundle is ~3.7 MB of minified JavaScript (cornerstone + vtk.js); compressed once per process it goes out as
 * ~0.9 MB (brotli) or ~1 MB (gzip). Brotli quality 9: a few hundred ms once, against 6–7 s for quality 11.
 */
function encoded(bundle: ViewerBundle, encoding: 'br' | 'gzip'): Promise<Buffer> {
  const key = `${bundle.hash}.${encoding}`;
  let result = compressed.get(key);
  if (!result) {
    result = encoding === 'br'
      ? brotli(bundle.code, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 9, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bundle.code.length } })
      : gzipped(bundle.code, { level: 6 });
    compressed.set(key, result);
  }
  return result;
}

function acceptedEncoding(request: FastifyRequest): 'br' | 'gzip' | undefined {
  const accepted = String(request.headers['accept-encoding'] ?? '').toLowerCase().split(',')
    .filter((part) => !/;\s*q=0(\.0*)?\s*$/.test(part)) // "br;q=0" refuses brotli
    .map((part) => part.split(';')[0]!.trim());
  return accepted.includes('br') ? 'br' : accepted.includes('gzip') ? 'gzip' : undefined;
}

function cacheHeaders(request: FastifyRequest, reply: FastifyReply, type: string, etag: string): boolean {
  reply.header('cache-control', 'public, max-age=3600').header('etag', etag).type(type);
  return request.headers['if-none-match'] === etag;
}

/** Serves /static/viewer.js and /static/viewer.css (the viewer needs no workers, wasm or other files). */
export function registerViewerAssets(app: FastifyInstance): void {
  app.get('/static/viewer.js', async (request, reply) => {
    const bundle = await viewerBundleInfo();
    reply.header('vary', 'accept-encoding');
    if (cacheHeaders(request, reply, 'application/javascript; charset=utf-8', `"${bundle.hash}"`)) return reply.code(304).send();
    const encoding = acceptedEncoding(request);
    if (!encoding) return reply.send(bundle.code);
    return reply.header('content-encoding', encoding).send(await encoded(bundle, encoding));
  });
  let css: { body: Buffer; etag: string } | undefined;
  app.get('/static/viewer.css', async (request, reply) => {
    css ??= (() => {
      const body = readFileSync(CSS);
      return { body, etag: `"${createHash('sha256').update(body).digest('hex').slice(0, 20)}"` };
    })();
    if (cacheHeaders(request, reply, 'text/css; charset=utf-8', css.etag)) return reply.code(304).send();
    return reply.send(css.body);
  });
}
