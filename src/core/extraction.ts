import type { Letter } from './question.js';

/**
 * What the answer judge (a language model asked only about outputs the rules cannot read) decided for one
 * output: a letter; `none` (the output commits to no single option); a reply that is not one of A–D or none;
 * or no decision because the judge could not be reached.
 */
export type JudgeVerdict =
  | { kind: 'letter'; letter: Letter; reply: string }
  | { kind: 'none'; reply: string }
  | { kind: 'unreadable-reply'; reply: string }
  | { kind: 'failed'; error: string };

/**
 * What answer extraction read from a model's output: a letter and the rule that found it, or null with the reason
 * there is no single answer (`empty`, `refusal`, `hedge`, `multiple`, `invalid-answer`, `no-match`). Null is
 * "unparseable": it is counted as such and never replaced by a guess. When the judge was asked, `judge` holds
 * its verdict; a letter it gave is the extraction's letter, with rule `judge`.
 */
export interface Extraction {
  letter: Letter | null;
  rule: string;
  /** Character range of the output the decision rests on, when there is one. */
  span?: [number, number];
  /** The judge's verdict, when the rules left the output unparseable and a judge was asked. */
  judge?: JudgeVerdict & { model: string };
}

/** The extractor that produced a set of extractions, recorded in run manifests. */
export interface ExtractorInfo {
  name: string;
  version: string;
  strict: boolean;
  rules: { name: string; version: string }[];
}

/** One output the judge is asked about. `id` is unique within one request to the judge. */
export interface JudgeItem {
  id: string;
  output: string;
  /** The four option texts, without letters. */
  options: readonly string[];
  /** The question text, when known: it helps read an answer given in words. */
  question?: string;
  /** The answer was given without the options shown (`eval --open`): the judge maps it to the option that says the same. */
  open?: boolean;
}

/**
 * Reads the answers the rules could not: the runner and the commands call it with the unparseable items of a
 * run and get a verdict per item id (none for items it could not decide, e.g. when stopped). Implemented by
 * `judge/` over a model endpoint; defined here so the runner depends on the contract, not on the judge.
 */
export interface AnswerJudge {
  /** The judge's model name, as stored with each verdict and in the manifest. */
  readonly model: string;
  decide(items: readonly JudgeItem[], signal?: AbortSignal): Promise<Map<string, JudgeVerdict>>;
}

/** How an output was read: by the rules, by the judge, or not at all (the three counts every report shows). */
export type ReadBy = 'rule' | 'judge' | 'unparseable';

/** Which of the three counts an extraction belongs to. */
export function readBy(extraction: Extraction): ReadBy {
  if (extraction.letter === null) return 'unparseable';
  return extraction.rule === 'judge' ? 'judge' : 'rule';
}
