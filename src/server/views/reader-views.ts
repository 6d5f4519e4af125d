import { randomUUID } from 'node:crypto';
import { LETTERS } from '../../core/question.js';
import type { StudyAnswer } from '../../store/study-answers.js';
import type { StudyReader } from '../../store/study-readers.js';
import { publishRefusal, type StoredView, type Study, type StudyItem } from '../../store/studies.js';
import { attributes, html, type Html } from './html.js';

/** What a case page needs: never the gold or the explanation while the study is open. */
export interface ReaderCase {
  study: Pick<Study, 'id' | 'title' | 'state' | 'allow_edits'>;
  /** 1-based place in this reader's order, and how many cases there are. */
  k: number;
  total: number;
  answered: number;
  item: Pick<StudyItem, 'position' | 'question' | 'options_json'>;
  views: StoredView[];
  answer: StudyAnswer | undefined;
  csrf: string;
  locked: string | null;
  error: string | null;
}

/**
 * The views of a case in the image viewer (one per image, side by side). With `fileBase`, a browser without
 * JavaScript shows the image file itself (no window/level, but the film is there).
 */
export function viewerFigures(imageBase: string, views: readonly StoredView[], fileBase?: string): Html {
  return html`<section class="views" aria-label="Images">${views.map((v, i) => (v.sha256
    ? html`<figure class="cxr-view"${attributes({ 'data-src': `${imageBase}/${v.sha256}`, 'data-label': v.view ?? `Image ${i + 1}` })}>${fileBase ? html`<noscript><img src="${fileBase}/${v.sha256}" alt="${v.view ?? `Image ${i + 1}`} view (the viewer needs JavaScript)"></noscript>` : ''}<figcaption>${v.view ?? `Image ${i + 1}`}</figcaption></figure>`
    : html`<figure class="cxr-missing"><figcaption>${v.view ?? `Image ${i + 1}`}: the image file is missing</figcaption></figure>`))}</section>`;
}

export function progressBar(answered: number, total: number): Html {
  return html`<p class="progress"><label>Answered ${answered} of ${total} <progress${attributes({ max: total, value: answered })}>${answered} of ${total}</progress></label></p>`;
}

// Letters answer and digits rate: no key does both, so rating a case never changes its answer. Shown where there
// is likely a keyboard; TAP_HELP in its place on a phone or any narrow or touch-first screen (board.css).
const KEYS_HELP = html`<p class="help keys" id="keys-help">Keys: <kbd>A</kbd>–<kbd>D</kbd> answer · <kbd>1</kbd>–<kbd>5</kbd> set the confidence, once the case has an answer (before that they change nothing) · <kbd>N</kbd> or <kbd>→</kbd> next · <kbd>P</kbd> or <kbd>←</kbd> previous · in the viewer <kbd>I</kbd> invert, <kbd>R</kbd> reset, <kbd>F</kbd> fit, <kbd>+</kbd>/<kbd>−</kbd> zoom. Mouse: drag for window/level, right-drag or <kbd>Ctrl</kbd>-drag to pan, wheel or <kbd>Shift</kbd>-drag to zoom.</p>`;

/** The same guidance without a keyboard: what to tap. */
const TAP_HELP = html`<p class="help taps" id="tap-help">Tap an option to answer, then, if you like, a confidence from 1 (a guess) to 5 (certain); each choice is saved at once. Next and Previous move between cases. The buttons above each image zoom, fit, reset, invert and set its window.</p>`;

/** A case of a reader study: images, the question, four options, optional confidence, previous/next. */
export function casePage(c: ReaderCase): Html {
  const options = JSON.parse(c.item.options_json) as string[];
  const base = `/read/${c.study.id}`;
  const disabled = c.locked !== null;
  return html`<h1 class="case-title">Case ${c.k} of ${c.total} <span class="meta">${c.study.title}</span></h1>${progressBar(c.answered, c.total)}
${c.locked ? html`<p class="notice" role="status">${c.locked}</p>` : ''}${c.error ? html`<p class="problems" role="alert" id="answer-error">${c.error}</p>` : ''}
<div class="case">${viewerFigures(`${base}/img`, c.views, `${base}/file`)}
<form method="post" action="${base}/case/${c.k}" id="answer-form" class="answer"${attributes({ 'data-save': `${base}/api/save`, 'data-csrf': c.csrf, 'data-position': c.item.position, 'data-locked': disabled ? 'true' : undefined })}>
<input type="hidden" name="_csrf" value="${c.csrf}"><input type="hidden" name="visit" value="${randomUUID()}"><input type="hidden" name="elapsed" value="0">
<fieldset class="options"${attributes({ 'aria-describedby': c.error ? 'answer-error' : undefined })}><legend class="question">${c.item.question}</legend>
${options.map((text, i) => html`<label class="option"><input${attributes({ type: 'radio', name: 'answer', value: LETTERS[i]!, required: true, checked: c.answer?.answer === LETTERS[i], disabled })}> <span class="letter">${LETTERS[i]!}.</span> ${text}</label>`)}
</fieldset>
<fieldset class="confidence"><legend>Confidence (optional, once you have answered<span class="keys">; keys <kbd>1</kbd>–<kbd>5</kbd></span>): 1 a guess, 5 certain</legend>
${[1, 2, 3, 4, 5].map((n) => html`<label><input${attributes({ type: 'radio', name: 'confidence', value: n, checked: c.answer?.confidence === n, disabled })}> ${n}</label>`)}
</fieldset>
<div class="nav-buttons"><button type="submit" name="go" value="next" id="next">${c.k === c.total ? 'Finish' : 'Next'}</button>${c.k > 1 ? html`<button type="submit" name="go" value="prev" id="prev" formnovalidate>Previous</button>` : ''}</div>
<p id="save-status" class="help" role="status" aria-live="polite"></p></form></div>${KEYS_HELP}${TAP_HELP}
<link rel="stylesheet" href="/static/viewer.css"><script type="module" src="/static/viewer.js"></script><script src="/static/reader.js" defer></script>`;
}

