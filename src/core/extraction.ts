import type { Letter } from './question.js';

/**
 * What answer extraction read from a model's output: a letter and the rule that found it, or null with the reason
 * there is no single answer (`empty`, `refusal`, `hedge`, `invalid-answer`, `no-match`). Null is "unparseable":
 * it is counted as such and never replaced by a guess.
 */
export interface Extraction {
  letter: Letter | null;
  rule: string;
  /** Character range of the output the decision rests on, when there is one. */
  span?: [number, number];
}

/** The extractor that produced a set of extractions, recorded in run manifests. */
export interface ExtractorInfo {
  name: string;
  version: string;
  strict: boolean;
  rules: { name: string; version: string }[];
}
