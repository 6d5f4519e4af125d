import type { Benchmark } from '../store/benchmarks.js';
import { studyReport } from '../study/study-report.js';
import type { BoardContext } from './context.js';
import { html, plural, type Html } from './views/html.js';
import { ratersTable } from './views/study-host-views.js';

/**
 * The published reader studies of a benchmark as a section of its leaderboard — closed, created with readers told
 * their scores may go public, and published by the host when closing: the readers who answered every case (marked
 * human) and the models on exactly the study's items — a human and a model are compared only on the same cases. Made once per
 * version of the entries, the closed studies and their readers (a closed study's answers never change; added
 * runs are not shown here).
 */
export async function humanRowsSection(ctx: BoardContext, benchmark: Benchmark): Promise<Html> {
  const closed = await ctx.store.db.selectFrom('studies').selectAll().where('benchmark_id', '=', benchmark.id).where('state', '=', 'closed')
    .where('publish_scores', '=', 1).where('published_at', 'is not', null).orderBy('closed_at', 'asc').execute();
  if (closed.length === 0) return html``;
  const readers = await ctx.store.db.selectFrom('study_readers').select(['id', 'name', 'revoked_at']).where('study_id', 'in', closed.map((s) => s.id)).execute();
  // Everything the section shows that can change after closing: which readers count, and their names.
  const key = `humans|${closed.map((s) => `${s.id}@${s.closed_at}`).join(',')}|${readers.map((r) => `${r.id}:${r.name}:${r.revoked_at ?? ''}`).sort().join(',')}`;
  const made = ctx.boards.derived(benchmark.id, key, async () => {
    const sections: Html[] = [];
    for (const study of closed) {
      const { results } = await studyReport(ctx.store, study);
      sections.push(html`<h3>${study.title}</h3><p class="help">${plural(results.items, 'case')} drawn from this benchmark (seed ${String(study.seed)}); accuracy with Wilson 95% intervals on these cases only.</p>${ratersTable(results, `study-${study.id}`, { minCell: ctx.options.score.minPublicCell })}`);
    }
    return html`<section id="human-readers"><h2>Human readers</h2><p class="help">Readers of the board's reader studies whose hosts published their scores (readers are told before they start that they may be), those who answered every case, beside the models on exactly the same cases (not the whole test set, so not ranked with the table above). A cell of fewer than ${String(ctx.options.score.minPublicCell)} cases shows only its n: a smaller cell of hidden test items would tell which of them were answered right.</p>${sections}</section>`;
  });
  return made.catch((error: unknown) => {
    ctx.boards.forget(benchmark.id, key); // a failure is not kept: the next request tries again
    throw error;
  });
}
