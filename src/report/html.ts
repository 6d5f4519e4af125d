import { NO_SPREAD_NOTE, NO_SPREAD_OVERALL_NOTE, type MethodEstimate } from '../score/intervals.js';
import type { OutcomeStatus } from '../core/model-io.js';
import { cellInterval, overallInterval, type CellResult, type Results } from '../score/results.js';
import type { Table } from './text-table.js';

/** One run's answer to a question. */
export interface ReportAnswer {
  status: OutcomeStatus;
  predicted: string | null;
  rule: string | null;
  output: string;
  /** The reasoning the model returned beside its answer, when it did (shown folded). */
  reasoning?: string;
}

/** One question of the item browser: everything a reader needs to judge each run's answer. */
export interface ReportItem {
  id: string;
  task: string;
  category: string;
  question: string;
  options: string[];
  gold: string;
  /** One per run, in the report's run order. */
  answers: ReportAnswer[];
  explanation: string | null;
  /** Thumbnails as data URLs (the report is one self-contained file). */
  images: { thumb: string; full: string; view: string | null }[];
}

/** A run of the report: its name and scored results. */
export interface ReportRun {
  /** Its name; a baseline's says so ("[baseline] …"). */
  label: string;
  results: Results;
}

/** The paired comparison of the runs (two or more): ranking with tiers, and each pair's difference. */
export interface ReportComparison {
  sharedItems: number;
  ranking: { name: string; accuracy: number; tier: number; pVsTierLeader: number | null }[];
  pairs: { a: string; b: string; n: number; accuracyA: number; accuracyB: number; difference: number; lo: number; hi: number; onlyA: number; onlyB: number; p: number }[];
}

/** What the HTML report shows. Charts arrive as SVG already rendered (see charts.ts). */
export interface HtmlReport {
  title: string;
  runs: ReportRun[];
  /** Task names in the order to show them (the paper's). */
  taskOrder: string[];
  manifestSummary: string;
  accuracyChartSvg: string;
  kappaHeatmapSvg: string | null;
  kappaNote: string;
  comparison: ReportComparison | null;
  /** Per model given both: its multiple-choice and open-ended runs side by side per task (see open-ended-table.ts). */
  modeComparisons?: Table[];
  items: ReportItem[];
}

