import { LETTERS } from '../../core/question.js';
import { DIFFICULTIES, RATINGS, REJECT_REASONS, type RatingName } from '../../review/decision.js';
import { editableText, type Problem } from '../../review/edit.js';
import type { ItemStatus } from '../../review/status.js';
import type { ReviewDecision } from '../../store/review-decisions.js';
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
  /** A refusal that is not about one field (e.g. a conflict). */
  message: string | null;
  saved: boolean;
  /** For an adjudication: what the reviewers decided. */
  others: (ReviewDecision & { name: string })[];
  csrf: string;
}

/** The form's starting values from a saved decision, or from the question itself. */
export function formValues(record: Record<string, unknown>, saved: ReviewDecision | null): Record<string, string> {
  const text = editableText(saved?.edited_json ? (JSON.parse(saved.edited_json) as Record<string, unknown>) : record);
  const values: Record<string, string> = {
    category: saved?.category ?? (typeof record.category === 'string' ? record.category : ''),
    difficulty: saved?.difficulty ?? (typeof record.difficulty === 'string' && (DIFFICULTIES as readonly string[]).includes(record.difficulty) ? record.difficulty : ''),
    decision: saved?.decision ?? '',
    reason: saved?.reason ?? '',
    note: saved?.note ?? '',
    edit_question: text.question,
    edit_answer: text.answer,
    edit_explanation: text.explanation,
  };
  ['a', 'b', 'c', 'd'].forEach((l, i) => (values[`edit_${l}`] = text.options[i] ?? ''));
  if (saved) for (const r of Object.keys(RATINGS) as RatingName[]) values[r] = String(saved[r]);
  return values;
}

function problemsOf(problems: Problem[], field: string): Problem[] {
  return problems.filter((p) => p.field === field);
}

/** aria attributes tying a field to its error messages. */
function errorAttributes(problems: Problem[], field: string): Record<string, string | undefined> {
  return problemsOf(problems, field).length > 0 ? { 'aria-invalid': 'true', 'aria-describedby': `err-${field}` } : {};
}