/** A chosen letter with its option's text ("B. Pleural effusion"), or "—" when there is none. */
export function optionWithText(item: Pick<StudyItem, 'options_json'>, letter: string | null): string {
  if (letter === null) return '—';
  const text = (JSON.parse(item.options_json) as string[])[LETTERS.indexOf(letter as 'A')];
  return text === undefined ? letter : `${letter}. ${text}`;
}

/** How many of a study's cases there are, in all and per task (in the paper's order): what a published row can show. */
export interface StudyComposition {
  total: number;
  byTask: readonly (readonly [task: string, cases: number])[];
}

/**
 * What a published reader row shows, in words true of this study: the leaderboard shows no cell on fewer than
 * `minCell` cases (`ratersTable`'s public view), so the overall figure needs that many cases and a task's figure
 * that many cases of the task.
 */
function publishedFigures(cases: StudyComposition, minCell: number): string {
  if (cases.total < minCell) return `It would show only how many cases you answered: the leaderboard shows no accuracy on fewer than ${minCell} cases, and this study has ${cases.total}.`;
  const shown = cases.byTask.filter(([, n]) => n >= minCell).map(([task]) => task);
  const where = `where a task has at least ${minCell} of the study's cases`;
  if (shown.length === 0) return `It would show your accuracy overall; per-task figures appear only ${where}, and no task has that many here.`;
  return `It would show your accuracy overall, and per task ${where} (${shown.length === cases.byTask.length ? 'here every task' : `here: ${shown.join(', ')}`}) — fewer would tell which hidden answers were right.`;
}

/**
 * What a reader is told about publication: before they start, whether their score may go on the public
 * leaderboard, under which name and with which figures; after the study closes, what became of it.
 */
function publicationNotice(study: Pick<Study, 'state' | 'publish_scores' | 'benchmark_id' | 'published_at'>, name: string, answered: number, cases: StudyComposition, minCell: number): Html {
  const may = publishRefusal(study) === null;
  const text = study.state === 'closed'
    ? study.published_at === null ? html`Your score was not published: only the study's host sees the results, where you are named <strong>${name}</strong>.`
      : answered === cases.total ? html`The host published your score on this board's public leaderboard under the name <strong>${name}</strong>.`
      : html`The host published the scores of the readers who answered every case; yours (${answered} of ${cases.total} answered) is not among them.`
    : may ? html`Your score may be published: when the study closes, the host may show it on this board's public leaderboard under the name <strong>${name}</strong>, beside the models on the same cases — only if you answered every case. ${publishedFigures(cases, minCell)} Your answers case by case are never published.`
    : html`Your score will not be published: only the study's host sees the results, where you are named <strong>${name}</strong>.`;
  return html`<p class="notice" id="publication">${text}</p>`;
}

const utc = (at: string) => `${at.slice(0, 16).replace('T', ' ')} UTC`;

/**
 * Where the reader stands once they cannot simply go on reading: the study closed (answers final), or their
 * answers submitted — said first, so the page never invites them to start again.
 */
function readingDone(study: Pick<Study, 'id' | 'state' | 'allow_edits' | 'benchmark_id' | 'closed_at'>, submittedAt: string | null, answered: number, total: number): Html {
  const base = `/read/${study.id}`;
  const yours = submittedAt ? ` You submitted your answers on ${utc(submittedAt)}.` : answered === 0 ? ' You did not answer any case.' : ` You answered ${answered} of ${total} cases without submitting them; they count as they are.`;
  if (study.state === 'closed') {
    return html`<p class="notice" role="status" id="reading-state">The host closed the study${study.closed_at ? ` on ${utc(study.closed_at)}` : ''}: your answers are final.${yours}</p>
<p><a href="${base}/results" id="my-results">See your score${study.benchmark_id ? '' : ' and the reference answers'}</a></p>`;
  }
  return html`<p class="notice" role="status" id="reading-state">You submitted your answers on ${utc(submittedAt!)}. Thank you. ${study.allow_edits ? 'The host allows changes until the study closes.' : 'They are locked.'} You see your score${study.benchmark_id ? '' : ' and the reference answers'} here when the host closes the study.</p>
<p><a href="${base}/finish" id="my-answers-link">${study.allow_edits ? 'Your answers (change them)' : 'Your answers'}</a></p>`;
}

