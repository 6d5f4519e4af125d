import { LETTERS } from '../../core/question.js';
import { MIN_EXPLANATION_LENGTH } from '../../dataset/normalize.js';
import { DIFFICULTIES, RATINGS, REJECT_REASONS, type RatingName } from '../../review/decision.js';
import { editableText, type Problem, type QuestionEdit } from '../../review/edit.js';
import type { DisputeReason, ItemStatus } from '../../review/status.js';
import type { ReviewDecision } from '../../store/review-decisions.js';
import { finalDecisionReason, type OthersSeen } from '../../store/review-others-seen.js';
import type { ReviewQueue } from '../../store/reviews.js';
import type { StoredView } from '../../store/studies.js';
import { attributes, html, type Html } from './html.js';
import { viewerFigures } from './reader-views.js';

const csrfField = (csrf: string) => html`<input type="hidden" name="_csrf" value="${csrf}">`;

/** A signed-in account's queues (to review) and, for admins, every queue with a link to its report. */
export function reviewsPage(mine: (ReviewQueue & { assigned: number; decided: number })[], all: (ReviewQueue & { items: number; assignments: number; decisions: number })[] | null): Html {
  return html`<h1>Expert review</h1>
<h2>Your queues</h2>
${mine.length === 0 ? html`<p class="empty">No question is assigned to you for review.</p>` : html`<table class="board" id="my-queues"><thead><tr><th>Queue</th><th class="num">Assigned to you</th><th class="num">Decided</th><th>Created</th></tr></thead><tbody>
${mine.map((q) => html`<tr><td><a href="/reviews/${q.id}">${q.title}</a></td><td class="num">${q.assigned}</td><td class="num">${q.decided}</td><td>${q.created_at.slice(0, 10)}</td></tr>`)}</tbody></table>`}
${all ? html`<h2>All queues</h2><p class="help">Queues are made with <code>cxrbench review create</code> from a question set or a generated set's <code>review-sample.jsonl</code> (see docs/review.md).</p>
${all.length === 0 ? html`<p class="empty">No review queue yet.</p>` : html`<table class="board" id="all-queues"><thead><tr><th>Queue</th><th class="num">Questions</th><th class="num">Decisions</th><th>Report</th></tr></thead><tbody>
${all.map((q) => html`<tr><td><a href="/reviews/${q.id}">${q.title}</a></td><td class="num">${q.items}</td><td class="num">${q.decisions} / ${q.assignments}</td><td><a href="/reviews/${q.id}/report" aria-label="Report of ${q.title}">Report</a></td></tr>`)}</tbody></table>`}` : ''}`;
}

/** One row of a queue's item list. */
export interface QueueRow {
  k: number;
  questionId: string;
  question: string;
  /** The viewer's own decision, or the item's status for an admin who does not review it. */
  state: string;
}

/** The items of a queue the viewer works on, with their decision, and where to go on. */
export function queuePage(queue: ReviewQueue, rows: QueueRow[], nextK: number | null, admin: boolean, stateHeading: string): Html {
  const done = rows.filter((r) => r.state !== 'to do' && r.state !== 'pending').length;
  return html`<h1>${queue.title}</h1>
<p class="progress"><label>Decided ${done} of ${rows.length} <progress${attributes({ max: rows.length, value: done })}>${done} of ${rows.length}</progress></label></p>
${nextK !== null ? html`<p><a class="button" id="continue" href="/reviews/${queue.id}/items/${nextK}">${done === 0 ? 'Start reviewing' : `Continue with item ${nextK}`}</a></p>` : ''}
${admin ? html`<p><a href="/reviews/${queue.id}/report" id="report-link">Report, agreement and versions</a></p>` : ''}
<table class="board" id="queue-items"><thead><tr><th class="num">Item</th><th>Question</th><th>${stateHeading}</th></tr></thead><tbody>
${rows.map((r) => html`<tr><td class="num"><a href="/reviews/${queue.id}/items/${r.k}">${r.k}</a></td><td>${r.question} <span class="meta">${r.questionId}</span></td><td>${r.state}</td></tr>`)}</tbody></table>`;
}

/** One column of the adjudication page: a reviewer's decision (or another admin's adjudication) on the item. */
export interface OtherDecision {
  name: string;
  adjudication: boolean;
  decision: ReviewDecision | null;
}

