import { mcnemarExact } from '../score/compare.js';
import type { EntryTable } from '../store/schema.js';
import type { EntryMetrics } from './score-submission.js';
import type { ModelCard } from './model-card.js';
import { isRrgMetrics, RRG_NOT_RANKED, rrgRankingKey } from './rrg-ranking.js';

/** An entry as the store returns it (per-item results included: used here, never passed on). */
export type StoredEntry = Omit<EntryTable, 'benchmark_id'> & { kind: string; model_json: string; team_name: string | null };

/** One row of a public leaderboard. */
export interface LeaderboardRow {
  id: string;
  /** Null for reported rows and for entries the board's ranking metric was not computed for (see `unranked`). */
  rank: number | null;
  /** Entries whose difference from the tier's leader is not significant share its tier; null where there are no tiers. */
  tier: number | null;
  pVsTierLeader: number | null;
  /** Why a verified entry has no rank (e.g. "1/RadCliQ-v1 not computed"); null for ranked and reported rows. */
  unranked: string | null;
  model: ModelCard;
  team: string | null;
  kind: 'participant' | 'baseline' | 'reported';
  metrics: EntryMetrics | null;
  reported: { overall: number; byTask: Record<string, number>; unparseable: number } | null;
  overall: number;
  micro: number | null;
  n: number;
  unparseable: number;
  createdAt: string;
}

export const TIER_ALPHA = 0.05;

/** How entries with the same overall score are listed (they share a rank). */
export const TIE_BREAK = 'Entries with the same overall share a rank; within a tie they are listed by micro accuracy, then by the earlier submission.';

/** Scores equal up to floating-point noise (means of the same fractions computed in another order). */
function sameScore(a: number, b: number): boolean {
  return Math.abs(a - b) < 1e-9;
}

/** Exact McNemar p-value between two entries' per-item results (same positions). */
function pairedP(a: string, b: string): number {
  let onlyA = 0;
  let onlyB = 0;
  for (let i = 0; i < a.length && i < b.length; i++) {
    const ra = a.charCodeAt(i) === 99; // 'c'
    const rb = b.charCodeAt(i) === 99;
    if (ra && !rb) onlyA++;
    else if (rb && !ra) onlyB++;
  }
  return mcnemarExact(onlyA, onlyB);
}

function rowOf(e: StoredEntry): LeaderboardRow {
  const reported = e.kind === 'reported';
  const metrics = JSON.parse(e.metrics_json) as unknown;
  return {
    id: e.submission_id, rank: null, tier: null, pVsTierLeader: null, unranked: null, model: JSON.parse(e.model_json) as ModelCard, team: e.team_name, kind: e.kind as LeaderboardRow['kind'],
    metrics: reported ? null : (metrics as EntryMetrics), reported: reported ? (metrics as LeaderboardRow['reported']) : null,
    overall: e.rexrank_overall, micro: reported ? null : e.micro_accuracy, n: e.n, unparseable: e.unparseable, createdAt: e.created_at,
  };
}

interface Placed {
  e: StoredEntry;
  row: LeaderboardRow;
  /** The row's value of the board's ranking metric, higher first; null when it has none. */
  key: number | null;
}

/** Higher value first; equal values (up to noise) by micro accuracy (BLEU-2 on a report-generation board), then the earlier submission. */
function byValueThenMicro(value: (p: Placed) => number) {
  return (a: Placed, b: Placed) => (sameScore(value(a), value(b)) ? 0 : value(b) - value(a)) || b.e.micro_accuracy - a.e.micro_accuracy || a.e.created_at.localeCompare(b.e.created_at);
}

/**
 * Builds a board's rows in the order shown. A board ranks only by the metric it names first: ReXrank overall for
 * a question benchmark, 1/RadCliQ-v1 for a report-generation one (rrg-ranking.ts). In order:
 * 1. the ranked entries, by that metric (ties share a rank; TIE_BREAK). On a question benchmark, tiers: walking
 *    down, an entry joins the tier of the entry above when an exact McNemar test on the items both answered does
 *    not separate it from that tier's leader at α = 0.05; otherwise it leads a new tier;
 * 2. reported rows (published, no items) with a value of the metric, by it, without rank or tier;
 * 3. every row without a value of the metric, by BLEU-2 — an entry scored without the metric is never ranked by
 *    another one nor placed above a row that has it; `unranked` says why.
 */
export function buildLeaderboard(entries: readonly StoredEntry[]): LeaderboardRow[] {
  const rows = entries.map((e) => ({ e, row: rowOf(e) }));
  const rrg = rows.some(({ row }) => isRrgMetrics(row.metrics ?? row.reported));
  const placed: Placed[] = rows.map(({ e, row }) => ({ e, row, key: rrg ? rrgRankingKey(row) : e.rexrank_overall }));
  const byKey = byValueThenMicro((p) => p.key!);
  const ranked = placed.filter((p) => p.e.kind !== 'reported' && p.key !== null).sort(byKey);
  const reported = placed.filter((p) => p.e.kind === 'reported' && p.key !== null).sort(byKey);
  const without = placed.filter((p) => p.key === null).sort(byValueThenMicro(() => 0));
  let tier = 0;
  let leader: StoredEntry | null = null;
  // Competition ranking ("1, 2, 2, 4"): entries with the same value share a rank.
  let rank = 0;
  ranked.forEach(({ e, row, key }, i) => {
    if (i === 0 || !sameScore(ranked[i - 1]!.key!, key!)) rank = i + 1;
    row.rank = rank;
    // Tiers need per-item results: a report-generation entry's scores are continuous, it has none.
    if (rrg) return;
    let p: number | null = null;
    if (leader) p = pairedP(leader.item_results, e.item_results);
    if (!leader || p === null || p < TIER_ALPHA) {
      tier++;
      leader = e;
      p = null;
    }
    row.tier = tier;
    row.pVsTierLeader = p;
  });
  for (const { e, row } of without) if (e.kind !== 'reported') row.unranked = RRG_NOT_RANKED;
  return [...ranked, ...reported, ...without].map((p) => p.row);
}
