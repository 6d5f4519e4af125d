import type { ParsedPredictions } from '../core/prediction-file.js';
import { shortened } from '../core/binary-signature.js';
import type { Outcome } from '../core/model-io.js';
import { extractAnswer, EXTRACTOR_NAME, EXTRACTOR_VERSION } from '../extract/extract.js';
import { scoreOutcomes, type CellResult, type Results } from '../score/results.js';
import type { HiddenItem } from './hidden-item.js';

/** One kind of problem in an upload, with how many items it touches and the first of them. */
export interface SubmissionProblem {
  code: 'not-parseable' | 'no-id' | 'no-prediction' | 'duplicate-ids' | 'unknown-ids' | 'missing-ids' | 'invalid-letters' | 'empty';
  count: number;
  firstIds: string[];
  message: string;
}

/** What the leaderboard stores and shows of a scored submission: aggregates only, never per-item results. */
export interface EntryMetrics {
  n: number;
  correct: number;
  wrong: number;
  unparseable: number;
  /** Not read, and cut at the token limit (the upload's `finish_reason: length`). Absent from entries scored before it was counted. */
  truncated?: number;
  overall: CellResult;
  rexrankOverall: Results['rexrankOverall'];
  byTask: Record<string, CellResult>;
  /** Categories with at least `minPublicCell` items: a smaller cell would tell a submitter which items they got right. */
  byCategory: Record<string, CellResult>;
  hiddenCategories: number;
  /** The extractor (name and version) that read the answers; the board reads by rules only (no judge). */
  settings: Results['settings'] & { minPublicCell: number; extractor: string; strict: boolean };
}

export interface ScoreSettings {
  resamples: number;
  seed: number;
  /** Cells below this many items are not shown publicly. */
  minPublicCell: number;
  strict: boolean;
}

export const DEFAULT_SCORE_SETTINGS: ScoreSettings = { resamples: 1000, seed: 0, minPublicCell: 10, strict: false };

const SHOWN = 5;

function problem(code: SubmissionProblem['code'], ids: string[], describe: (count: number) => string): SubmissionProblem {
  // An id is echoed cut short: a 200,000-character id must not become a 200,000-character message.
  const first = ids.slice(0, SHOWN).map((id) => shortened(id));
  const shown = first.map((id) => JSON.stringify(id)).join(', ');
  return { code, count: ids.length, firstIds: first, message: `${describe(ids.length)}${ids.length > 0 ? `: ${shown}${ids.length > SHOWN ? ', …' : ''}` : ''}` };
}

/** A prediction too short to be an answer in words, that is not one of the four letters either ("E", "5", "AB"). */
function isInvalidLetter(text: string): boolean {
  const t = text.trim();
  return t.length > 0 && t.length <= 2 && !/^[A-Da-d][.):]?$/.test(t);
}

/**
 * Every problem of an upload against the hidden set, grouped by kind with counts and the first ids. Empty when
 * the upload can be scored. Nothing about the gold answers is used, so the messages reveal nothing.
 */
export function checkSubmission(parsed: ParsedPredictions, items: readonly HiddenItem[]): SubmissionProblem[] {
  const problems: SubmissionProblem[] = [];
  const byCode = new Map<string, string[]>();
  for (const p of parsed.problems) {
    const list = byCode.get(p.code) ?? [];
    list.push(p.id ?? p.where);
    byCode.set(p.code, list);
  }
  const fileLevel = parsed.problems.filter((p) => p.where === 'file');
  if (fileLevel.length > 0) return [{ code: 'not-parseable', count: 1, firstIds: [], message: fileLevel[0]!.message }];
  const lines = (code: string) => byCode.get(code) ?? [];
  if (lines('not-parseable').length) problems.push(problem('not-parseable', lines('not-parseable'), (n) => `${n} line(s) or record(s) could not be read`));
  if (lines('no-id').length) problems.push(problem('no-id', lines('no-id'), (n) => `${n} line(s) or row(s) have no id`));
  if (lines('no-prediction').length) problems.push(problem('no-prediction', lines('no-prediction'), (n) => `${n} id(s) have no prediction text`));
  if (lines('duplicate-id').length) problems.push(problem('duplicate-ids', lines('duplicate-id'), (n) => `${n} id(s) appear more than once`));
  if (parsed.predictions.size === 0 && problems.length === 0) return [{ code: 'empty', count: 0, firstIds: [], message: 'the file holds no predictions' }];
  const known = new Set(items.map((i) => i.questionId));
  const unknown = [...parsed.predictions.keys()].filter((id) => !known.has(id));
  if (unknown.length) problems.push(problem('unknown-ids', unknown, (n) => `${n} id(s) are not questions of this benchmark`));
  const withoutText = new Set(lines('no-prediction')); // reported above; not missing too
  const missing = items.map((i) => i.questionId).filter((id) => !parsed.predictions.has(id) && !withoutText.has(id));
  if (missing.length) problems.push(problem('missing-ids', missing, (n) => `${n} question(s) of the benchmark have no prediction`));
  const invalid = [...parsed.predictions].filter(([, text]) => isInvalidLetter(text)).map(([id]) => id);
  if (invalid.length) problems.push(problem('invalid-letters', invalid, (n) => `${n} prediction(s) are not a letter A–D nor an answer in words`));
  return problems;
}

/**
 * Scores a checked upload with the CLI's extraction and scorer. Returns the public metrics and the per-item
 * result string (one of c/w/u/t per item position) that stays on the server for paired rank tiers. An answer
 * no rule reads is `truncated` when its record says the reply was cut at the token limit (`cutShort`).
 */
export function scoreSubmission(items: readonly HiddenItem[], predictions: ReadonlyMap<string, string>, settings: ScoreSettings = DEFAULT_SCORE_SETTINGS, cutShort: ReadonlySet<string> = new Set()): { metrics: EntryMetrics; itemResults: string } {
  const outcomes: (Outcome & { views: number })[] = [];
  let itemResults = '';
  for (const item of items) {
    const extraction = extractAnswer(predictions.get(item.questionId), item.options, { strict: settings.strict });
    const status = extraction.letter === null ? (cutShort.has(item.questionId) ? 'truncated' : 'unparseable') : extraction.letter === item.gold ? 'correct' : 'wrong';
    itemResults += status[0];
    outcomes.push({ questionId: item.questionId, studyId: item.studyId, task: item.task, category: item.category, subcategory: item.subcategory, status, expected: item.gold, predicted: extraction.letter, extraction, views: 0 });
  }
  const results = scoreOutcomes(outcomes, items.length, { resamples: settings.resamples, seed: settings.seed, smallCell: settings.minPublicCell, groups: ['category'] });
  const byCategory = Object.fromEntries(Object.entries(results.byCategory).filter(([, c]) => c.n >= settings.minPublicCell));
  return {
    metrics: {
      n: results.overall.n,
      correct: results.overall.correct,
      wrong: results.overall.wrong,
      unparseable: results.overall.unparseable,
      truncated: results.overall.truncated,
      overall: results.overall,
      rexrankOverall: results.rexrankOverall,
      byTask: results.byTask,
      byCategory,
      hiddenCategories: Object.keys(results.byCategory).length - Object.keys(byCategory).length,
      settings: { ...results.settings, minPublicCell: settings.minPublicCell, extractor: `${EXTRACTOR_NAME} ${EXTRACTOR_VERSION}`, strict: settings.strict },
    },
    itemResults,
  };
}
