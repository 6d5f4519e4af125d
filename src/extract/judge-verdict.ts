import type { Extraction, JudgeVerdict } from '../core/extraction.js';

/**
 * Whether the judge should be asked about an extraction: every output the rules leave without an answer,
 * except an empty one (there is nothing to read). Outputs the rules read are never second-guessed.
 */
export function judgeWanted(extraction: Extraction): boolean {
  return extraction.letter === null && extraction.rule !== 'empty';
}

/**
 * The extraction once the judge has spoken: its letter with rule `judge` when it read one; otherwise the rules'
 * unreadable verdict, with the judge's reply (or failure) kept beside it so reports can count and show it.
 */
export function withJudgeVerdict(extraction: Extraction, verdict: JudgeVerdict | undefined, model: string): Extraction {
  if (verdict === undefined || !judgeWanted(extraction)) return extraction;
  const judge = { ...verdict, model };
  if (verdict.kind === 'letter') return { letter: verdict.letter, rule: 'judge', judge };
  return { ...extraction, judge };
}
