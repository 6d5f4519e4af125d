import { readFileSync } from 'node:fs';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import Fastify, { type FastifyInstance } from 'fastify';
import { DEFAULT_SCORE_SETTINGS } from '../board/score-submission.js';
import type { Store } from '../store/connect.js';
import { resolveCaller } from './auth.js';
import type { BoardContext, BoardOptions } from './context.js';
import { LeaderboardCache } from './leaderboard-cache.js';
import { WindowLimiter } from './rate-limit.js';
import { registerAccounts } from './routes/accounts.js';
import { registerAdmin } from './routes/admin.js';
import { registerApi } from './routes/api.js';
import { registerPages } from './routes/pages.js';

export const DEFAULT_BOARD_OPTIONS: BoardOptions = {
  maxUploadBytes: 100 * 1024 * 1024,
  loginAttempts: 10,
  loginWindowMs: 15 * 60_000,
  uploadsPerWindow: 30,
  uploadWindowMs: 60 * 60_000,
  secureCookies: false,
  score: DEFAULT_SCORE_SETTINGS,
  openSignup: true,
};

const STATIC: Record<string, { file: URL; type: string }> = {
  'board.css': { file: new URL('./public/board.css', import.meta.url), type: 'text/css; charset=utf-8' },
  'board.js': { file: new URL('./public/board.js', import.meta.url), type: 'text/javascript; charset=utf-8' },
};

// Scripts and styles only from this server; no inline script can run, whatever a text field holds.
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** Builds the board's fastify app over an open, migrated store. Tested in-process with inject(). */
export function createApp(store: Store, options: Partial<BoardOptions> = {}): FastifyInstance {
  const settings: BoardOptions = { ...DEFAULT_BOARD_OPTIONS, ...options };
  const app = Fastify({ logger: false, bodyLimit: 1024 * 1024, trustProxy: false });
  const ctx: BoardContext = {
    store, options: settings, boards: new LeaderboardCache(store),
    loginLimiter: new WindowLimiter(settings.loginAttempts, settings.loginWindowMs),
    uploadLimiter: new WindowLimiter(settings.uploadsPerWindow, settings.uploadWindowMs),
  };
  void app.register(cookie);
  void app.register(formbody);
  void app.register(multipart);
  app.decorateRequest('caller', null);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('content-security-policy', CSP).header('x-content-type-options', 'nosniff').header('referrer-policy', 'same-origin').header('x-frame-options', 'DENY');
    if (request.url.startsWith('/static/')) return;
    request.caller = await resolveCaller(store, request);
  });
  app.setErrorHandler((error: Error & { statusCode?: number }, request, reply) => {
    const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) request.log.error(error);
    const message = status === 413 ? 'the request is larger than the upload limit; nothing was stored' : status === 500 ? 'internal error' : error.message;
    void reply.code(status).send({ error: status === 500 ? 'internal' : 'bad-request', message });
  });
  app.get<{ Params: { name: string } }>('/static/:name', async (request, reply) => {
    const asset = STATIC[request.params.name];
    if (!asset) return reply.code(404).send('not found');
    return reply.type(asset.type).header('cache-control', 'public, max-age=3600').send(readFileSync(asset.file));
  });
  registerPages(app, ctx);
  registerAccounts(app, ctx);
  registerAdmin(app, ctx);
  registerApi(app, ctx);
  return app;
}
