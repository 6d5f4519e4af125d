import { readFileSync } from 'node:fs';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { viaQueue } from '../board/submit.js';
import type { JobQueue } from '../jobs/queue.js';
import { DEFAULT_SCORE_SETTINGS } from '../board/score-submission.js';
import type { Store } from '../store/connect.js';
import { resolveCaller, viewerOf } from './auth.js';
import { startUploadCheckThread } from './check-pool.js';
import type { BoardContext, BoardOptions } from './context.js';
import { LeaderboardCache } from './leaderboard-cache.js';
import { ResponseMemo } from './response-memo.js';
import type { ChangeWatch } from '../store/change-watch.js';
import { WindowLimiter } from './rate-limit.js';
import { registerAccounts } from './routes/accounts.js';
import { registerAdmin } from './routes/admin.js';
import { registerApiDocs } from './routes/api-docs.js';
import { registerApi } from './routes/api.js';
import { registerPages } from './routes/pages.js';
import { registerStudyHost } from './routes/study-host.js';
import { registerStudyReader } from './routes/study-reader.js';
import { registerViewerAssets } from './viewer/bundle.js';
import { PixelCache } from './viewer/pixel-cache.js';
import { registerReview } from './routes/review.js';
import { CxrError, type CxrErrorCode } from '../core/errors.js';
import { registerRequestGuard } from './request-guard.js';
import { formatBytes } from './upload.js';
import { html } from './views/html.js';
import { layout } from './views/layout.js';


/** The HTTP status of a user-facing refusal that reached the error handler. */
const STATUS_OF_REFUSAL: Partial<Record<CxrErrorCode, number>> = { 'not-found': 404, conflict: 409, 'db-unreachable': 503, 'db-unmigrated': 503, 'db-migration': 503 };
/** A route as registered: its method and URL pattern (`/b/:slug`). */
export interface RouteSummary {
  method: string;
  url: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route of the board (HEAD, answered by GET, left out): what the fuzz tests walk, so none is missed. */
    routeTable: readonly RouteSummary[];
  }
}

export const DEFAULT_BOARD_OPTIONS: BoardOptions = {
  maxUploadBytes: 100 * 1024 * 1024,
  loginAttempts: 10,
  loginWindowMs: 15 * 60_000,
  uploadsPerWindow: 30,
  uploadWindowMs: 60 * 60_000,
  secureCookies: false,
  score: DEFAULT_SCORE_SETTINGS,
  openSignup: true,
  publicUrl: null,
  log: { level: 'info' },
};

const STATIC: Record<string, { file: URL; type: string }> = {
  'board.css': { file: new URL('./public/board.css', import.meta.url), type: 'text/css; charset=utf-8' },
  'reader.js': { file: new URL('./public/reader.js', import.meta.url), type: 'application/javascript; charset=utf-8' },
  'review.js': { file: new URL('./public/review.js', import.meta.url), type: 'application/javascript; charset=utf-8' },
};

/** The longest path parameter the router accepts (fastify's default): ids, slugs and tokens are far shorter. */
const MAX_PARAM_LENGTH = 100;

// Scripts and styles only from this server; no inline script can run, whatever a text field holds.
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/**
 * Builds the board's fastify app over an open, migrated store and the scoring queue it sends submissions to
 * (the app never scores). Tested in-process with inject().
 */