/** Everything the item page shows and the form holds. */
export interface ItemPageData {
  queue: ReviewQueue;
  /** 1-based position in the queue, and the queue's size. */
  k: number;
  total: number;
  prevK: number | null;
  nextK: number | null;
  questionId: string;
  split: string;
  record: Record<string, unknown>;
  reportText: string | null;
  views: StoredView[];
  mode: 'review' | 'adjudicate';
  /** Form values: the typed ones after a refusal, else the saved decision, else the question's own. */
  values: Record<string, string>;
  problems: Problem[];
  /** Whether the viewer has a saved decision on the item (else the category and difficulty shown come from the question). */
  decided: boolean;
  /** A refusal that is not about one field (e.g. a conflict). */
  message: string | null;
  saved: boolean;
  /**
   * For an adjudication: every reviewer of the item with their decision (null: not decided yet), then any other
   * admin's adjudication, shown side by side.
   */
  others: OtherDecision[];
  /** For an adjudication: what the reviewers disagree on, when they do. */
  dispute: DisputeReason | null;
  /**
   * Set when the viewer's own decision is final (they share the item and have seen the others' decisions): the form
   * is shown read-only, with why, and cannot be sent.
   */
  final?: OthersSeen | null;
  csrf: string;
}

/** The form's starting values from a saved decision, or from the question itself. */
export function formValues(record: Record<string, unknown>, saved: ReviewDecision | null): Record<string, string> {
  const text = editableText(saved?.edited_json ? (JSON.parse(saved.edited_json) as Record<string, unknown>) : record);
  const values: Record<string, string> = {
    category: saved?.category ?? (typeof record.category === 'string' ? record.category : ''),
    // A saved rejection without a difficulty shows none: the question's own would be taken for the reviewer's.
    difficulty: saved ? saved.difficulty ?? '' : typeof record.difficulty === 'string' && (DIFFICULTIES as readonly string[]).includes(record.difficulty) ? record.difficulty : '',
    decision: saved?.decision ?? '',
    reason: saved?.reason ?? '',
    note: saved?.note ?? '',
    edit_question: text.question,
    edit_answer: text.answer,
    edit_explanation: text.explanation,
  };
  ['a', 'b', 'c', 'd'].forEach((l, i) => (values[`edit_${l}`] = text.options[i] ?? ''));
  if (saved) for (const r of Object.keys(RATINGS) as RatingName[]) values[r] = saved[r] === null ? '' : String(saved[r]);
  return values;
}

const OPTION_INPUTS = ['edit_a', 'edit_b', 'edit_c', 'edit_d'] as const;

/** A refusal as the form shows it: its message and the form controls it concerns. */
interface FormProblem {
  message: string;
  /** Form controls (names) the problem concerns, in the form's order; the first is where the summary links. */
  controls: string[];
}

/**
 * The refusals as the form shows them: an options problem concerns the letters it names ("options A and B have the
 * same text" → edit_a and edit_b only; one naming none, all four), and the loader's "explanation is 5 characters"
 * says the minimum too.
 */
function formProblems(problems: readonly Problem[]): FormProblem[] {
  return problems.map((p) => {
    if (p.field === 'edit_options') {
      const letters = /^options? ([A-D])(?: and ([A-D]))?\b/.exec(p.message);
      const controls = letters ? [letters[1]!, letters[2]].filter((l): l is string => l !== undefined).map((l) => `edit_${l.toLowerCase()}`) : [...OPTION_INPUTS];
      return { message: p.message, controls };
    }
    const short = p.field === 'edit_explanation' ? /^explanation is (\d+) characters?\b/.exec(p.message) : null;
    if (short) return { message: `the explanation needs at least ${MIN_EXPLANATION_LENGTH} characters (it has ${short[1]!})`, controls: [p.field] };
    return { message: p.message, controls: [p.field] };
  });
}

/** The messages of the problems concerning one control, shown right after it (the id its aria-describedby names). */
function fieldError(problems: readonly FormProblem[], control: string): Html {
  const mine = problems.filter((p) => p.controls.includes(control));
  return mine.length === 0 ? html`` : html`<span class="field-error" id="err-${control}">${mine.map((p) => p.message).join('; ')}</span>`;
}

/** aria attributes of a control: invalid when a problem concerns it, described by its error and any hint. */
function controlAttributes(problems: readonly FormProblem[], control: string, hint?: string): Record<string, string | undefined> {
  const invalid = problems.some((p) => p.controls.includes(control));
  const describedBy = [invalid ? `err-${control}` : undefined, hint].filter(Boolean).join(' ');
  return { 'aria-invalid': invalid ? 'true' : undefined, 'aria-describedby': describedBy || undefined };
}

