import { z } from 'zod';
import { CxrError } from '../core/errors.js';
import type { Store } from '../store/connect.js';
import { participantMessage, upsertReviewDecision } from '../store/review-decisions.js';
import { finalDecision, finalDecisionMessage } from '../store/review-others-seen.js';
import { assignedPositions, reviewItemAt } from '../store/reviews.js';
import { applyEdit, type Problem } from './edit.js';

/** Why a question is rejected: the paper's list (§3.3.3). "other" needs a note. */
export const REJECT_REASONS = {
  'several-valid-answers': 'Several valid answers',
  'comparison-content': 'Comparison content (needs a prior study)',
  'clinical-validity': 'Clinical validity',
  'hallucinated-finding': 'Hallucinated finding',
  'image-misalignment': 'Image misalignment',
  other: 'Other (say why in the note)',
} as const;
export type RejectReason = keyof typeof REJECT_REASONS;

/** The four 1–5 ratings, by their form (and column) name. */
export const RATINGS = {
  clinical_quality: 'Clinical quality',
  explanation_clarity: 'Explanation clarity',
  factual_correctness: 'Factual correctness',
  image_alignment: 'Image alignment',
} as const;
export type RatingName = keyof typeof RATINGS;

export const DIFFICULTIES = ['easy', 'medium', 'hard'] as const;
export const DECISIONS = ['accept', 'edit', 'reject'] as const;

const rating = (label: string) => z.number({ error: `${label}: choose a rating from 1 to 5` }).int(`${label}: a whole number from 1 to 5`).min(1, `${label}: from 1 to 5`).max(5, `${label}: from 1 to 5`);

/** What a rejection may leave out: the ratings and the difficulty judge a question that goes on, not one rejected. */
const ASSESSMENT = [...(Object.keys(RATINGS) as RatingName[]), 'difficulty'] as const;

/**
 * A reviewer's decision on one item, as the form and the library send it. The four ratings and the difficulty are
 * needed to accept or edit; a rejection may leave them out (null), and what it gives is checked the same way.
 */
export const DecisionInput = z.object({
  clinical_quality: rating(RATINGS.clinical_quality).nullish(),
  explanation_clarity: rating(RATINGS.explanation_clarity).nullish(),
  factual_correctness: rating(RATINGS.factual_correctness).nullish(),
  image_alignment: rating(RATINGS.image_alignment).nullish(),
  difficulty: z.enum(DIFFICULTIES, { error: 'Difficulty: choose easy, medium or hard' }).nullish(),
  category: z.string({ error: 'Category: give the question\'s category' }).trim().min(1, 'Category: give the question\'s category').max(120, 'Category: at most 120 characters'),
  decision: z.enum(DECISIONS, { error: 'Decision: choose accept, edit or reject' }),
  reason: z.enum(Object.keys(REJECT_REASONS) as [RejectReason, ...RejectReason[]], { error: 'Reason: choose one from the list' }).nullable().optional(),
  note: z.string().trim().max(2000, 'Note: at most 2000 characters').optional(),
  edited: z.object({
    question: z.string().max(4000, 'Question: at most 4000 characters'),
    options: z.array(z.string().max(1000, 'Options: at most 1000 characters each')).max(10, 'Options: four of them'),
    answer: z.string().max(10),
    explanation: z.string().max(8000, 'Explanation: at most 8000 characters'),
  }).optional(),
}).superRefine((d, ctx) => {
  if (d.decision !== 'reject') {
    for (const name of ASSESSMENT) {
      if (d[name] === null || d[name] === undefined) {
        const what = name === 'difficulty' ? 'Difficulty: choose easy, medium or hard' : `${RATINGS[name]}: choose a rating from 1 to 5`;
        ctx.addIssue({ code: 'custom', path: [name], message: `${what} (needed to accept or edit)` });
      }
    }
  }
  if (d.decision === 'reject' && !d.reason) ctx.addIssue({ code: 'custom', path: ['reason'], message: 'Reason: a rejection needs a reason from the list' });
  if (d.decision === 'reject' && d.reason === 'other' && !d.note) ctx.addIssue({ code: 'custom', path: ['note'], message: 'Note: say why the question is rejected ("other" needs a note)' });
  if (d.decision === 'edit' && !d.edited) ctx.addIssue({ code: 'custom', path: ['edited'], message: 'Edit: give the edited question' });
});
export type DecisionInput = z.infer<typeof DecisionInput>;

