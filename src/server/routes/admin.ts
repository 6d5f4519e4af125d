import type { FastifyInstance } from 'fastify';
import { auditLog } from '../../store/audit.js';
import { listBenchmarks, setBenchmarkOpen } from '../../store/benchmarks.js';
import { csrfOk, requireCaller, viewerOf } from '../auth.js';
import type { BoardContext } from '../context.js';
import { html } from '../views/html.js';
import { layout } from '../views/layout.js';

/** Admin pages: open or close benchmarks, and read the audit log of admin actions. */
export function registerAdmin(app: FastifyInstance, ctx: BoardContext): void {
  app.get('/admin', async (request, reply) => {
    if (!requireCaller(request, reply, false)) return reply;
    if (request.caller.user.is_admin !== 1) return reply.code(403).type('text/html; charset=utf-8').send(layout('Forbidden', viewerOf(request), html`<h1>Administrators only</h1>`));
    const viewer = viewerOf(request)!;
    const [benchmarks, log] = await Promise.all([listBenchmarks(ctx.store), auditLog(ctx.store.db)]);
    return reply.type('text/html; charset=utf-8').send(layout('Admin', viewer, html`<h1>Administration</h1>
<div class="table-scroll"><table class="board"><thead><tr><th>Benchmark</th><th>Version</th><th>Items</th><th>Limits (day / total)</th><th>State</th></tr></thead><tbody>
${benchmarks.map((b) => html`<tr><td>${b.slug}</td><td>${b.version}</td><td>${b.item_count}</td><td>${b.daily_limit} / ${b.total_limit}</td><td>
<form method="post" action="/admin/benchmarks/${b.slug}/${b.is_open ? 'close' : 'open'}"><input type="hidden" name="_csrf" value="${viewer.csrf}">${b.is_open ? 'open' : 'closed'} <button>${b.is_open ? 'Close' : 'Open'}</button></form></td></tr>`)}
</tbody></table></div><h2>Audit log</h2><div class="table-scroll"><table class="board" id="audit"><thead><tr><th>When</th><th>Who</th><th>Action</th><th>Details</th></tr></thead><tbody>
${log.map((a) => html`<tr><td>${a.at.slice(0, 19).replace('T', ' ')}</td><td>${a.actor}</td><td>${a.action}</td><td><code>${a.detail_json}</code></td></tr>`)}</tbody></table></div>`));
  });

  app.post<{ Params: { slug: string; action: string }; Body: Record<string, string> }>('/admin/benchmarks/:slug/:action', async (request, reply) => {
    if (!requireCaller(request, reply, false)) return reply;
    if (request.caller.user.is_admin !== 1 || !csrfOk(request, request.body?._csrf) || !['open', 'close'].includes(request.params.action)) return reply.code(403).send('forbidden');
    await setBenchmarkOpen(ctx.store, request.caller.user.email, request.params.slug, request.params.action === 'open');
    return reply.redirect('/admin', 303);
  });
}
