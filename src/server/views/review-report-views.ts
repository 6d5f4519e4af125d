import type { RatingAgreement } from '../../review/agreement.js';
import { RATINGS, type RatingName } from '../../review/decision.js';
import type { ReviewReport } from '../../review/review-report.js';
import { STATUSES } from '../../review/queue-state.js';
import { versionContent } from '../../review/version.js';
import { attributes, html, plural, type Html } from './html.js';
import { pct } from './layout.js';
import { STATUS_LABEL } from './review-views.js';
import { FEW_KAPPA_ITEMS, UNDEFINED_KAPPA_NOTE, undefinedKappaReason } from '../../score/agreement-matrix.js';

const csrfField = (csrf: string) => html`<input type="hidden" name="_csrf" value="${csrf}">`;

/** How many items a figure is over, when fewer than the pair decided (a rejection may leave a rating out). */
const fewer = (n: number, of: number) => (n < of ? html` <span class="ci">n ${n}</span>` : '');

/** A kappa cell on `n` items: "—" with the reason when undefined; greyed then or on fewer than FEW_KAPPA_ITEMS items, as the help says; its n shown when fewer than the pair's `of`. */
function kappaCell(x: number | null, n: number, of = n): Html {
  const why = x === null ? undefinedKappaReason(n) : n < FEW_KAPPA_ITEMS ? `fewer than ${FEW_KAPPA_ITEMS} items: read with care` : undefined;
  return html`<td${attributes({ class: why ? 'num few' : 'num', title: why })}>${x === null ? '—' : x.toFixed(2)}${fewer(n, of)}</td>`;
}

function ratingCells(r: RatingAgreement, pairN: number): Html {
  return html`${kappaCell(r.kappa, r.n, pairN)}<td class="num">${pct(r.exact)}</td><td class="num">${r.meanAbsDiff === null ? '—' : r.meanAbsDiff.toFixed(2)}</td>`;
}

function agreementTable(report: ReviewReport): Html {
  if (report.agreement.length === 0) return html`<p class="empty">Agreement needs items assigned to two reviewers (cxrbench review create … --per-item 2).</p>`;
  const ratings = Object.entries(RATINGS) as [RatingName, string][];
  return html`<p class="help">Over the items both reviewers of a pair decided (n). Cohen's kappa on the decision (accept, edit, reject), on the difficulty, and on each rating taken as five categories; for ratings also the share rated exactly alike and the mean absolute difference. A rejection may leave the ratings and difficulty out: those figures are then over the items both rated (their n is shown beside the kappa). Kappa on fewer than ${FEW_KAPPA_ITEMS} items is greyed, and ${UNDEFINED_KAPPA_NOTE}.</p>
<div class="table-scroll" role="region" tabindex="0" aria-label="Agreement between reviewers"><table class="board" id="agreement"><thead><tr><th rowspan="2" scope="col">Reviewers</th><th rowspan="2" scope="col" class="num">n</th><th colspan="2" scope="colgroup">Decision</th><th rowspan="2" scope="col" class="num">Difficulty κ</th>${ratings.map(([, label]) => html`<th colspan="3" scope="colgroup">${label}</th>`)}</tr>
<tr><th scope="col" class="num">κ</th><th scope="col" class="num">exact %</th>${ratings.map(() => html`<th scope="col" class="num">κ</th><th scope="col" class="num">exact %</th><th scope="col" class="num">mean |Δ|</th>`)}</tr></thead><tbody>
${report.agreement.map((p) => html`<tr><td>${p.names[0]} · ${p.names[1]}</td><td class="num">${p.n} <span class="ci">of ${p.shared}</span></td>${kappaCell(p.decision.kappa, p.decision.n, p.n)}<td class="num">${pct(p.decision.exact)}</td>${kappaCell(p.difficulty.kappa, p.difficulty.n, p.n)}${ratings.map(([name]) => ratingCells(p.ratings[name], p.n))}</tr>`)}
</tbody></table></div>`;
}

/** How a version treated items not settled, as its list shows it. */
const treatment = (policy: 'keep' | 'retire', kept: string) => (policy === 'keep' ? kept : 'left out');

function versionsSection(report: ReviewReport, csrf: string): Html {
  const base = `/reviews/${report.queue.id}`;
  return html`<h2 id="versions">Versions of the question bank</h2>
<p class="help">A version takes the decisions as they stand: accepted questions as queued, edited ones with their new text (the old is kept in the version's record), rejected ones retired. A disputed question stays out until an admin adjudicates it, and a question not yet decided by all its reviewers until they have, unless you choose below to include them. Export one with <code>cxrbench review export ${report.queue.id} --version N --out DIR</code> (the official layout, with images and review-version.json).</p>
<form method="post" action="${base}/versions" id="version-form">${csrfField(csrf)}
<fieldset><legend>Disputed questions not adjudicated (${report.counts.disputed})</legend>
<p class="hint" id="hint-disputed">Left out unless ticked: their reviewers disagree. The version records the choice.</p>
<label><input${attributes({ type: 'checkbox', name: 'include_disputed', value: '1', 'aria-describedby': 'hint-disputed' })}> Include the ${plural(report.counts.disputed, 'disputed question')} not adjudicated, as queued</label></fieldset>
<fieldset><legend>Items not yet decided by all their reviewers (${report.counts.pending})</legend>
<p class="hint" id="hint-pending">Left out unless you choose to keep them: not every reviewer has vouched for them yet. The version records the choice.</p>
<label><input${attributes({ type: 'radio', name: 'pending', value: 'retire', checked: true, 'aria-describedby': 'hint-pending' })}> leave them out</label>
<label><input${attributes({ type: 'radio', name: 'pending', value: 'keep', 'aria-describedby': 'hint-pending' })}> keep them as queued</label></fieldset>
<button class="button">Create version ${report.versions.length + 1}</button></form>
${report.versions.length === 0 ? html`<p class="empty">No version yet.</p>` : html`<div class="table-scroll" role="region" tabindex="0" aria-label="Versions"><table class="board" id="version-list"><thead><tr><th class="num">Version</th><th>Created</th><th>By</th><th class="num">Included</th><th class="num">Left out</th><th>Disputed · pending</th><th>Download (contains answers)</th></tr></thead><tbody>
${report.versions.map((v) => {
    const { summary } = versionContent(v);
    return html`<tr><td class="num">${v.number}</td><td>${v.created_at.slice(0, 16).replace('T', ' ')}</td><td>${v.created_by}</td><td class="num">${summary.included}</td><td class="num">${summary.retired}</td><td>${treatment(summary.policy.disputed, 'included')} · ${treatment(summary.policy.pending, 'kept')}</td>
<td><a href="${base}/versions/${v.number}/export.json" download>export.json</a> · <a href="${base}/versions/${v.number}/review-version.json" download>review-version.json</a></td></tr>`;
  })}</tbody></table></div>`}`;
}