/**
 * The start page of a study for a reader: how reading works and where they are, or — once they submitted or the
 * study closed — that reading is over; and whether their score may go public.
 */
export function readerHome(study: Pick<Study, 'id' | 'title' | 'state' | 'allow_edits' | 'benchmark_id' | 'publish_scores' | 'published_at' | 'closed_at'>, reader: Pick<StudyReader, 'name' | 'submitted_at'>, answered: number, cases: StudyComposition, nextK: number | null, minPublicCell: number): Html {
  const base = `/read/${study.id}`;
  const total = cases.total;
  const done = study.state === 'closed' || reader.submitted_at !== null;
  return html`<h1>${study.title}</h1>${progressBar(answered, total)}
${done ? readingDone(study, reader.submitted_at, answered, total) : html`<p>You will read ${total} cases, each a chest X-ray with one question and four options. Choose one answer per case (you cannot go on without one) and, if you like, how confident you are. Answers are saved as you choose them: you can close the browser and come back to this page, on this or another device, and go on where you left off. When the study's host closes the study you see your score${study.benchmark_id ? '' : ' and the reference answers'}.</p>`}
${publicationNotice(study, reader.name, answered, cases, minPublicCell)}
${done ? '' : html`<p><a class="button" id="continue" href="${nextK === null ? `${base}/finish` : `${base}/case/${nextK}`}">${answered === 0 ? 'Start reading' : nextK === null ? 'Review and submit' : `Continue with case ${nextK}`}</a></p>${KEYS_HELP}${TAP_HELP}`}`;
}

/** A case in the reader's order with their answer and confidence, for the finish and results pages. */
export interface ReaderAnswerRow {
  k: number;
  item: StudyItem;
  answer: string | null;
  confidence: number | null;
}

/** Every case with the reader's answer (the option's text beside the letter) and confidence, and the submit button (which locks the answers). */
export function finishPage(study: Pick<Study, 'id' | 'title'>, rows: readonly ReaderAnswerRow[], csrf: string, submittedAt: string | null, locked: string | null, message: string | null): Html {
  const base = `/read/${study.id}`;
  const missing = rows.filter((r) => r.answer === null).length;
  return html`<h1>Your answers</h1>${message ? html`<p class="problems" role="alert">${message}</p>` : ''}
<div class="table-scroll"><table class="board" id="my-answers"><thead><tr><th>Case</th><th>Question</th><th>Answer</th><th>Confidence</th></tr></thead><tbody>
${rows.map((r) => html`<tr><td><a href="${base}/case/${r.k}">${r.k}</a></td><td>${r.item.question}</td><td>${optionWithText(r.item, r.answer)}</td><td>${r.confidence ?? '—'}</td></tr>`)}</tbody></table></div>
${submittedAt ? html`<p class="notice" role="status">Submitted on ${submittedAt.slice(0, 16).replace('T', ' ')} UTC.</p>`
    : locked ? html`<p class="notice">${locked}</p>`
    : html`<form method="post" action="${base}/submit" id="submit-answers"><input type="hidden" name="_csrf" value="${csrf}">
<p>${missing > 0 ? `${missing} case(s) still need an answer.` : 'Every case has an answer. Submitting locks your answers.'}</p><button${attributes({ id: 'submit-my-answers', disabled: missing > 0 })}>Submit my answers</button></form>`}`;
}

/**
 * After the study closes: the reader's score and their answers with confidence — beside the reference and its
 * explanation, unless the cases come from a board benchmark, whose gold answers are hidden test labels.
 */
export function readerResultsPage(study: Pick<Study, 'title'>, rows: readonly ReaderAnswerRow[], revealReference: boolean): Html {
  const correct = rows.filter((r) => r.answer === r.item.gold).length;
  return html`<h1>${study.title}: your answers</h1><p id="my-score">You answered ${correct} of ${rows.length} correctly.</p>
${revealReference ? '' : html`<p class="help" id="reference-withheld">The cases come from a benchmark whose answers are kept hidden (models are still being tested on them), so the reference answers are not shown case by case.</p>`}
<div class="table-scroll"><table class="board" id="my-results-table"><thead><tr><th>Case</th><th>Question</th><th>Yours</th><th>Confidence</th>${revealReference ? html`<th>Reference</th><th>Explanation</th>` : ''}</tr></thead><tbody>
${rows.map((r) => html`<tr><td>${r.k}</td><td>${r.item.question}</td><td>${optionWithText(r.item, r.answer)}</td><td>${r.confidence ?? '—'}</td>${revealReference ? html`<td>${optionWithText(r.item, r.item.gold)}</td><td>${r.item.explanation ?? ''}</td>` : ''}</tr>`)}</tbody></table></div>`;
}
