import type { CellResult, Results } from '../score/results.js';

/** One question of the error browser: everything a reader needs to judge the model's answer. */
export interface ReportItem {
  id: string;
  task: string;
  category: string;
  status: 'correct' | 'wrong' | 'unparseable' | 'error';
  question: string;
  options: string[];
  gold: string;
  predicted: string | null;
  rule: string | null;
  output: string;
  explanation: string | null;
  /** Thumbnails as data URLs (the report is one self-contained file). */
  images: { thumb: string; full: string; view: string | null }[];
}

/** What the HTML report shows. Charts arrive as SVG already rendered (see charts.ts). */
export interface HtmlReport {
  title: string;
  results: Results;
  baseline: boolean;
  manifestSummary: string;
  accuracyChartSvg: string;
  kappaHeatmapSvg: string | null;
  kappaNote: string;
  items: ReportItem[];
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
const pct = (x: number) => (100 * x).toFixed(1);

function cellRows(cells: Record<string, CellResult>): string {
  return Object.entries(cells)
    .map(([name, c]) => `<tr${c.small ? ' class="small"' : ''}><td>${escapeHtml(name)}${c.small ? ' *' : ''}</td><td>${c.n}</td><td>${pct(c.accuracy.value)}</td><td>${pct(c.accuracy.lo)}–${pct(c.accuracy.hi)}</td><td>${pct(c.bootstrap.lo)}–${pct(c.bootstrap.hi)}</td><td>${c.readByJudge}</td><td>${c.unparseable}</td><td>${c.error}</td></tr>`)
    .join('\n');
}

function table(id: string, first: string, cells: Record<string, CellResult>): string {
  return `<table id="${id}"><thead><tr><th>${first}</th><th>n</th><th>acc %</th><th>Wilson 95%</th><th>bootstrap 95%</th><th>read by judge</th><th>unreadable</th><th>error</th></tr></thead><tbody>\n${cellRows(cells)}\n</tbody></table>`;
}

function itemRow(item: ReportItem): string {
  const options = item.options.map((o, i) => {
    const letter = 'ABCD'[i]!;
    const marks = `${letter === item.gold ? ' gold' : ''}${letter === item.predicted ? ' chosen' : ''}`;
    // ReXVQA's option texts already start with their letter ("A. …"): show it once.
    const text = o.replace(/^\s*[A-D]\s*[.):]\s*/, '');
    const said = [letter === item.gold ? 'gold' : '', letter === item.predicted ? 'model' : ''].filter(Boolean).join(', ');
    return `<li class="${marks.trim()}"><span class="letter">${letter}.</span> ${escapeHtml(text)}${said ? ` <span class="mark">(${said})</span>` : ''}</li>`;
  });
  const images = item.images
    .map((im, i) => `<button type="button" class="thumb" data-full="${i}" title="${escapeHtml(im.view ?? 'view')}: click to enlarge"><img src="${im.thumb}" alt="${escapeHtml(im.view ?? 'view')}" width="96"></button><template>${`<img src="${im.full}" alt="${escapeHtml(im.view ?? 'view')}">`}</template>`)
    .join('');
  return `<article class="item ${item.status}" data-task="${escapeHtml(item.task)}" data-category="${escapeHtml(item.category)}" data-status="${item.status}">
<header><span class="status">${item.status}</span> <code>${escapeHtml(item.id)}</code> · ${escapeHtml(item.task)} · ${escapeHtml(item.category)}</header>
<div class="images">${images}</div>
<p class="q">${escapeHtml(item.question)}</p>
<ul class="options">${options.join('')}</ul>
<p>gold <b>${item.gold}</b> · predicted <b>${item.predicted ?? '—'}</b> · rule <code>${escapeHtml(item.rule ?? '—')}</code></p>
<details><summary>raw output</summary><pre>${escapeHtml(item.output)}</pre></details>
${item.explanation ? `<details><summary>reference explanation</summary><p>${escapeHtml(item.explanation)}</p></details>` : ''}
</article>`;
}

function options(values: string[]): string {
  return values.map((v) => `<option value="${escapeHtml(v)}">${escapeHtml(v)}</option>`).join('');
}