interface RadioOptions {
  /** "inline": choices side by side (ratings, difficulty); "block": one per line. */
  layout: 'inline' | 'block';
  /** Marks the group required for the browser (left off where a rejection may leave it empty: review.js sets it). */
  required: boolean;
  /** A note shown under the legend (e.g. where a pre-filled value comes from), with its id. */
  hint?: { id: string; text: string };
}

/** A group of radios in a fieldset (id field-<name>, where the error summary links), its error right after the choices. */
function radios(name: string, legend: Html | string, choices: readonly { value: string; label: string }[], d: ItemPageData, problems: readonly FormProblem[], options: RadioOptions): Html {
  const labelClass = options.layout === 'inline' ? 'rating' : 'choice';
  return html`<fieldset${attributes({ class: `choices ${options.layout}`, id: `field-${name}`, ...controlAttributes(problems, name, options.hint?.id) })}><legend>${legend}</legend>
${options.hint ? html`<p class="hint" id="${options.hint.id}">${options.hint.text}</p>` : ''}<div class="choice-list">${choices.map((c) => html`<label class="${labelClass}"><input${attributes({ type: 'radio', name, value: c.value, checked: d.values[name] === c.value, required: options.required, disabled: Boolean(d.final) })}> ${c.label}</label>`)}</div>
${fieldError(problems, name)}</fieldset>`;
}

