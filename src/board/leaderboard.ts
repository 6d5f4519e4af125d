import { mcnemarExact } from '../score/compare.js';
import type { EntryTable } from '../store/schema.js';
import type { EntryMetrics } from './score-submission.js';
import type { ModelCard } from './model-card.js';

/** An entry as the store returns it (per-item results included: used here, never passed on). */
export type StoredEntry = Omit<EntryTable, 'benchmark_id'> & { kind: string; model_json: string; team_name: string | null };

/** One row of a public leaderboard. */
export interface LeaderboardRow {
  id: string;
  rank: number | null;
  /** Entries whose difference from the tier's leader is not significant share its tier; null for reported rows. */
  tier: number | null;
  pVsTierLeader: number | null;
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

/**
 * Orders entries by ReXrank overall (ties: micro accuracy, then age) and assigns tiers: walking down, an entry
 * joins the tier of the entry above when an exact McNemar test on the items both answered does not separate it
 * from that tier's leader at α = 0.05; otherwise it leads a new tier. Reported rows (no items) are listed by
 * their published overall, without rank or tier.
 */
export function buildLeaderboard(entries: readonly StoredEntry[]): LeaderboardRow[] {
  const verified = entries.filter((e) => e.kind !== 'reported')
    .sort((a, b) => (sameScore(a.rexrank_overall, b.rexrank_overall) ? 0 : b.rexrank_overall - a.rexrank_overall) || b.micro_accuracy - a.micro_accuracy || a.created_at.localeCompare(b.created_at));
  const rows: LeaderboardRow[] = [];
  let tier = 0;
  let leader: StoredEntry | null = null;
  // Competition ranking ("1, 2, 2, 4"): entries with the same ReXrank overall share a rank. Within a tie they are
  // listed by micro accuracy, then by who submitted first (TIE_BREAK).
  let rank = 0;
  verified.forEach((e, i) => {
    if (i === 0 || !sameScore(verified[i - 1]!.rexrank_overall, e.rexrank_overall)) rank = i + 1;
    let p: number | null = null;
    if (leader) p = pairedP(leader.item_results, e.item_results);
    if (!leader || p === null || p < TIER_ALPHA) {
      tier++;
      leader = e;
      p = null;
    }
    rows.push({
      id: e.submission_id, rank, tier, pVsTierLeader: p, model: JSON.parse(e.model_json) as ModelCard, team: e.team_name, kind: e.kind as LeaderboardRow['kind'],
      metrics: JSON.parse(e.metrics_json) as EntryMetrics, reported: null, overall: e.rexrank_overall, micro: e.micro_accuracy, n: e.n, unparseable: e.unparseable, createdAt: e.created_at,
    });
  });
  for (const e of entries.filter((x) => x.kind === 'reported').sort((a, b) => b.rexrank_overall - a.rexrank_overall)) {
    const reported = JSON.parse(e.metrics_json) as LeaderboardRow['reported'];
    rows.push({ id: e.submission_id, rank: null, tier: null, pVsTierLeader: null, model: JSON.parse(e.model_json) as ModelCard, team: e.team_name, kind: 'reported', metrics: null, reported, overall: e.rexrank_overall, micro: null, n: e.n, unparseable: e.unparseable, createdAt: e.created_at });
  }
  return rows;
}