const STYLE = `body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:1100px;padding:0 1rem;color:#1a1a1a}
table{border-collapse:collapse;margin:.5rem 0 1.5rem}th,td{padding:.2rem .6rem;border-bottom:1px solid #ddd;text-align:right}th:first-child,td:first-child{text-align:left}
tr.small td{color:#777}.badge{background:#fde68a;padding:.1rem .4rem;border-radius:.3rem;font-size:.8rem}
.item{border:1px solid #ddd;border-radius:.4rem;padding:.6rem;margin:.6rem 0}.item.correct{border-left:6px solid #16a34a}.item.wrong{border-left:6px solid #dc2626}
.item.unparseable{border-left:6px solid #d97706}.item.error{border-left:6px solid #6b7280}.status{font-weight:600;text-transform:uppercase;font-size:.75rem}
.options{list-style:none;padding-left:.5rem}.options .gold{font-weight:600}.options .chosen{text-decoration:underline}.mark{color:#555;font-size:.85em}.thumb{border:0;padding:0;margin-right:.3rem;cursor:zoom-in;background:none}
pre{white-space:pre-wrap;background:#f6f6f6;padding:.5rem}dialog img{max-width:90vw;max-height:85vh}#filters{position:sticky;top:0;background:#fff;padding:.4rem 0}
.hidden{display:none}`;

// Filters and the image viewer. Without JavaScript everything is still shown.
const SCRIPT = `const f={task:document.getElementById('f-task'),category:document.getElementById('f-category'),status:document.getElementById('f-status')};
const count=document.getElementById('f-count');
function apply(){let n=0;for(const el of document.querySelectorAll('.item')){const ok=['task','category','status'].every(k=>!f[k].value||el.dataset[k]===f[k].value);el.classList.toggle('hidden',!ok);if(ok)n++;}count.textContent=n+' shown';}
for(const s of Object.values(f))s.addEventListener('change',apply);
const dlg=document.getElementById('viewer');
document.addEventListener('click',e=>{const b=e.target.closest('.thumb');if(b){dlg.querySelector('.slot').replaceChildren(b.nextElementSibling.content.cloneNode(true));dlg.showModal();}else if(e.target===dlg||e.target.closest('.close')){dlg.close();}});
apply();`;

/** Renders the self-contained HTML report: one file, no network, charts inline as SVG, images as data URLs. */
export function renderHtmlReport(report: HtmlReport): string {
  const r = report.results;
  const tasks = [...new Set(report.items.map((i) => i.task))].sort();
  const categories = [...new Set(report.items.map((i) => i.category))].sort();
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(report.title)}</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<style>${STYLE}</style></head><body>
<h1>${escapeHtml(report.title)} ${report.baseline ? '<span class="badge">baseline</span>' : ''}</h1>
<section id="summary"><p>Micro accuracy <b>${pct(r.overall.accuracy.value)}%</b> (Wilson ${pct(r.overall.accuracy.lo)}–${pct(r.overall.accuracy.hi)}; bootstrap over studies ${pct(r.overall.bootstrap.lo)}–${pct(r.overall.bootstrap.hi)}), n = ${r.overall.n}.
ReXrank overall (mean of ${r.rexrankOverall.tasks.length} task accuracies) <b>${pct(r.rexrankOverall.value)}%</b> (${pct(r.rexrankOverall.lo)}–${pct(r.rexrankOverall.hi)}).
Answers read: ${r.overall.readByRule} by the rules (${escapeHtml(r.reading.extractor)}), ${r.overall.readByJudge} by the judge (${escapeHtml(r.reading.judge ?? 'none used')}), ${r.overall.unparseable} unreadable — failed extractions, ${pct(r.overall.n ? r.overall.unparseable / r.overall.n : 0)}%, counted wrong. Errors ${r.overall.error}, not yet run ${r.notRun}.</p>
<p><small>${escapeHtml(report.manifestSummary)} · * fewer than ${r.settings.smallCell} questions · ${escapeHtml(r.settings.interval)}, ${r.settings.resamples} resamples, seed ${r.settings.seed}</small></p></section>
<h2>Accuracy per task</h2>
<figure id="accuracy-chart">${report.accuracyChartSvg}</figure>
${table('tasks', 'task', r.byTask)}
<h2>Categories</h2>
${table('categories', 'category', r.byCategory)}
<h2>Agreement (Cohen's κ)</h2>
<figure id="kappa-heatmap">${report.kappaHeatmapSvg ?? ''}</figure><p><small>${escapeHtml(report.kappaNote)}</small></p>
<h2>Items</h2>
<p id="items-legend"><small>In each item the <b>gold answer is bold</b> and <u>the model's answer is underlined</u>, each also marked in words; the left border is green when right, red when wrong, amber when no answer could be read, grey for an error.</small></p>
<div id="filters"><label>task <select id="f-task"><option value="">all</option>${options(tasks)}</select></label>
<label>category <select id="f-category"><option value="">all</option>${options(categories)}</select></label>
<label>status <select id="f-status"><option value="">all</option>${options(['correct', 'wrong', 'unparseable', 'error'])}</select></label> <span id="f-count"></span></div>
<div id="items">
${report.items.map(itemRow).join('\n')}
</div>
<dialog id="viewer"><button type="button" class="close">close</button><div class="slot"></div></dialog>
<script>${SCRIPT}</script>
</body></html>
`;
}
