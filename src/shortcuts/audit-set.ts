import { detectLayout } from '../dataset/layout.js';
import { readQuestions } from '../dataset/read-dataset.js';
import { auditShortcuts, type ShortcutAudit } from './audit.js';
import type { LimitSummary } from './audit-card.js';
import type { BlindItem } from './guessers.js';
import { limitBlindAccuracy, overLimit } from './limit.js';

/**
 * The shortcut audit of any question set in the official layout (ReXVQA itself, or a set made elsewhere): every
 * split read, the guessers run, and with a share, whether they are under it — a set a user brings is measured,
 * never rewritten, so the limit here says which questions would have to go, not removes them.
 */
export async function auditQuestionSet(path: string, share: number | null): Promise<{ audit: ShortcutAudit; limit: LimitSummary | null; wouldRemove: { id: string; reason: string }[] }> {
  const items: BlindItem[] = [];
  for await (const q of readQuestions(detectLayout(path))) items.push({ id: q.id, split: q.split, studyId: q.studyId, task: q.task, text: q.text, options: q.options, answer: q.answer, images: q.images });
  const { audit } = await auditShortcuts(items);
  if (share === null) return { audit, limit: null, wouldRemove: [] };
  const over = overLimit(audit, share);
  const limited = over.length === 0 ? null : await limitBlindAccuracy(items, share);
  return { audit, limit: { share, removed: 0, over }, wouldRemove: limited?.removed ?? [] };
}