/** A URL as the request log shows it: the token of a reading link (`/r/<token>`) replaced. */
export function withoutSecrets(url: string): string {
  return url.replace(/^\/r\/[^/?#]+/, '/r/[redacted]');
}

/** Pages get HTML errors; the API (and scripts that ask for JSON) get JSON. */
function wantsHtml(request: FastifyRequest): boolean {
  return !request.url.startsWith('/api/') && !(request.headers.accept ?? '').includes('application/json');
}

function errorPage(request: FastifyRequest, status: number, message: string): string {
  const title = status === 404 ? 'Not found' : status >= 500 ? 'Something went wrong' : 'The request could not be served';
  return layout(title, viewerOf(request), html`<h1>${title}</h1><p class="problems" role="alert">${message}</p><p><a href="/">All benchmarks</a></p>`);
}

export function createApp(deps: { store: Store; queue: JobQueue; changes?: ChangeWatch }, options: Partial<BoardOptions> = {}): FastifyInstance {
  const { store, queue } = deps;
  // Without a watch (PostgreSQL needs its listener, started by the caller), SQLite's own token, else none.
  const changeToken = deps.changes ? () => deps.changes!.token() : (store.changeToken ?? (() => null));
  const settings: BoardOptions = { ...DEFAULT_BOARD_OPTIONS, ...options };
  /** Answers a failed request: a page or JSON, the client's mistakes (4xx) said plainly, anything else a 500 with its request id. */
  const answerError = (error: Error & { statusCode?: number; code?: string }, request: FastifyRequest, reply: FastifyReply) => {
    // A CxrError is a refusal meant for the user (its message is safe to show): a route that lets one escape still
    // answers with what it means — no such thing, a conflict, the database away — never a 500.
    const status = error instanceof CxrError ? STATUS_OF_REFUSAL[error.code] ?? 400
      : error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) request.log.error({ err: error }, 'request failed');
    else request.log.warn({ code: error.code, status }, error.message);
    const message =
      status === 500 ? `internal error (request ${request.id})`
      : error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? `the request body is larger than ${formatBytes(1024 * 1024)} (uploads go as multipart/form-data, up to ${formatBytes(settings.maxUploadBytes)}); nothing was stored`
      : error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' ? `content type ${request.headers['content-type'] ?? '(none)'} is not accepted here`
      // The router's own refusals quote the whole path: said here without it (it may be 100,000 characters).
      : error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? `a part of the path is longer than ${MAX_PARAM_LENGTH} characters; no name or id here is that long`
      : error.code === 'FST_ERR_BAD_URL' ? 'the path is not valid percent-encoding (a % must start a UTF-8 byte such as %C3%A9)'
      : error.message;
    if (wantsHtml(request)) return void reply.code(status).type('text/html; charset=utf-8').send(errorPage(request, status, message));
    void reply.code(status).send({ error: status === 500 ? 'internal' : error instanceof CxrError ? error.code : 'bad-request', message });
  };
  const app = Fastify({
    logger: {
      level: settings.log.level,
      ...(settings.log.stream ? { stream: settings.log.stream } : {}),
      // Requests are logged by method, URL, address and id; headers only to say they were there.
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'], censor: '[redacted]' },
      // A reading link's path is its secret: logged without the token.
      serializers: {
        req: (req: FastifyRequest) => ({ method: req.method, url: withoutSecrets(req.url), host: req.host, remoteAddress: req.ip, remotePort: req.socket?.remotePort }),
      },
    },
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    bodyLimit: 1024 * 1024,
    trustProxy: false,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: answerError,
  });
  const checker = startUploadCheckThread(store.connection);
  app.addHook('onClose', async () => checker.close());
  const ctx: BoardContext = {
    store, queue, dispatch: viaQueue(store, queue), intake: checker.intake, options: settings, boards: new LeaderboardCache(store, changeToken), pages: new ResponseMemo(changeToken),
    loginLimiter: new WindowLimiter(store, settings.loginAttempts, settings.loginWindowMs),
    uploadLimiter: new WindowLimiter(store, settings.uploadsPerWindow, settings.uploadWindowMs),
    pixels: new PixelCache(store),
  };
  void app.register(cookie);
  void app.register(formbody);
  void app.register(multipart);
  app.decorateRequest('caller', null);
  registerRequestGuard(app);
  const routes: RouteSummary[] = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) if (method !== 'HEAD') routes.push({ method, url: route.url });
  });
  app.decorate('routeTable', routes);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    reply.header('content-security-policy', CSP).header('x-content-type-options', 'nosniff').header('referrer-policy', 'same-origin').header('x-frame-options', 'DENY');
    if (request.url.startsWith('/static/')) return;
    request.caller = await resolveCaller(store, request);
  });
  app.setErrorHandler(answerError);
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    const shown = path.length > 80 ? `${path.slice(0, 80)}… (${path.length - 80} more characters)` : path;
    if (wantsHtml(request)) return reply.code(404).type('text/html; charset=utf-8').send(errorPage(request, 404, `There is no page at ${shown}.`));
    return reply.code(404).send({ error: 'not-found', message: `no route ${request.method} ${shown} (the API is described at /api/openapi.json)` });
  });
  app.get<{ Params: { name: string } }>('/static/:name', async (request, reply) => {
    // Own names only: `__proto__` or `constructor` would otherwise find the object's prototype.
    const asset = Object.hasOwn(STATIC, request.params.name) ? STATIC[request.params.name] : undefined;
    if (!asset) return reply.code(404).send('not found');
    return reply.type(asset.type).header('cache-control', 'public, max-age=3600').send(readFileSync(asset.file));
  });
  registerPages(app, ctx);
  registerAccounts(app, ctx);
  registerAdmin(app, ctx);
  registerApi(app, ctx);
  registerApiDocs(app);
  registerStudyHost(app, ctx);
  registerStudyReader(app, ctx);
  registerViewerAssets(app);
  registerReview(app, ctx);
  return app;
}