function radios(name: string, legend: string, choices: readonly { value: string; label: string }[], d: ItemPageData, required = true): Html {
  return html`<fieldset class="choices"${attributes(errorAttributes(d.problems, name))}><legend>${legend}</legend>
${choices.map((c) => html`<label><input${attributes({ type: 'radio', name, value: c.value, checked: d.values[name] === c.value, required })}> ${c.label}</label>`)}</fieldset>`;
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

function othersTable(d: ItemPageData): Html {
  if (d.others.length === 0) return html`<p class="empty">No reviewer has decided this item yet.</p>`;
  return html`<div class="table-scroll"><table class="board" id="reviewer-decisions"><caption>What the reviewers decided</caption><thead><tr><th>Reviewer</th><th>Decision</th><th>Reason</th><th>Note</th>${Object.values(RATINGS).map((r) => html`<th class="num">${r}</th>`)}<th>Edited text</th></tr></thead><tbody>
${d.others.map((o) => {
    const edit = o.edited_json ? editableText(JSON.parse(o.edited_json) as Record<string, unknown>) : null;
    return html`<tr><td>${o.name}</td><td>${o.decision}</td><td>${o.reason ? REJECT_REASONS[o.reason as keyof typeof REJECT_REASONS] ?? o.reason : '—'}</td><td>${o.note ?? ''}</td>${(Object.keys(RATINGS) as RatingName[]).map((r) => html`<td class="num">${o[r]}</td>`)}
<td>${edit ? html`${edit.question}<ol type="A">${edit.options.map((x) => html`<li>${x}</li>`)}</ol>Answer ${edit.answer}. ${edit.explanation}` : '—'}</td></tr>`;
  })}</tbody></table></div>`;
}

function textField(name: string, label: string, d: ItemPageData, options: { multiline?: boolean; maxlength: number; required?: boolean }): Html {
  const attrs = { name, id: `field-${name}`, maxlength: options.maxlength, required: options.required, ...errorAttributes(d.problems, name) };
  return html`<label for="field-${name}">${label}</label> ${options.multiline
    ? html`<textarea${attributes({ ...attrs, rows: 3 })}>${d.values[name] ?? ''}</textarea>`
    : html`<input${attributes({ ...attrs, value: d.values[name] ?? '' })}>`}`;
}

/** A reviewer's (or an adjudicating admin's) page: images, report, question with its answer, and the decision form. */
export function itemPage(d: ItemPageData): Html {
  const base = `/reviews/${d.queue.id}`;
  const allProblems = d.problems;
  const fieldsWithProblems = [...new Set(allProblems.map((p) => p.field))];
  return html`<h1 class="case-title">Item ${d.k} of ${d.total} <span class="meta">${d.queue.title}${d.mode === 'adjudicate' ? ' · adjudication' : ''}</span></h1>
<nav aria-label="Items" class="actions">${d.prevK ? html`<a href="${base}/items/${d.prevK}" id="prev-item" rel="prev">Previous item</a>` : ''} <a href="${base}">All items</a> ${d.nextK ? html`<a href="${base}/items/${d.nextK}" id="next-item" rel="next">Next item</a>` : ''}</nav>
${d.saved ? html`<p class="notice" role="status" id="saved">Saved.</p>` : ''}
${d.message ? html`<p class="problems" role="alert" id="review-message">${d.message}</p>` : ''}
${allProblems.length > 0 ? html`<div class="problems" role="alert" id="review-errors"><p>Not saved — nothing was stored. Fix these and send again:</p>
<ul>${fieldsWithProblems.map((f) => html`<li id="err-${f}">${problemsOf(allProblems, f).map((p) => p.message).join('; ')}</li>`)}</ul></div>` : ''}
<div class="case">${viewerFigures(`${base}/img`, d.views)}
<form method="post" action="${base}/items/${d.k}" id="review-form" class="answer">${csrfField(d.csrf)}
${d.mode === 'adjudicate' ? html`<input type="hidden" name="adjudication" value="1">` : ''}
${recordPanel(d)}
${d.mode === 'adjudicate' ? html`<h2>Adjudication</h2><p class="help">Your decision settles this item, whatever the reviewers said.</p>${othersTable(d)}` : html`<h2>Your review</h2>`}
<fieldset><legend>Ratings: 1 poor, 5 excellent</legend>
${(Object.entries(RATINGS) as [RatingName, string][]).map(([name, label]) => radios(name, label, [1, 2, 3, 4, 5].map((n) => ({ value: String(n), label: String(n) })), d))}
</fieldset>
${radios('difficulty', 'Difficulty', DIFFICULTIES.map((x) => ({ value: x, label: x })), d)}
<p>${textField('category', 'Category', d, { maxlength: 120, required: true })}</p>
${radios('decision', 'Decision', [{ value: 'accept', label: 'Accept as it is' }, { value: 'edit', label: 'Edit (the old text is kept beside the new)' }, { value: 'reject', label: 'Reject' }], d)}
<p id="reason-field"><label for="field-reason">Reason for rejecting</label> <select${attributes({ name: 'reason', id: 'field-reason', ...errorAttributes(d.problems, 'reason') })}><option value="">— only when rejecting —</option>
${Object.entries(REJECT_REASONS).map(([value, label]) => html`<option${attributes({ value, selected: d.values.reason === value })}>${label}</option>`)}</select></p>
<p>${textField('note', 'Note (optional; needed for "other")', d, { multiline: true, maxlength: 2000 })}</p>
<fieldset id="edit-fields"><legend>Edited question (used when the decision is Edit)</legend>
<p>${textField('edit_question', 'Question', d, { multiline: true, maxlength: 4000 })}</p>
<fieldset${attributes(errorAttributes(d.problems, 'edit_options'))}><legend>Options</legend>
${['a', 'b', 'c', 'd'].map((l) => html`<p><label for="field-edit_${l}">Option ${l.toUpperCase()}</label> <input${attributes({ name: `edit_${l}`, id: `field-edit_${l}`, maxlength: 1000, value: d.values[`edit_${l}`] ?? '', ...errorAttributes(d.problems, 'edit_options') })}></p>`)}
</fieldset>
<p><label for="field-edit_answer">Correct answer</label> <select${attributes({ name: 'edit_answer', id: 'field-edit_answer', ...errorAttributes(d.problems, 'edit_answer') })}>${LETTERS.map((l) => html`<option${attributes({ value: l, selected: d.values.edit_answer === l })}>${l}</option>`)}</select></p>
<p>${textField('edit_explanation', 'Explanation', d, { multiline: true, maxlength: 8000 })}</p>
</fieldset>
<div class="nav-buttons"><button type="submit" name="go" value="next" id="save-next">${d.mode === 'adjudicate' ? 'Save the adjudication' : 'Save and go to the next item'}</button> <button type="submit" name="go" value="stay" id="save-stay">Save</button></div>
</form></div>
<link rel="stylesheet" href="/static/viewer.css"><script type="module" src="/static/viewer.js"></script><script src="/static/review.js" defer></script>`;
}

/** A status as a person reads it. */
export const STATUS_LABEL: Record<ItemStatus, string> = { accepted: 'accepted', edited: 'edited', retired: 'retired (rejected)', disputed: 'disputed', pending: 'pending' };
