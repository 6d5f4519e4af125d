import type { Benchmark } from '../../store/benchmarks.js';
import type { ReportRater, StudyReport } from '../../study/study-report.js';
import { exportNames } from '../../study/study-report.js';
import { publishRefusal, type Study } from '../../store/studies.js';
import type { StudyResults } from '../../study/results.js';
import { FEW_KAPPA_ITEMS, UNDEFINED_KAPPA_NOTE, undefinedKappaReason, type AgreementTable } from '../../score/agreement-matrix.js';
import { attributes, html, plural, type Html } from './html.js';
import { pct } from './layout.js';
import { TASK_SHORT } from './pages.js';

const csrfField = (csrf: string) => html`<input type="hidden" name="_csrf" value="${csrf}">`;

const utc = (at: string) => `${at.slice(0, 16).replace('T', ' ')} UTC`;

/**
 * A box that scrolls sideways when its content is wider than the screen, reachable by keyboard (a region with a
 * name), so a wide table or chart never widens the page and its labels stay whole.
 */
function scrollBox(label: string, content: Html, className = 'table-scroll'): Html {
  return html`<div class="${className}" role="region" tabindex="0" aria-label="${label}">${content}</div>`;
}

/** The host's list of studies and the form that creates one from a benchmark of the board. */
export function studiesPage(studies: (Study & { items: number; readers: number })[], benchmarks: Benchmark[], csrf: string, message: Html | null = null, values: Record<string, string> = {}): Html {
  return html`<h1>Reader studies</h1>${message ?? ''}
${scrollBox('Reader studies', html`<table class="board" id="studies"><thead><tr><th>Study</th><th>State</th><th class="num">Cases</th><th class="num">Readers</th><th>Created</th></tr></thead><tbody>
${studies.map((s) => html`<tr><td><a href="/studies/${s.id}">${s.title}</a></td><td>${s.state}</td><td class="num">${s.items}</td><td class="num">${s.readers}</td><td>${s.created_at.slice(0, 10)}</td></tr>`)}</tbody></table>`)}
${studies.length === 0 ? html`<p class="empty">No study yet.</p>` : ''}
<h2>New study from a benchmark</h2>
<p class="help">Cases are drawn from the benchmark's hidden questions with a recorded seed; the images are those stored with it (<code>cxrbench board load … --with-images</code>). To draw from a question set on disk, use <code>cxrbench study create</code>.</p>
<form method="post" action="/studies" class="stack" id="new-study">${csrfField(csrf)}
<label>Title <input name="title" required maxlength="200"${attributes({ value: values.title ?? '' })}></label>
<label>Benchmark <select name="benchmark" required>${benchmarks.map((b) => html`<option${attributes({ value: b.slug, selected: values.benchmark === b.slug })}>${b.title} (${b.slug}, ${b.item_count} questions)</option>`)}</select></label>
<label>Cases <input type="number" name="n" required min="1" max="100000" step="1"${attributes({ value: values.n ?? '200' })}></label>
<fieldset><legend>Sampling</legend><label><input${attributes({ type: 'radio', name: 'mode', value: 'stratified', checked: (values.mode ?? 'stratified') === 'stratified' })}> Stratified by task (each task in proportion)</label>
<label><input${attributes({ type: 'radio', name: 'mode', value: 'random', checked: values.mode === 'random' })}> Simple random</label></fieldset>
<label>Only one task (optional) <select name="task"><option value="">All tasks</option>${Object.keys(TASK_SHORT).map((t) => html`<option${attributes({ value: t, selected: values.task === t })}>${t}</option>`)}</select></label>
<label>Seed <input type="number" name="seed" min="0" max="2147483647" step="1"${attributes({ value: values.seed ?? '0' })}></label>
<label><input${attributes({ type: 'checkbox', name: 'publishScores', checked: values.publishScores === 'on' })}> Readers' scores may be published on the public leaderboard — readers are told so, with the name they appear under, before they start; when closing the study you still choose whether to publish (only readers who answered every case)</label>
<button>Create study</button></form>`;
}

/**
 * Where a reader stands, in words: submitted is their own final word; every case answered but not submitted,
 * part-way, or opened without an answer are not (the host may want to remind them); never opened at all.
 */
