import { LETTERS, type Letter, type Question } from '../../core/question.js';
import { baselineAnswer, localFailure, type ModelAdapter, requireQuestion } from '../adapter.js';
import { contentTokens } from './tokens.js';

/** The report text of a question's study (findings, impression, comparison), or '' when the record has none. */
export function reportText(question: Question): string {
  return ['Findings', 'Impression', 'Comparison']
    .map((field) => question.meta[field])
    .filter((v): v is string => typeof v === 'string' && v.trim() !== '' && v !== 'None')
    .join(' ');
}

/**
 * Picks the option whose distinctive words (those not shared by all four options) best appear in the report:
 * the share of them found. No report, no distinctive word, or a tie at the top → no answer (counted unparseable).
 */
export function predictFromReport(question: Question): { letter: Letter | null; scores: number[] } {
  const report = new Set(contentTokens(reportText(question)));
  if (report.size === 0) return { letter: null, scores: [0, 0, 0, 0] };
  const optionWords = question.options.map((o) => new Set(contentTokens(o)));
  const shared = [...optionWords[0]!].filter((w) => optionWords.every((set) => set.has(w)));
  const scores = optionWords.map((set) => {
    const distinctive = [...set].filter((w) => !shared.includes(w));
    return distinctive.length === 0 ? 0 : distinctive.filter((w) => report.has(w)).length / distinctive.length;
  });
  const top = Math.max(...scores);
  const winners = scores.flatMap((s, i) => (s === top ? [i] : []));
  return { letter: top > 0 && winners.length === 1 ? LETTERS[winners[0]!]! : null, scores };
}

/** Baseline: answers from the study's report text alone (no image) — are the items grounded in their report? */
export function reportOracleBaseline(): ModelAdapter {
  return {
    spec: { kind: 'baseline', name: 'report-oracle', baseline: true, args: { method: 'distinctive-word-overlap-v1' } },
    needsImages: false,
    async generate(_request, context) {
      const question = requireQuestion(context, 'baseline:report-oracle');
      const { letter, scores } = predictFromReport(question);
      return baselineAnswer(letter, `baseline: report text overlap per option ${scores.map((s) => s.toFixed(2)).join('/')}`);
    },
    classifyError: localFailure,
  };
}
