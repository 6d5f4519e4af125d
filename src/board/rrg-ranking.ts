import type { RrgEntryMetrics } from './rrg-entries.js';

/** The metric a report-generation board ranks by and names first: ReXrank's. */
export const RRG_RANKING_METRIC = '1/RadCliQ-v1';

/** Why a report-generation entry scored without the model-based metrics has no rank. */
export const RRG_NOT_RANKED = `${RRG_RANKING_METRIC} not computed`;

/**
 * The value a report-generation row is ranked by, higher first, or null when it has no RadCliQ-v1. It is the
 * negated mean RadCliQ-v1: the same order as 1/RadCliQ-v1 for positive means, and a mean ≤ 0 (better than any
 * positive one, where the reciprocal would put it last) comes first. Never BLEU-2: an entry scored without the
 * model-based metrics is not ranked by another metric.
 */
export function rrgRankingKey(row: { metrics: unknown; reported: unknown }): number | null {
  const verified = row.metrics as RrgEntryMetrics | null;
  if (verified) return verified.ranking.by === 'bleu' || !verified.metrics.radcliq_v1 ? null : -verified.metrics.radcliq_v1.mean;
  const published = (row.reported as { inv_radcliq_v1?: number | null } | null)?.inv_radcliq_v1;
  return typeof published === 'number' && published > 0 ? -1 / published : null;
}

/** True when stored metrics are a report-generation entry's or a published report-generation row's. */
export function isRrgMetrics(metrics: unknown): boolean {
  const kind = (metrics as { kind?: unknown } | null)?.kind;
  return kind === 'rrg' || kind === 'rrg-reported';
}