export function readerStatus(reader: { revoked_at: string | null; submitted_at: string | null; last_seen_at: string | null; answered: number }, total: number): string {
  if (reader.revoked_at) return 'revoked';
  if (reader.submitted_at) return 'submitted';
  if (total > 0 && reader.answered >= total) return 'every case answered, not submitted';
  if (reader.answered > 0) return 'reading, not finished';
  return reader.last_seen_at ? 'opened, no answer yet' : 'not opened yet';
}

/** Whether the study's readers' scores may go public, and whether they did. */
function publishSetting(study: Study): string {
  const refused = publishRefusal(study);
  if (refused) return `private: ${refused}`;
  if (study.published_at) return `published on the benchmark's leaderboard on ${study.published_at.slice(0, 16).replace('T', ' ')} UTC (readers who answered every case)`;
  if (study.state === 'closed') return 'not published (readers were told they might be)';
  return 'readers are told their scores may be published on the public leaderboard; you choose when closing the study';
}

/** One study for its host: what is missing, who reads, and the controls (open, close, invite, revoke). */
export function studyPage(study: Study, report: StudyReport, csrf: string, fresh: { name: string; link: string; account?: string } | null, message: Html | null, minPublicCell: number): Html {
  const missing = report.items.filter((i) => i.missing_images > 0);
  const sampling = JSON.parse(study.sampling_json) as { mode?: string; n?: number; task?: string | null; seed?: number; pool?: number };
  const expires = study.invites_expire_at ? study.invites_expire_at.slice(0, 16) : '';
  return html`<h1>${study.title}</h1>${message ?? ''}
<dl class="card"><dt>State</dt><dd id="study-state">${study.state}</dd><dt>Source</dt><dd>${study.source} <span class="meta">sha256 ${study.source_sha256.slice(0, 12)}…</span></dd>
<dt>Sample</dt><dd>${plural(report.items.length, 'case')}${sampling.n !== undefined && sampling.n > (sampling.pool ?? Infinity) ? ` (${sampling.n} asked; every question there is)` : ''} of ${sampling.pool ?? '?'}${sampling.task ? ` ${sampling.task} questions` : ''} · ${sampling.mode ?? '?'} · seed ${String(study.seed)}</dd>
<dt>After submitting</dt><dd>${study.allow_edits ? 'readers may still change answers' : 'answers are locked'}</dd><dt>Readers' scores</dt><dd id="publish-setting">${publishSetting(study)}</dd><dt>Links expire</dt><dd>${study.invites_expire_at ? `${expires.replace('T', ' ')} UTC${study.invites_expire_at < new Date().toISOString() ? ' — passed: reading links no longer open or save' : ''}` : 'never'}</dd></dl>
${missing.length > 0 ? html`<div class="problems" role="alert" id="missing-images"><p><strong>${plural(missing.length, 'case')} ${missing.length === 1 ? 'has' : 'have'} missing images</strong> — readers cannot be invited until this is settled. Add the files and create the study again, or remove these cases.</p>
<ul>${missing.slice(0, 50).map((i) => html`<li><code>${i.question_id}</code>: ${(JSON.parse(i.images_json) as { path: string; sha256: string | null; problem?: string }[]).filter((v) => !v.sha256).map((v) => (v.problem && v.problem !== 'missing' ? `${v.path} (${v.problem})` : v.path)).join(', ') || 'the record lists no image'}</li>`)}</ul>${missing.length > 50 ? html`<p>… and ${missing.length - 50} more.</p>` : ''}
${study.state === 'draft' ? html`<form method="post" action="/studies/${study.id}/drop-missing">${csrfField(csrf)}<button>Remove the ${plural(missing.length, 'case')} without images</button></form>` : ''}</div>` : ''}
${fresh ? (fresh.account
    ? html`<div class="token" role="status"><p>${fresh.name} (${fresh.account}) is invited: they read at this address when signed in, and see the study on their account page:</p><code id="new-link">${fresh.link}</code></div>`
    : html`<div class="token" role="status"><p>Reading link for ${fresh.name} — send it to them; it is not shown again (revoke it and make a new one if it is lost):</p><code id="new-link">${fresh.link}</code></div>`) : ''}
<div class="actions">${study.state === 'draft' ? html`<form method="post" action="/studies/${study.id}/state" class="inline">${csrfField(csrf)}<input type="hidden" name="action" value="open"><button${attributes({ disabled: missing.length > 0 })}>Open the study for reading</button></form>` : ''}
${study.state === 'open' ? html`<form method="post" action="/studies/${study.id}/state" class="inline" id="close-form">${csrfField(csrf)}<input type="hidden" name="action" value="close"><label><input type="checkbox" name="confirm" value="yes" required> Answers freeze for good; readers then see their score${study.benchmark_id ? '' : ' and the reference answers'}</label>
${publishRefusal(study) === null ? html`<label><input type="checkbox" name="publish" value="yes" id="publish-now"> Publish readers' scores now on this benchmark's public leaderboard: each reader who answered every case, under the name the Readers table shows, with accuracy overall and per task beside the models on the same cases — no figure on fewer than ${minPublicCell} cases (readers who left cases unanswered are left out)</label>` : ''} <button>Close the study</button></form>` : ''}
${study.state === 'draft' ? html`<form method="post" action="/studies/${study.id}/delete" class="inline" id="delete-form">${csrfField(csrf)}<label><input type="checkbox" name="confirm" value="yes" required> Delete this draft and its cases</label> <button class="secondary">Delete draft</button></form>` : ''}
<a href="/studies/${study.id}/results" id="results-link">Results</a></div>
<h2>Readers</h2><p class="help">Status says how far each reader got; <em>Last seen</em> is the last time they opened a page of the study or saved an answer, which is not submitting: only <em>Submitted</em> means they sent their answers as final.</p>
${scrollBox('Readers', html`<table class="board" id="readers"><thead><tr><th>Reader</th><th>Invited as</th><th>Status</th><th class="num">Answered</th><th>Submitted</th><th>Last seen</th><th></th></tr></thead><tbody>
${report.readers.map((r) => html`<tr><td>${r.name}</td><td>${r.user_id ? 'board account' : 'link'}</td><td class="reader-status">${readerStatus(r, report.items.length)}</td><td class="num">${r.answered} / ${report.items.length}</td><td>${r.submitted_at ? utc(r.submitted_at) : '—'}</td><td>${r.last_seen_at ? utc(r.last_seen_at) : 'never'}</td>
<td>${r.revoked_at ? 'revoked' : study.state === 'closed' ? '' : html`<form method="post" action="/studies/${study.id}/readers/${r.id}/revoke" class="inline">${csrfField(csrf)}<button class="secondary" aria-label="Revoke ${r.name}">Revoke</button></form>`}</td></tr>`)}</tbody></table>`)}
${study.state !== 'closed' ? html`<form method="post" action="/studies/${study.id}/invite" class="stack" id="invite-form">${csrfField(csrf)}
<label>Reader's name as results show it (optional) <input name="name" maxlength="80" autocomplete="off"></label>
<label>Board account email (leave empty to make a reading link) <input type="email" name="email" maxlength="200" autocomplete="off"></label>
<button${attributes({ disabled: missing.length > 0 })}>Invite reader</button></form>
<h2>Settings</h2><form method="post" action="/studies/${study.id}/settings" class="stack" id="settings-form">${csrfField(csrf)}
<label><input${attributes({ type: 'checkbox', name: 'allowEdits', checked: study.allow_edits === 1 })}> Readers may change answers after submitting (until the study closes)</label>
<label>Reading links expire (UTC, YYYY-MM-DD HH:MM; a date alone means 23:59; empty: never) <input name="expires" maxlength="16" pattern="\\d{4}-\\d{2}-\\d{2}( \\d{2}:\\d{2})?" placeholder="YYYY-MM-DD HH:MM"${attributes({ value: expires.replace('T', ' ') })}></label>
<button>Save settings</button></form>` : ''}`;
}

