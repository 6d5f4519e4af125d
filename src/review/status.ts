import type { ReviewDecision } from '../store/review-decisions.js';

/**
 * Where an item stands: `pending` until every assigned reviewer decided; then `retired` when all rejected,
 * `accepted` when all accepted, `edited` when every reviewer edited and the edits give the same record (or a single
 * reviewer edited), and `disputed` whenever the reviewers disagree — some rejected and some did not, one accepted
 * and another edited (the edit would go in without the other's consent), or two edits that differ (neither may
 * silently win). An admin's adjudication settles the item whatever the reviewers said.
 */
export type ItemStatus = 'pending' | 'accepted' | 'edited' | 'retired' | 'disputed';

/** Why reviewers of an item disagree, as the report names it. */
export type DisputeReason = 'reject vs accept' | 'reject vs edit' | 'reject vs accept and edit' | 'accept vs edit' | 'different edits';

export interface ItemResolution {
  status: ItemStatus;
  /** True when an adjudication decided it. */
  adjudicated: boolean;
  /** The record the item stands for now: the edit everyone agreed on (or the adjudication's), else the original. */
  record: Record<string, unknown>;
  /** Reasons of the rejections that count (the adjudication's, or every reviewer's). */
  reasons: string[];
  /** For a disputed item: what the reviewers disagree on; null otherwise. */
  dispute: DisputeReason | null;
  /** Reviewers' decisions made, of those assigned. */
  decided: number;
  assigned: number;
}

const latest = (rows: readonly ReviewDecision[]) => [...rows].sort((a, b) => a.updated_at.localeCompare(b.updated_at)).at(-1);

/** JSON with object keys sorted: two edits that give the same record compare equal whatever order their keys were written in. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

/** Resolves one item from its assigned reviewers (user ids), its decisions and its original record. */
export function resolveItem(assigned: readonly string[], decisions: readonly ReviewDecision[], original: Record<string, unknown>): ItemResolution {
  const own = decisions.filter((d) => d.adjudication === 0 && assigned.includes(d.user_id));
  const base = { adjudicated: false, record: original, reasons: [] as string[], dispute: null, decided: own.length, assigned: assigned.length };
  const ruling = latest(decisions.filter((d) => d.adjudication === 1));
  if (ruling) {
    const status: ItemStatus = ruling.decision === 'accept' ? 'accepted' : ruling.decision === 'edit' ? 'edited' : 'retired';
    return { ...base, status, adjudicated: true, record: ruling.decision === 'edit' && ruling.edited_json ? (JSON.parse(ruling.edited_json) as Record<string, unknown>) : original, reasons: ruling.reason ? [ruling.reason] : [] };
  }
  if (own.length < assigned.length || assigned.length === 0) return { ...base, status: 'pending' };
  const rejects = own.filter((d) => d.decision === 'reject');
  const accepts = own.filter((d) => d.decision === 'accept');
  const edits = own.filter((d) => d.decision === 'edit');
  const reasons = rejects.flatMap((d) => (d.reason ? [d.reason] : []));
  if (rejects.length === own.length) return { ...base, status: 'retired', reasons };
  if (rejects.length > 0) {
    const dispute: DisputeReason = accepts.length > 0 && edits.length > 0 ? 'reject vs accept and edit' : accepts.length > 0 ? 'reject vs accept' : 'reject vs edit';
    return { ...base, status: 'disputed', reasons, dispute };
  }
  if (edits.length === 0) return { ...base, status: 'accepted' };
  if (accepts.length > 0) return { ...base, status: 'disputed', dispute: 'accept vs edit' };
  const records = edits.map((d) => (d.edited_json ? (JSON.parse(d.edited_json) as Record<string, unknown>) : original));
  if (new Set(records.map(canonical)).size > 1) return { ...base, status: 'disputed', dispute: 'different edits' };
  return { ...base, status: 'edited', record: records[0]! };
}