function modeComparisonSection(tables: readonly Table[]): string {
  const body = (t: Table) => `<h3>${escapeHtml(t.title ?? '')}</h3><div class="table-scroll"><table class="mode-comparison"><thead><tr>${t.headers.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${t.rows.map((r) => `<tr>${r.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`).join('')}</tbody></table></div>`;
  return `<h2>Multiple choice and open-ended</h2>
<p><small>The same model asked with the options (multiple choice) and without them (open-ended, <code>eval --open</code>). Open answers are scored against the correct option's text: exact match after normalisation, token F1 and ROUGE-L; the judged accuracy is the share the judge mapped to the correct option (— without a judge), the figure comparable with the multiple-choice accuracy.</small></p>
<section id="mode-comparison">${tables.map(body).join('\n')}</section>`;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
const pct = (x: number) => (100 * x).toFixed(1);

/** "lo–hi", marked † where the study bootstrap had no spread and another interval stands in (NO_SPREAD_NOTE). */
function range(e: MethodEstimate): string {
  return `${pct(e.lo)}–${pct(e.hi)}${e.method === 'study-bootstrap' ? '' : '<span title="the study bootstrap has no spread here: Wilson\'s interval">†</span>'}`;
}

function cellRows(cells: Record<string, CellResult>): string {
  return Object.entries(cells)
    .map(([name, c]) => `<tr${c.small ? ' class="small"' : ''}><td>${escapeHtml(name)}${c.small ? ' *' : ''}</td><td>${c.n}</td><td>${pct(c.accuracy.value)}</td><td>${pct(c.accuracy.lo)}–${pct(c.accuracy.hi)}</td><td>${range(cellInterval(c))}</td><td>${c.readByJudge}</td><td>${c.unparseable}</td><td>${c.truncated ?? 0}</td><td>${c.error}</td></tr>`)
    .join('\n');
}

function table(id: string, first: string, cells: Record<string, CellResult>): string {
  return `<table id="${id}"><thead><tr><th>${first}</th><th>n</th><th>acc %</th><th>Wilson 95%</th><th>study bootstrap 95%</th><th>read by judge</th><th>unparseable</th><th>truncated</th><th>error</th></tr></thead><tbody>\n${cellRows(cells)}\n</tbody></table>`;
}

function itemRow(item: ReportItem, runs: readonly ReportRun[]): string {
  const options = item.options.map((o, i) => {
    const letter = 'ABCD'[i]!;
    const chosen = item.answers.map((a, r) => (a.predicted === letter ? ` chosen-${r}` : '')).join('');
    // ReXVQA's option texts already start with their letter ("A. …"): show it once.
    const text = o.replace(/^\s*[A-D]\s*[.):]\s*/, '');
    return `<li class="${letter === item.gold ? 'gold' : ''}${chosen}"><span class="letter">${letter}.</span> ${escapeHtml(text)}${letter === item.gold ? ' <span class="mark">(gold)</span>' : ''}</li>`;
  });
  const images = item.images
    .map((im, i) => `<button type="button" class="thumb" data-full="${i}" title="${escapeHtml(im.view ?? 'view')}: click to enlarge"><img src="${im.thumb}" alt="${escapeHtml(im.view ?? 'view')}" width="96"></button><template>${`<img src="${im.full}" alt="${escapeHtml(im.view ?? 'view')}">`}</template>`)
    .join('');
  const letters = new Set(item.answers.map((a) => a.predicted ?? '∅'));
  const statuses = item.answers.map((a, r) => ` data-status-${r}="${a.status}"`).join('');
  const answers = item.answers.map((a, r) => `<tr class="answer-${r}"><td>${escapeHtml(runs[r]?.label ?? `run ${r + 1}`)}</td><td><b>${a.predicted ?? '—'}</b></td><td class="st ${a.status}">${a.status}</td><td><code>${escapeHtml(a.rule ?? '—')}</code></td><td><details><summary>raw output</summary><pre>${escapeHtml(a.output)}</pre></details>${a.reasoning ? `<details class="reasoning"><summary>reasoning</summary><pre>${escapeHtml(a.reasoning)}</pre></details>` : ''}</td></tr>`).join('');
  return `<article class="item ${item.answers[0]?.status ?? ''}" data-task="${escapeHtml(item.task)}" data-category="${escapeHtml(item.category)}"${statuses} data-agree="${letters.size === 1 ? 'yes' : 'no'}">
<header><code>${escapeHtml(item.id)}</code> · ${escapeHtml(item.task)} · ${escapeHtml(item.category)}</header>
<div class="images">${images}</div>
<p class="q">${escapeHtml(item.question)}</p>
<ul class="options">${options.join('')}</ul>
<div class="table-scroll"><table class="answers"><thead><tr><th>run</th><th>answer</th><th>status</th><th>read by</th><th></th></tr></thead><tbody>${answers}</tbody></table></div>
${item.explanation ? `<details><summary>reference explanation</summary><p>${escapeHtml(item.explanation)}</p></details>` : ''}
</article>`;
}

/** An accuracy with its interval on one line. */
function withInterval(e: MethodEstimate | undefined): string {
  return e ? `${pct(e.value)} <span class="ci">${range(e)}</span>` : '—';
}

/** Table 2-style: one row per run — ReXrank overall, micro, each task, unparseable and truncated answers — with 95% intervals. */
function summaryTable(runs: readonly ReportRun[], tasks: readonly string[]): string {
  const rows = runs.map((run) => {
    const r = run.results;
    return `<tr><td>${escapeHtml(run.label)}</td><td>${withInterval(overallInterval(r.rexrankOverall, r.byTask))}</td><td>${withInterval(cellInterval(r.overall))}</td>${tasks.map((t) => `<td>${withInterval(r.byTask[t] && cellInterval(r.byTask[t]))}</td>`).join('')}<td>${r.overall.unparseable} <span class="ci">${pct(r.overall.n ? r.overall.unparseable / r.overall.n : 0)}%</span></td><td>${r.overall.truncated ?? 0} <span class="ci">${pct(r.overall.n ? (r.overall.truncated ?? 0) / r.overall.n : 0)}%</span></td><td>${r.overall.n}</td></tr>`;
  });
  return `<table id="summary-table"><thead><tr><th>run</th><th>ReXrank overall</th><th>micro</th>${tasks.map((t) => `<th>${escapeHtml(t)}</th>`).join('')}<th>unparseable</th><th>truncated</th><th>n</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function comparisonSection(c: ReportComparison): string {
  const pv = (p: number) => (p < 0.001 ? p.toExponential(1) : p.toFixed(3));
  const signed = (x: number) => `${x >= 0 ? '+' : ''}${pct(x)}`;
  return `<h2>Paired comparison</h2>
<p><small>On the ${c.sharedItems} questions every run answered. Tiers: a run not significantly below its tier's leader (exact McNemar, Holm-adjusted, α = 0.05) shares the tier. Differences in points with a 95% paired bootstrap interval over studies.</small></p>
<div class="table-scroll"><table id="ranking"><thead><tr><th>tier</th><th>run</th><th>accuracy %</th><th>p vs tier leader (Holm)</th></tr></thead><tbody>${c.ranking.map((r) => `<tr><td>${r.tier}</td><td>${escapeHtml(r.name)}</td><td>${pct(r.accuracy)}</td><td>${r.pVsTierLeader === null ? 'tier leader' : pv(r.pVsTierLeader)}</td></tr>`).join('')}</tbody></table></div>
<div class="table-scroll"><table id="pairs"><thead><tr><th>A</th><th>B</th><th>n</th><th>A %</th><th>B %</th><th>A − B</th><th>95% interval</th><th>only A / only B</th><th>McNemar p</th></tr></thead><tbody>${c.pairs.map((p) => `<tr><td>${escapeHtml(p.a)}</td><td>${escapeHtml(p.b)}</td><td>${p.n}</td><td>${pct(p.accuracyA)}</td><td>${pct(p.accuracyB)}</td><td>${signed(p.difference)}</td><td>${signed(p.lo)} to ${signed(p.hi)}</td><td>${p.onlyA} / ${p.onlyB}</td><td>${pv(p.p)}</td></tr>`).join('')}</tbody></table></div>`;
}

function options(values: string[]): string {
  return values.map((v) => `<option value="${escapeHtml(v)}">${escapeHtml(v)}</option>`).join('');
}

const STYLE = `body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:1100px;padding:0 1rem;color:#1a1a1a}
table{border-collapse:collapse;margin:.5rem 0 1.5rem}th,td{padding:.2rem .6rem;border-bottom:1px solid #ddd;text-align:right}th:first-child,td:first-child{text-align:left}
tr.small td{color:#777}
.item{border:1px solid #ddd;border-radius:.4rem;padding:.6rem;margin:.6rem 0}.item.correct{border-left:6px solid #16a34a}.item.wrong{border-left:6px solid #dc2626}
.item.unparseable,.item.truncated{border-left:6px solid #d97706}.item.error{border-left:6px solid #6b7280}
.options{list-style:none;padding-left:.5rem}.options .gold{font-weight:600}.thumb{border:0;padding:0;margin-right:.3rem;cursor:zoom-in;background:none}
pre{white-space:pre-wrap;background:#f6f6f6;padding:.5rem}dialog img{max-width:90vw;max-height:85vh}#filters{position:sticky;top:0;background:#fff;padding:.4rem 0}
.hidden{display:none}.ci{color:#667;font-size:.85em;white-space:nowrap}td{white-space:nowrap}.answers{font-size:.9em;margin:.3rem 0}.answers td{text-align:left}
.st.correct{color:#15803d}.st.wrong{color:#b91c1c}.st.unparseable,.st.truncated{color:#b45309}.mark{color:#555;font-size:.85em}
.table-scroll,.chart-scroll{overflow-x:auto;max-width:100%}figure{margin:1rem 0}body{overflow-wrap:break-word}select{max-width:100%}
@media (max-width:600px){body{margin:1rem auto;padding:0 .6rem}}`;

// Filters and the image viewer. Without JavaScript everything is still shown.
const SCRIPT = `const f={task:document.getElementById('f-task'),category:document.getElementById('f-category'),status:document.getElementById('f-status')};
const model=document.getElementById('f-model'),disagree=document.getElementById('f-disagree'),count=document.getElementById('f-count'),items=document.getElementById('items');
function apply(){const m=model?model.value:'0';items.dataset.model=m;let n=0;for(const el of document.querySelectorAll('.item')){const ok=(!f.task.value||el.dataset.task===f.task.value)&&(!f.category.value||el.dataset.category===f.category.value)&&(!f.status.value||el.getAttribute('data-status-'+m)===f.status.value)&&(!disagree||!disagree.checked||el.dataset.agree==='no');el.classList.toggle('hidden',!ok);if(ok)n++;}count.textContent=n+' shown';}
for(const s of [...Object.values(f),model,disagree])if(s)s.addEventListener('change',apply);
const detail=document.getElementById('f-detail');
function showDetail(){if(!detail)return;for(const d of document.querySelectorAll('.run-detail'))d.classList.toggle('hidden',d.dataset.run!==detail.value);}
if(detail){detail.addEventListener('change',showDetail);showDetail();}
const dlg=document.getElementById('viewer');
document.addEventListener('click',e=>{const b=e.target.closest('.thumb');if(b){dlg.querySelector('.slot').replaceChildren(b.nextElementSibling.content.cloneNode(true));dlg.showModal();}else if(e.target===dlg||e.target.closest('.close')){dlg.close();}});
apply();`;

/** Renders the self-contained HTML report: one file, no network, charts inline as SVG, images as data URLs. */
export function renderHtmlReport(report: HtmlReport): string {
  const runs = report.runs;
  const r0 = runs[0]!.results;
  const categories = [...new Set(report.items.map((i) => i.category))].sort();
  const tasks = report.taskOrder;
  const several = runs.length > 1;
  // The chosen model's answer is underlined; which model is chosen is the item browser's model switch.
  const chosenCss = runs.map((_, i) => `#items[data-model="${i}"] li.chosen-${i}{text-decoration:underline}#items[data-model="${i}"] tr.answer-${i}{background:#f1f5f9}`).join('');
  const details = runs.map((run, i) => `<section class="run-detail" data-run="${i}"><h3>${escapeHtml(run.label)}</h3>
<p>Answers read: ${run.results.overall.readByRule} by the rules (${escapeHtml(run.results.reading.extractor)}), ${run.results.overall.readByJudge} by the judge (${escapeHtml(run.results.reading.judge ?? 'none used')}), ${run.results.overall.unparseable} unparseable and ${run.results.overall.truncated ?? 0} truncated at the token limit, counted wrong. Errors ${run.results.overall.error}, not yet run ${run.results.notRun}.</p>
${table(`tasks-${i}`, 'task', Object.fromEntries(tasks.filter((t) => run.results.byTask[t]).map((t) => [t, run.results.byTask[t]!])))}
${table(`categories-${i}`, 'category', run.results.byCategory)}</section>`).join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(report.title)}</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<style>${STYLE}${chosenCss}</style></head><body>
<h1>${escapeHtml(report.title)}</h1>
<section id="summary"><div class="table-scroll">${summaryTable(runs, tasks)}</div>
<p id="summary-intervals"><small>Accuracy in % with its 95% study-bootstrap interval (${r0.settings.resamples} resamples of the studies, seed ${r0.settings.seed}: a study's questions share its images) — the interval the board shows for the same run. ${escapeHtml(NO_SPREAD_NOTE)} (${NO_SPREAD_OVERALL_NOTE}). ReXrank overall is the mean of the task accuracies. Unparseable: answers no rule (or judge) could read — the paper's “failed extractions” — counted wrong. Truncated: no answer read and the reply was cut at the token limit (raise --max-tokens), counted wrong too. ${escapeHtml(report.manifestSummary)}</small></p></section>
<h2>Accuracy per task</h2>
<figure id="accuracy-chart" class="chart-scroll">${report.accuracyChartSvg}<figcaption><small>Whiskers: the 95% intervals of the summary table (study bootstrap; Wilson's where it has no spread).</small></figcaption></figure>
${report.comparison ? comparisonSection(report.comparison) : ''}
${report.modeComparisons?.length ? modeComparisonSection(report.modeComparisons) : ''}
<h2>Tasks and categories${several ? ' per run' : ''}</h2>
${several ? `<p><label>run <select id="f-detail">${runs.map((run, i) => `<option value="${i}">${escapeHtml(run.label)}</option>`).join('')}</select></label></p>` : ''}
<p id="detail-intervals"><small>Each row: accuracy with its 95% Wilson interval and its 95% study-bootstrap interval (${escapeHtml(NO_SPREAD_NOTE)}). * fewer than ${r0.settings.smallCell} questions.</small></p>
<div class="table-scroll" id="details">${details}</div>
<h2>Agreement (Cohen's κ)</h2>
<figure id="kappa-heatmap" class="chart-scroll">${report.kappaHeatmapSvg ?? ''}</figure><p><small>${escapeHtml(report.kappaNote)}</small></p>
<h2>Items</h2>
<p id="items-legend"><small>In each item the <b>gold answer is bold</b> (and marked "gold") and <u>the chosen run's answer is underlined</u>; every run's answer, its status and how it was read are in the table below the options. The left border is the first run's status: green right, red wrong, amber unparseable or truncated, grey error.</small></p>
<div id="filters">${several ? `<label>run <select id="f-model">${runs.map((run, i) => `<option value="${i}">${escapeHtml(run.label)}</option>`).join('')}</select></label> ` : ''}<label>task <select id="f-task"><option value="">all</option>${options(tasks)}</select></label>
<label>category <select id="f-category"><option value="">all</option>${options(categories)}</select></label>
<label>status <select id="f-status"><option value="">all</option>${options(['correct', 'wrong', 'unparseable', 'truncated', 'error'])}</select></label>${several ? ' <label><input type="checkbox" id="f-disagree"> only where the runs disagree</label>' : ''} <span id="f-count"></span></div>
<div id="items" data-model="0">
${report.items.map((item) => itemRow(item, runs)).join('\n')}
</div>
<dialog id="viewer"><button type="button" class="close">close</button><div class="slot"></div></dialog>
<script>${SCRIPT}</script>
</body></html>
`;
}