/** "incomplete: n of N" for a reader who left cases unanswered (never published; counted as not correct). */
function incompleteBadge(rater: { kind: string; answered: number }, items: number): Html | '' {
  return rater.kind === 'reader' && rater.answered < items ? html` <span class="badge incomplete" title="unanswered cases count as not correct; not published">incomplete: ${rater.answered} of ${items}</span>` : '';
}

function estimate(e: { value: number; lo: number; hi: number }): Html {
  return html`${pct(e.value)}<span class="ci"> ${pct(e.lo)}–${pct(e.hi)}</span>`;
}

/**
 * Readers (marked human; marked incomplete when they left cases unanswered) and models on exactly the study's
 * items: accuracy with Wilson 95% intervals per task. The public variant (the leaderboard page) shows only readers
 * who answered every case and the benchmark's entries, and no cell of fewer than `minCell` cases: a small cell of
 * hidden test items would tell which of them an entry got right.
 */
export function ratersTable(results: StudyResults, id = 'raters', publicView: { minCell: number } | null = null): Html {
  const raters = publicView ? results.raters.filter((r) => (r.kind === 'reader' && r.answered === results.items) || r.origin === 'entry') : results.raters;
  const cell = (e: StudyResults['raters'][number]['overall']) => (publicView && e.n < publicView.minCell ? html`<span class="ci" title="fewer than ${publicView.minCell} cases: not shown">n=${e.n}</span>` : html`${estimate(e)} <span class="ci">n=${e.n}</span>`);
  return scrollBox('Accuracy of readers and models', html`<table class="board" id="${id}"><thead><tr><th>Rater</th><th class="num">Answered</th><th class="num">Overall %</th>${results.tasks.map((t) => html`<th class="num">${TASK_SHORT[t] ?? t} %</th>`)}</tr></thead><tbody>
${raters.map((r) => html`<tr class="${r.kind}"><td>${r.name}${r.kind === 'reader' ? html` <span class="badge human" title="a person who read the cases">human</span>` : ''}${incompleteBadge(r, results.items)}</td><td class="num">${r.answered} / ${results.items}</td><td class="num">${publicView && r.overall.n < publicView.minCell ? cell(r.overall) : estimate(r.overall)}</td>${results.tasks.map((t) => html`<td class="num">${cell(r.byTask[t]!)}</td>`)}</tr>`)}
</tbody></table>`);
}

