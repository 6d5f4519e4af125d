import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { CxrError } from '../core/errors.js';
import { audit } from '../store/audit.js';
import type { Benchmark } from '../store/benchmarks.js';
import type { Store } from '../store/connect.js';
import { completeSubmission, reserveSubmission } from '../store/submissions.js';

const Num = z.number().finite().nullable();
/** One published ReXrank V1.0 row, as test/fixtures/rexrank-v1/published.json holds them. */
const PublishedRow = z.object({
  dataset: z.string(), track: z.string(), model: z.string().min(1).max(120), organisation: z.string().max(120).nullable().optional(),
  bleu: Num, bertscore: Num, sembscore: Num, radgraph: Num, inv_radcliq_v1: Num, ratescore: Num.optional(), green: Num.optional(), inv_fineradscore: Num.optional(),
});
const PublishedFile = z.object({ source: z.object({ url: z.string() }).passthrough(), rows: z.array(PublishedRow) });

/**
 * Adds ReXrank's published report-generation rows of one dataset and track to a report-generation benchmark, as
 * rows "reported, not verified here" (listed, never ranked), skipping names already there. The file says where the
 * numbers come from; each row keeps that source.
 */
export async function importReportedRrg(store: Store, actor: string, benchmark: Benchmark, file: string, dataset: string, track: string): Promise<number> {
  if (benchmark.kind !== 'rrg') throw new CxrError('bad-option', `${benchmark.slug} is not a report-generation benchmark`);
  let parsed;
  try {
    parsed = PublishedFile.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  } catch (error) {
    throw new CxrError('unreadable-file', `${file}: ${(error as Error).message.slice(0, 160)}`);
  }
  if (!parsed.success) throw new CxrError('unreadable-file', `${file}: not a published-rows file (${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message})`);
  const rows = parsed.data.rows.filter((r) => r.dataset === dataset && r.track === track);
  if (rows.length === 0) throw new CxrError('bad-option', `${file}: no row for dataset "${dataset}", track "${track}" (datasets: ${[...new Set(parsed.data.rows.map((r) => r.dataset))].join(', ')}; tracks: ${[...new Set(parsed.data.rows.map((r) => r.track))].join(', ')})`);
  const existing = await store.db.selectFrom('submissions').select('model_json').where('benchmark_id', '=', benchmark.id).where('kind', '=', 'reported').execute();
  const names = new Set(existing.map((s) => (JSON.parse(s.model_json) as { name: string }).name));
  let added = 0;
  for (const r of rows) {
    if (names.has(r.model)) continue;
    // ReXrank's table does not say whose weights are open: not said (shown as "—"), never "no".
    const model = { name: r.model, openWeights: null, ...(r.organisation ? { organisation: r.organisation } : {}), notes: `published by ReXrank (${parsed.data.source.url}), ${dataset}, ${track}; not verified here` };
    const reserved = await reserveSubmission(store, { benchmarkId: benchmark.id, teamId: null, userId: null, kind: 'reported', fileName: '(published)', format: 'reported', content: '', modelJson: JSON.stringify(model) });
    if ('reason' in reserved) throw new Error(reserved.message);
    const columns = { kind: 'rrg-reported', bleu: r.bleu, bertscore: r.bertscore, sembscore: r.sembscore, radgraph: r.radgraph, inv_radcliq_v1: r.inv_radcliq_v1, ratescore: r.ratescore ?? null, green: r.green ?? null, inv_fineradscore: r.inv_fineradscore ?? null, source: parsed.data.source.url };
    await completeSubmission(store, reserved.id, { benchmark_id: benchmark.id, metrics_json: JSON.stringify(columns), rexrank_overall: r.inv_radcliq_v1 ?? 0, micro_accuracy: r.bleu ?? 0, n: 0, unparseable: 0, item_results: '' });
    added++;
  }
  await audit(store.db, actor, 'benchmark.import-reported-rrg', { slug: benchmark.slug, dataset, track, added });
  return added;
}
