import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { viewerOf } from '../auth.js';
import { html } from '../views/html.js';
import { layout } from '../views/layout.js';

const require = createRequire(import.meta.url);

/**
 * Swagger UI's own files (swagger-ui-dist, Apache-2.0), served from this server: the page works offline and
 * under the board's CSP (scripts and styles only from 'self'). `api-docs.js` and `api-docs.css` are ours: they start
 * Swagger UI on the board's own OpenAPI document and fix its text contrast.
 */
const ASSETS: Record<string, { file: string; type: string }> = {
  'swagger-ui-bundle.js': { file: require.resolve('swagger-ui-dist/swagger-ui-bundle.js'), type: 'application/javascript; charset=utf-8' },
  'swagger-ui.css': { file: require.resolve('swagger-ui-dist/swagger-ui.css'), type: 'text/css; charset=utf-8' },
  'api-docs.css': { file: fileURLToPath(new URL('../public/api-docs.css', import.meta.url)), type: 'text/css; charset=utf-8' },
  'api-docs.js': { file: fileURLToPath(new URL('../public/api-docs.js', import.meta.url)), type: 'application/javascript; charset=utf-8' },
};

/** The JSON API's description (/api/openapi.json) as a page people can read and try: /api/docs. */
export function registerApiDocs(app: FastifyInstance): void {
  const loaded = new Map<string, Buffer>();
  app.get<{ Params: { name: string } }>('/static/api-docs/:name', async (request, reply) => {
    const asset = Object.hasOwn(ASSETS, request.params.name) ? ASSETS[request.params.name]! : undefined;
    if (!asset) return reply.code(404).send({ error: 'not-found', message: 'no such file' });
    let content = loaded.get(request.params.name);
    if (!content) loaded.set(request.params.name, (content = readFileSync(asset.file)));
    return reply.type(asset.type).header('cache-control', 'public, max-age=3600').send(content);
  });

  app.get('/api/docs', async (request, reply) => {
    const body = html`<h1>Board API</h1>
<p>Every route of the JSON API with its parameters, bodies and answers, from <a href="/api/openapi.json">/api/openapi.json</a> (OpenAPI 3.1). Writes need an API token from your <a href="/account">account page</a>: choose <strong>Authorize</strong> below and paste it to try a route from this page.</p>
<noscript><p class="help">This page needs JavaScript; the description itself is <a href="/api/openapi.json">/api/openapi.json</a>.</p></noscript>
<div id="swagger-ui" data-spec="/api/openapi.json"></div>
<link rel="stylesheet" href="/static/api-docs/swagger-ui.css"><link rel="stylesheet" href="/static/api-docs/api-docs.css"><script src="/static/api-docs/swagger-ui-bundle.js" defer></script><script src="/static/api-docs/api-docs.js" defer></script>`;
    return reply.type('text/html; charset=utf-8').send(layout('API', viewerOf(request), body));
  });
}