/** One kappa cell: its value or "—" (undefined), greyed with a reason when undefined or on fewer than FEW_KAPPA_ITEMS cases. */
function kappaCell(kappa: number | null, n: number): Html {
  const grey = kappa === null || n < FEW_KAPPA_ITEMS;
  const why = kappa === null ? undefinedKappaReason(n) : n < FEW_KAPPA_ITEMS ? `fewer than ${FEW_KAPPA_ITEMS} cases: read with care` : undefined;
  return html`<td${attributes({ class: grey ? 'num few' : 'num', title: why })}>${kappa === null ? '—' : kappa.toFixed(2)} <span class="ci">n=${n}</span></td>`;
}

function kappaTable(names: string[], table: AgreementTable, caption: string): Html {
  return scrollBox(`Cohen's kappa: ${caption}`, html`<table class="board kappa"><caption>${caption}</caption><thead><tr><th></th>${names.map((n) => html`<th>${n}</th>`)}</tr></thead><tbody>
${names.map((a, i) => html`<tr><th>${a}</th>${names.map((_, j) => kappaCell(table.cohen[i]![j]!, table.pairN[i]![j]!))}</tr>`)}</tbody></table>`);
}

/**
 * A kappa heatmap at its own size (its labels whole and legible) beside its table, each scrolling in its own box
 * when the screen is narrower; the two stack when they do not fit side by side.
 */
function kappaPair(src: string, alt: string, names: string[], table: AgreementTable, caption: string, imgId?: string): Html {
  return html`<div class="kappa-pair"><figure class="kappa-figure">${scrollBox(`Heatmap: ${caption}`, html`<img${attributes({ src, alt, id: imgId })}>`, 'chart-scroll')}</figure>${kappaTable(names, table, caption)}</div>`;
}

function raterOf(report: StudyReport, name: string): ReportRater | undefined {
  return report.raters.find((r) => r.kind === 'reader' && r.name === name);
}

/**
 * One reader's answer, confidence and seconds on every case, in the reader's own order and numbered as they saw
 * them ("case 7" to them is row 7 here), folded away: a study may have hundreds of cases.
 */
function readerAnswersTable(report: StudyReport, rater: ReportRater): Html {
  const byId = new Map(report.items.map((i) => [i.question_id, i]));
  const order = rater.readingOrder ?? report.items.map((i) => i.question_id);
  return html`<details class="reader-answers"><summary>${rater.name}</summary>${scrollBox(`${rater.name}'s answers`, html`<table class="board"><thead><tr><th class="num" title="the case number this reader saw (each reader has their own order)">Case</th><th>Question</th><th>Task</th><th>Answer</th><th>Reference</th><th class="num">Confidence</th><th class="num">Seconds</th></tr></thead><tbody>
${order.map((id, k) => {
    const i = byId.get(id)!;
    return html`<tr><td class="num">${k + 1}</td><td><code>${id}</code></td><td>${i.task}</td><td>${rater.answers.get(id) ?? '—'}</td><td>${i.gold}</td><td class="num">${rater.confidence?.get(id) ?? '—'}</td><td class="num">${rater.seconds?.get(id)?.toFixed(1) ?? '—'}</td></tr>`;
  })}</tbody></table>`)}</details>`;
}

