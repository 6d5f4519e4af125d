import { audit } from '../store/audit.js';
import type { Benchmark } from '../store/benchmarks.js';
import type { Store } from '../store/connect.js';
import { completeSubmission, reserveSubmission } from '../store/submissions.js';
import { REPORTED_REXRANK_V2, type ReportedResult } from './reported.js';

/** Adds published results to a benchmark as reference rows ("reported, not verified here"), skipping names already there. */
export async function importReported(store: Store, actor: string, benchmark: Benchmark, results: readonly ReportedResult[] = REPORTED_REXRANK_V2): Promise<number> {
  const existing = await store.db.selectFrom('submissions').select('model_json').where('benchmark_id', '=', benchmark.id).where('kind', '=', 'reported').execute();
  const names = new Set(existing.map((s) => (JSON.parse(s.model_json) as { name: string }).name));
  let added = 0;
  for (const r of results) {
    if (names.has(r.model.name)) continue;
    const reserved = await reserveSubmission(store, { benchmarkId: benchmark.id, teamId: null, userId: null, kind: 'reported', fileName: '(published)', format: 'reported', content: '', modelJson: JSON.stringify(r.model) });
    if ('reason' in reserved) throw new Error(reserved.message);
    await completeSubmission(store, reserved.id, {
      benchmark_id: benchmark.id, metrics_json: JSON.stringify({ overall: r.overall, byTask: r.byTask, unparseable: r.unparseable, source: r.source }),
      rexrank_overall: r.overall, micro_accuracy: r.overall, n: 0, unparseable: r.unparseable, item_results: '',
    });
    added++;
  }
  await audit(store.db, actor, 'benchmark.import-reported', { slug: benchmark.slug, added });
  return added;
}