/** The form field a zod issue belongs to (edit fields are named edit_question, edit_options, …). */
function formField(path: readonly PropertyKey[]): string {
  if (path[0] === 'edited') return `edit_${String(path[1] ?? 'question')}`;
  return String(path[0] ?? 'decision');
}

/** Reads a decision from form fields (strings): ratings as numbers, the edit fields only when editing. */
export function decisionFromForm(form: Record<string, string | undefined>): unknown {
  const number = (v: string | undefined) => (v !== undefined && /^\d{1,2}$/.test(v) ? Number(v) : undefined);
  return {
    clinical_quality: number(form.clinical_quality),
    explanation_clarity: number(form.explanation_clarity),
    factual_correctness: number(form.factual_correctness),
    image_alignment: number(form.image_alignment),
    difficulty: form.difficulty || undefined,
    category: form.category ?? '',
    decision: form.decision || undefined,
    reason: form.reason || null,
    note: form.note,
    edited: form.decision === 'edit' ? { question: form.edit_question ?? '', options: ['a', 'b', 'c', 'd'].map((l) => form[`edit_${l}`] ?? ''), answer: form.edit_answer ?? '', explanation: form.edit_explanation ?? '' } : undefined,
  };
}

export type SaveResult = { saved: true } | { saved: false; problems: Problem[] };

/**
 * Saves a decision on item `position` of a queue: zod checks the form, an edit is checked with the loader's rules,
 * and only then is anything written (one transaction). Refusals of the input come back as problems, nothing
 * stored; an account that may not decide this item gets a CxrError (not-found: the item is not theirs to see;
 * conflict: an adjudication by one of its reviewers, or a change to a decision made final by seeing the others').
 */
export async function saveDecision(store: Store, reviewer: { id: string; email: string; isAdmin: boolean }, queueId: string, position: number, input: unknown, options: { adjudication?: boolean } = {}): Promise<SaveResult> {
  const adjudication = options.adjudication === true;
  const item = await reviewItemAt(store, queueId, position);
  const mine = item ? (await assignedPositions(store, queueId, reviewer.id)).includes(position) : false;
  if (!item || (adjudication ? !reviewer.isAdmin : !mine)) throw new CxrError('not-found', `item ${position + 1} of this queue is not ${adjudication ? 'open to you for adjudication' : 'assigned to you'}`);
  // Before the form is read: a reviewer of the item is refused whatever they typed, not asked to fix it first.
  if (adjudication && mine) throw new CxrError('conflict', participantMessage(position));
  const final = adjudication ? null : await finalDecision(store.db, queueId, position, reviewer.id);
  if (final) throw new CxrError('conflict', finalDecisionMessage(position, final));
  const parsed = DecisionInput.safeParse(input);
  if (!parsed.success) return { saved: false, problems: parsed.error.issues.map((i) => ({ field: formField(i.path), message: i.message })) };
  const d = parsed.data;
  let editedJson: string | null = null;
  if (d.decision === 'edit') {
    const result = applyEdit(JSON.parse(item.record_json) as Record<string, unknown>, d.edited!, { key: item.question_id, split: item.split });
    if ('problems' in result) return { saved: false, problems: result.problems };
    editedJson = JSON.stringify(result.record);
  }
  await upsertReviewDecision(store, { id: reviewer.id, email: reviewer.email }, queueId, position, adjudication, {
    clinical_quality: d.clinical_quality ?? null, explanation_clarity: d.explanation_clarity ?? null, factual_correctness: d.factual_correctness ?? null, image_alignment: d.image_alignment ?? null,
    difficulty: d.difficulty ?? null, category: d.category, decision: d.decision, reason: d.decision === 'reject' ? d.reason! : null, note: d.note ? d.note : null, edited_json: editedJson,
  });
  return { saved: true };
}