/** The host's results: accuracy with intervals, time per case, kappa heatmaps overall and per task, and the exports. */
export function resultsPage(study: Study, report: StudyReport): Html {
  const r = report.results;
  const names = report.raters.map((x) => x.name);
  const base = `/studies/${study.id}/results`;
  return html`<h1>${study.title}: results</h1>
${study.state !== 'closed' ? html`<p class="notice" role="status">${study.state === 'draft' ? 'The study has not opened yet.' : 'The study is open: these are the answers so far.'} Readers see nothing of this.</p>` : ''}
<h2>Accuracy on the study's ${plural(r.items, 'case')}</h2><p class="help">Correct over every case (an unanswered case is not correct), with Wilson 95% intervals. Humans are marked; models answered the same cases.</p>
${ratersTable(r)}
<figure><img src="${base}/accuracy.svg" alt="Bar chart of accuracy per task for each reader and model, with 95% intervals (the numbers are in the table above)" id="accuracy-chart"></figure>
<h2>Time per case and confidence</h2>${scrollBox('Time per case and confidence', html`<table class="board" id="times"><thead><tr><th>Reader</th><th class="num">Cases timed</th><th class="num">Median s</th><th class="num">Mean s</th><th class="num">Total min</th><th class="num">Cases rated</th><th class="num">Mean confidence</th></tr></thead><tbody>
${report.readers.map((x) => {
    const rated = [...(raterOf(report, x.name)?.confidence?.values() ?? [])].filter((c): c is number => c !== null);
    return html`<tr><td>${x.name}${x.revoked_at ? ' (revoked: left out of the results)' : incompleteBadge({ kind: 'reader', answered: x.answered }, report.items.length)}</td><td class="num">${x.time.cases}</td><td class="num">${x.time.medianS?.toFixed(1) ?? '—'}</td><td class="num">${x.time.meanS?.toFixed(1) ?? '—'}</td><td class="num">${(x.time.totalS / 60).toFixed(1)}</td><td class="num">${rated.length}</td><td class="num">${rated.length ? (rated.reduce((a, b) => a + b, 0) / rated.length).toFixed(1) : '—'}</td></tr>`;
  })}</tbody></table>`)}
<h3>Each reader's answers</h3>${report.readers.filter((x) => !x.revoked_at).map((x) => readerAnswersTable(report, raterOf(report, x.name)!))}
<h2>Agreement (Cohen's kappa)</h2><p class="help">Each cell uses the cases both raters answered (n per cell); cells on fewer than ${FEW_KAPPA_ITEMS} cases are greyed — kappa on a handful of cases says little — and ${UNDEFINED_KAPPA_NOTE}. Fleiss' kappa of everyone: ${r.agreement.fleiss === null ? '— (undefined)' : r.agreement.fleiss.toFixed(2)} on ${r.agreement.fleissN} case(s).</p>
${names.length >= 2 ? html`${kappaPair(`${base}/kappa.svg`, "Heatmap of Cohen's kappa between every pair of readers and models (the numbers are in the table beside it)", names, r.agreement, 'All cases', 'kappa-heatmap')}
<h3>Per task</h3>${r.tasks.map((t) => html`<section class="kappa-task"><h4>${t}</h4>${kappaPair(`${base}/kappa.svg?task=${encodeURIComponent(t)}`, `Kappa heatmap for ${t} (the numbers are in the table beside it)`, names, r.agreementByTask[t]!, t)}</section>`)}` : html`<p class="empty">Agreement needs at least two raters.</p>`}
<h2>Exports</h2><p class="help">Answer files <code>{id, answer, confidence, seconds}</code>, one per rater (a model has no confidence or time: null), and the key <code>{id, answer, task}</code>; compare them with <code>cxrbench agreement reader-*.jsonl model-*.jsonl --gold key.jsonl</code>.</p>
<ul id="exports"><li><a href="/studies/${study.id}/export/key.jsonl">key.jsonl</a> (reference answers)</li>${exportNames(report.raters).map((file) => html`<li><a href="/studies/${study.id}/export/${file}">${file}</a></li>`)}</ul>`;
}