function recordPanel(d: ItemPageData): Html {
  const { question, options, answer, explanation } = editableText(d.record);
  const field = (name: string) => (typeof d.record[name] === 'string' ? (d.record[name] as string) : null);
  return html`<section aria-labelledby="question-heading" class="review-question"><h2 id="question-heading">Question</h2>
<p class="question" id="question-text">${question}</p>
<ol class="options" id="question-options" type="A">${options.map((o, i) => (LETTERS[i] === answer
    ? html`<li class="correct"><strong>${o}</strong> <span class="badge">✓ correct answer (${LETTERS[i] ?? '?'})</span></li>`
    : html`<li>${o}</li>`))}</ol>
<h3>Explanation</h3><p id="question-explanation">${explanation || '(none)'}</p>
<dl class="card"><dt>Task</dt><dd>${field('task_name') ?? '—'}</dd><dt>Category</dt><dd>${field('category') ?? '—'}${field('subcategory') ? ` · ${field('subcategory')}` : ''}</dd>${field('difficulty') ? html`<dt>Generator's difficulty</dt><dd>${field('difficulty')}</dd>` : ''}<dt>Question id</dt><dd>${d.questionId} (${d.split})</dd></dl>
</section>
<section aria-labelledby="report-heading"><h2 id="report-heading">Report</h2>
${d.reportText ? html`<div id="report-text">${d.reportText.split('\n').map((line) => html`<p>${line}</p>`)}</div>` : html`<p class="empty">The record carries no report text.</p>`}</section>`;
}

const DECISION_LABEL: Record<string, string> = { accept: 'Accept', edit: 'Edit', reject: 'Reject' };

/** The rows of the side-by-side table: each a label and how one column's decision fills it. */
function decisionRows(d: ItemPageData): [string, (x: ReviewDecision) => Html | string][] {
  const queued = editableText(d.record);
  /** An edited field: its new text, "unchanged" when the edit left it, "as queued" for an acceptance, nothing for a rejection. */
  const edited = (pick: (t: QuestionEdit) => string) => (x: ReviewDecision): Html | string => {
    if (x.decision === 'accept') return html`<span class="meta">as queued</span>`;
    if (x.decision !== 'edit' || !x.edited_json) return '—';
    const text = pick(editableText(JSON.parse(x.edited_json) as Record<string, unknown>));
    return text === pick(queued) ? html`<span class="meta">unchanged</span>` : html`<ins>${text}</ins>`;
  };
  const orDash = (v: string | number | null) => (v === null || v === '' ? '—' : String(v));
  return [
    ['Decision', (x) => html`<strong>${DECISION_LABEL[x.decision] ?? x.decision}</strong>`],
    ['Reason for rejecting', (x) => (x.reason ? REJECT_REASONS[x.reason as keyof typeof REJECT_REASONS] ?? x.reason : '—')],
    ['Note', (x) => orDash(x.note)],
    ...(Object.entries(RATINGS) as [RatingName, string][]).map(([name, label]): [string, (x: ReviewDecision) => string] => [label, (x) => orDash(x[name])]),
    ['Difficulty', (x) => orDash(x.difficulty)],
    ['Category', (x) => orDash(x.category)],
    ['Question', edited((t) => t.question)],
    ...LETTERS.map((l, i): [string, (x: ReviewDecision) => Html | string] => [`Option ${l}`, edited((t) => t.options[i] ?? '')]),
    ['Correct answer', edited((t) => t.answer)],
    ['Explanation', edited((t) => t.explanation)],
  ];
}

/** Every reviewer's decision on the item side by side (a column each, a row per field), for the adjudicating admin. */
function othersTable(d: ItemPageData): Html {
  const rows = decisionRows(d);
  return html`${d.dispute ? html`<p id="dispute">The reviewers disagree: ${d.dispute}.</p>` : ''}
<div class="table-scroll" role="region" tabindex="0" aria-label="Each reviewer's decision"><table class="board side-by-side" id="reviewer-decisions"><caption>Each reviewer's decision, side by side</caption>
<thead><tr><td></td>${d.others.map((o) => html`<th scope="col">${o.name}${o.adjudication ? ' (adjudication)' : ''}</th>`)}</tr></thead><tbody>
${rows.map(([label, cell], i) => html`<tr><th scope="row">${label}</th>${d.others.map((o) => html`<td>${o.decision ? cell(o.decision) : i === 0 ? html`<span class="meta">not decided yet</span>` : '—'}</td>`)}</tr>`)}</tbody></table></div>`;
}

/** A labelled text field (input or textarea, full width), its error message right after it. */
function textField(name: string, label: string, d: ItemPageData, problems: readonly FormProblem[], options: { rows?: number; maxlength: number; required?: boolean; hint?: { id: string; text: string } }): Html {
  const attrs = { name, id: `field-${name}`, maxlength: options.maxlength, required: options.required, readonly: Boolean(d.final), ...controlAttributes(problems, name, options.hint?.id) };
  return html`<p class="field"><label for="field-${name}">${label}</label>${options.hint ? html` <span class="hint" id="${options.hint.id}">${options.hint.text}</span>` : ''}
${options.rows
    ? html`<textarea${attributes({ ...attrs, rows: options.rows })}>${d.values[name] ?? ''}</textarea>`
    : html`<input${attributes({ ...attrs, value: d.values[name] ?? '' })}>`}${fieldError(problems, name)}</p>`;
}

/** A select with its label, its error right after it. */
function selectField(name: string, label: string, choices: readonly { value: string; label: string }[], d: ItemPageData, problems: readonly FormProblem[], extra: Record<string, string> = {}): Html {
  return html`<p class="field"${attributes(extra)}><label for="field-${name}">${label}</label>
<select${attributes({ name, id: `field-${name}`, disabled: Boolean(d.final), ...controlAttributes(problems, name) })}>${choices.map((c) => html`<option${attributes({ value: c.value, selected: d.values[name] === c.value })}>${c.label}</option>`)}</select>${fieldError(problems, name)}</p>`;
}

/** The question record's own value of a field the form pre-fills, when the form still shows it and the viewer has not decided yet. */
function prefilledFrom(d: ItemPageData, name: 'difficulty' | 'category'): string | null {
  const own = d.record[name];
  return !d.decided && typeof own === 'string' && own !== '' && d.values[name] === own ? own : null;
}

/** A reviewer's (or an adjudicating admin's) page: images, report, question with its answer, and the decision form. */
export function itemPage(d: ItemPageData): Html {
  const base = `/reviews/${d.queue.id}`;
  const problems = formProblems(d.problems);
  const difficultyFrom = prefilledFrom(d, 'difficulty');
  const categoryFrom = prefilledFrom(d, 'category');
  return html`<h1 class="case-title">Item ${d.k} of ${d.total} <span class="meta">${d.queue.title}${d.mode === 'adjudicate' ? ' · adjudication' : ''}</span></h1>
<nav aria-label="Items" class="actions">${d.prevK ? html`<a href="${base}/items/${d.prevK}" id="prev-item" rel="prev">Previous item</a>` : ''} <a href="${base}">All items</a> ${d.nextK ? html`<a href="${base}/items/${d.nextK}" id="next-item" rel="next">Next item</a>` : ''}</nav>
${d.saved ? html`<p class="notice" role="status" id="saved">Saved.</p>` : ''}
${d.message ? html`<p class="problems" role="alert" id="review-message">${d.message}</p>` : ''}
${problems.length > 0 ? html`<div class="problems" role="alert" id="review-errors"><p>Not saved — nothing was stored. Fix these (each is also shown next to its field) and send again:</p>
<ul>${problems.map((p) => html`<li><a href="#field-${p.controls[0]!}">${p.message}</a></li>`)}</ul></div>` : ''}
<div class="review-case">${viewerFigures(`${base}/img`, d.views)}
${d.final
    ? html`<form id="review-form" class="answer review">`
    : html`<form method="post" action="${base}/items/${d.k}" id="review-form" class="answer review">${csrfField(d.csrf)}`}
${d.mode === 'adjudicate' ? html`<input type="hidden" name="adjudication" value="1">` : ''}
${recordPanel(d)}
${d.mode === 'adjudicate' ? html`<h2>Adjudication</h2><p class="help">Your decision settles this item, whatever the reviewers said.</p>${othersTable(d)}` : html`<h2>Your review</h2>`}
${d.final
    ? html`<p class="notice" id="final-decision">Your decision on this item is final; it is shown read-only. ${finalDecisionReason(d.final)}</p>`
    : html`<p class="help" id="assessment-help">The ratings and the difficulty are needed to accept or edit; a rejection may leave them out.</p>`}
<fieldset class="ratings"><legend>Ratings, each from 1 (poor) to 5 (excellent)</legend>
${(Object.entries(RATINGS) as [RatingName, string][]).map(([name, label]) => radios(name, html`${label} <span class="scale">(1 poor – 5 excellent)</span>`, [1, 2, 3, 4, 5].map((n) => ({ value: String(n), label: String(n) })), d, problems, { layout: 'inline', required: false }))}
</fieldset>
${radios('difficulty', 'Difficulty', DIFFICULTIES.map((x) => ({ value: x, label: x })), d, problems, { layout: 'inline', required: false, hint: difficultyFrom ? { id: 'hint-difficulty', text: `Pre-filled from the generator (${difficultyFrom}): check it.` } : undefined })}
${textField('category', 'Category', d, problems, { maxlength: 120, required: true, hint: categoryFrom ? { id: 'hint-category', text: 'pre-filled from the question: check it' } : undefined })}
${radios('decision', 'Decision', [{ value: 'accept', label: 'Accept as it is' }, { value: 'edit', label: 'Edit (the old text is kept beside the new)' }, { value: 'reject', label: 'Reject' }], d, problems, { layout: 'block', required: true })}
${selectField('reason', 'Reason for rejecting', [{ value: '', label: '— only when rejecting —' }, ...Object.entries(REJECT_REASONS).map(([value, label]) => ({ value, label }))], d, problems, { id: 'reason-field' })}
${textField('note', 'Note (optional; needed for "other")', d, problems, { rows: 3, maxlength: 2000 })}
<fieldset id="edit-fields"><legend>Edited question (used when the decision is Edit)</legend>
${textField('edit_question', 'Question', d, problems, { rows: 3, maxlength: 4000 })}
<fieldset class="edit-options"><legend>Options</legend>
${OPTION_INPUTS.map((name) => textField(name, `Option ${name.slice(-1).toUpperCase()}`, d, problems, { maxlength: 1000 }))}
</fieldset>
${selectField('edit_answer', 'Correct answer', LETTERS.map((l) => ({ value: l, label: l })), d, problems)}
${textField('edit_explanation', `Explanation (at least ${MIN_EXPLANATION_LENGTH} characters)`, d, problems, { rows: 6, maxlength: 8000 })}
</fieldset>
${d.final ? '' : html`<div class="review-actions"><button type="submit" name="go" value="next" id="save-next" class="button">${d.mode === 'adjudicate' ? 'Save the adjudication' : 'Save and go to the next item'}</button> <button type="submit" name="go" value="stay" id="save-stay" class="button secondary">Save</button></div>`}
</form></div>
<link rel="stylesheet" href="/static/viewer.css"><script type="module" src="/static/viewer.js"></script><script src="/static/review.js" defer></script>`;
}

/** A status as a person reads it. */
export const STATUS_LABEL: Record<ItemStatus, string> = { accepted: 'accepted', edited: 'edited', retired: 'retired (rejected)', disputed: 'disputed', pending: 'pending' };
