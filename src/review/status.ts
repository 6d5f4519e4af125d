import type { ReviewDecision } from '../store/review-decisions.js';

/**
 * Where an item stands: `pending` until every assigned reviewer decided; then `retired` when all rejected,
 * `disputed` when some rejected and some did not, `edited` when any edited (the latest edit wins), else
 * `accepted`. An admin's adjudication settles the item whatever the reviewers said.
 */
export type ItemStatus = 'pending' | 'accepted' | 'edited' | 'retired' | 'disputed';

export interface ItemResolution {
  status: ItemStatus;
  /** True when an adjudication decided it. */
  adjudicated: boolean;
  /** The record the item stands for now: the deciding edit's, else the original. */
  record: Record<string, unknown>;
  /** Reasons of the rejections that count (the adjudication's, or every reviewer's). */
  reasons: string[];
  /** Reviewers' decisions made, of those assigned. */
  decided: number;
  assigned: number;
}

const latest = (rows: readonly ReviewDecision[]) => [...rows].sort((a, b) => a.updated_at.localeCompare(b.updated_at)).at(-1);

/** Resolves one item from its assigned reviewers (user ids), its decisions and its original record. */
export function resolveItem(assigned: readonly string[], decisions: readonly ReviewDecision[], original: Record<string, unknown>): ItemResolution {
  const own = decisions.filter((d) => d.adjudication === 0 && assigned.includes(d.user_id));
  const base = { adjudicated: false, record: original, reasons: [] as string[], decided: own.length, assigned: assigned.length };
  const ruling = latest(decisions.filter((d) => d.adjudication === 1));
  if (ruling) {
    const status: ItemStatus = ruling.decision === 'accept' ? 'accepted' : ruling.decision === 'edit' ? 'edited' : 'retired';
    return { ...base, status, adjudicated: true, record: ruling.decision === 'edit' && ruling.edited_json ? (JSON.parse(ruling.edited_json) as Record<string, unknown>) : original, reasons: ruling.reason ? [ruling.reason] : [] };
  }
  if (own.length < assigned.length || assigned.length === 0) return { ...base, status: 'pending' };
  const rejects = own.filter((d) => d.decision === 'reject');
  const reasons = rejects.flatMap((d) => (d.reason ? [d.reason] : []));
  if (rejects.length > 0 && rejects.length < own.length) return { ...base, status: 'disputed', reasons };
  if (rejects.length === own.length) return { ...base, status: 'retired', reasons };
  const edit = latest(own.filter((d) => d.decision === 'edit' && d.edited_json));
  if (edit) return { ...base, status: 'edited', record: JSON.parse(edit.edited_json!) as Record<string, unknown> };
  return { ...base, status: 'accepted' };
}