/** The host's report on a queue: progress, statuses, rejection reasons, agreement, disputes to settle, versions. */
export function reviewReportPage(report: ReviewReport, viewer: { csrf: string; userId: string }, message: Html | null = null): Html {
  const base = `/reviews/${report.queue.id}`;
  const { csrf } = viewer;
  return html`<h1>${report.queue.title}: review report</h1>${message ?? ''}
<dl class="card"><dt>Source</dt><dd>${report.queue.source} <span class="meta">sha256 ${report.queue.source_sha256.slice(0, 12)}…</span></dd><dt>Questions</dt><dd>${report.items}</dd><dt>Reviewers per question</dt><dd>${report.queue.reviewers_per_item}</dd><dt>Created</dt><dd>${report.queue.created_at.slice(0, 10)} by ${report.queue.created_by}</dd></dl>
<h2>Progress</h2><p class="progress"><label>Decisions made ${report.progress.decided} of ${report.progress.assigned} <progress${attributes({ max: report.progress.assigned, value: report.progress.decided })}>${report.progress.decided} of ${report.progress.assigned}</progress></label></p>
<div class="table-scroll" role="region" tabindex="0" aria-label="Reviewers"><table class="board" id="reviewers"><thead><tr><th>Reviewer</th><th>Email</th><th class="num">Assigned</th><th class="num">Decided</th></tr></thead><tbody>
${report.reviewers.map((r) => html`<tr><td>${r.name}</td><td>${r.email}</td><td class="num">${r.assigned}</td><td class="num">${r.decided}</td></tr>`)}</tbody></table></div>
<h2>Status of the questions</h2>
<div class="table-scroll" role="region" tabindex="0" aria-label="Status of the questions"><table class="board" id="status-counts"><thead><tr><th>Status</th><th class="num">Questions</th><th class="num">%</th></tr></thead><tbody>
${STATUSES.map((s) => html`<tr><td>${STATUS_LABEL[s]}</td><td class="num">${report.counts[s]}</td><td class="num">${pct(report.items === 0 ? NaN : report.counts[s] / report.items)}</td></tr>`)}</tbody></table></div>
<h2>Rejection reasons</h2><p class="help">Share of the ${plural(report.reviewed, 'reviewed question')} (any decision made) that a reviewer rejected for each reason; a question can count under two reasons.</p>
<div class="table-scroll" role="region" tabindex="0" aria-label="Rejection reasons"><table class="board" id="reasons"><thead><tr><th>Reason</th><th class="num">Questions</th><th class="num">Share %</th></tr></thead><tbody>
${report.reasons.map((r) => html`<tr><td>${r.label}</td><td class="num">${r.items}</td><td class="num">${pct(report.reviewed === 0 ? NaN : r.share)}</td></tr>`)}</tbody></table></div>
<h2>Agreement between reviewers</h2>${agreementTable(report)}
<h2>Disputed questions</h2>
<p class="help">A question is disputed when its reviewers disagree: one rejected and another did not, one accepted and another edited, or their edits give different texts. Nothing goes in on one reviewer's word alone: an admin who did not review the question settles it.</p>
${report.disputed.length === 0 ? html`<p class="empty">None: every question decided by all its reviewers was decided alike.</p>` : html`<div class="table-scroll" role="region" tabindex="0" aria-label="Disputed questions"><table class="board" id="disputed"><thead><tr><th class="num">Item</th><th>Question</th><th>Disagreement</th><th>Reviewers: decision (reason), note</th><th>Adjudication</th></tr></thead><tbody>
${report.disputed.map((x) => html`<tr><td class="num">${x.position + 1}</td><td>${x.question} <span class="meta">${x.questionId}</span></td><td class="dispute">${x.dispute}</td><td>${x.decisions.map((d) => `${d.name}: ${d.decision}${d.reason ? ` (${d.reason})` : ''}${d.note ? `, note: “${d.note}”` : ''}`).join('; ')}</td><td>${x.reviewers.includes(viewer.userId) ? 'You reviewed it: another admin adjudicates it' : html`<a href="${base}/items/${x.position + 1}" aria-label="Adjudicate item ${x.position + 1}">Adjudicate</a>`}</td></tr>`)}</tbody></table></div>`}
${versionsSection(report, csrf)}`;
}
