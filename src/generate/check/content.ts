import { assertFindings } from '../assertion.js';
import type { GeneratedQuestion } from '../generated-question.js';
import { COMPARISON_WORDS } from '../offline-generator.js';
import { findingEntry } from '../lexicon.js';

const NEGATION_TASK = 'Negation Assessment';
const CATCH_ALL = /^(?:all|none|both|neither) of (?:the )?(?:above|these|them)\b/i;
const STOP = new Set(['a', 'an', 'the', 'of', 'in', 'on', 'at', 'is', 'are', 'and', 'or', 'with', 'to', 'this', 'these', 'which', 'what', 'where', 'side', 'sides']);
/** Lower-case letter-and-digit runs that are not stop words: a stem's and an option's short texts need no ICU segmentation. */
const contentWords = (text: string) => (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => !STOP.has(w));

/** The findings an option names (as the lexicon reads it), whatever the report says. */
const findingsNamed = (option: string) => new Set(assertFindings(option).map((m) => m.finding));

/**
 * The paper's content validators as offline heuristics, each failure named by validator and rule:
 * - c1 domain specificity: four distinct, non-empty options; no catch-all option ("all of the above");
 * - c2 cognitive depth: the answer is not given away by the stem; options of similar form (length within 4×);
 * - c3 clinical alignment: the answer is supported by the report and no distractor is (one true option); no
 *   comparison with a prior study in the question, options or explanation.
 * `reportStatus` is what the report asserts about each finding (present, absent or uncertain).
 */
export function contentFailures(q: GeneratedQuestion, reportStatus: Map<string, string>): [string, string][] {
  const failures: [string, string][] = [];
  const answerIndex = 'ABCD'.indexOf(q.answer);
  const answer = q.options[answerIndex] ?? '';
  const normalised = q.options.map((o) => o.trim().toLowerCase());
  if (normalised.some((o) => o === '') || new Set(normalised).size < 4) failures.push(['c1', 'options-not-distinct: two options are the same or one is empty']);
  if (q.options.some((o) => CATCH_ALL.test(o.trim()))) failures.push(['c1', 'catch-all-option: an option is "all/none of the above"']);
  const stem = new Set(contentWords(q.question));
  const answerWords = contentWords(answer);
  if (answerWords.length > 0 && answerWords.every((w) => stem.has(w)) && q.options.some((o, i) => i !== answerIndex && contentWords(o).some((w) => !stem.has(w)))) {
    failures.push(['c2', 'answer-in-stem: every word of the answer is in the question, and not of the other options']);
  }
  const lengths = q.options.map((o) => o.trim().length);
  if (Math.max(...lengths) > 4 * Math.max(1, Math.min(...lengths))) failures.push(['c2', `options-unlike: option lengths range from ${Math.min(...lengths)} to ${Math.max(...lengths)} characters`]);
  // The question and its options must not need a prior study; the explanation may quote a report sentence that
  // compares ("unchanged moderate effusion"), since the finding asked about is there now (issue #23).
  const text = `${q.question} ${q.options.join(' ')}`;
  const comparison = COMPARISON_WORDS.exec(text);
  if (comparison) failures.push(['c3', `comparison-content: "${comparison[0]}" refers to a prior study, which the images cannot show`]);
  // What the question claims: given by the template generator, else read from the options.
  // A negation question claims absence when its answer is a denial ("No pleural effusion") or it asks what is absent;
  // "what does it show regarding X?" keyed "Left-sided X" claims X is there.
  const claimsAbsence = /^no\s/i.test(answer.trim()) || (q.task === NEGATION_TASK && /\b(?:absent|not seen|not present|not shown)\b/i.test(q.question));
  const claimed = q.claim ?? { finding: [...findingsNamed(answer)][0] ?? null, status: claimsAbsence ? 'absent' : 'present', distractorFindings: q.options.filter((_, i) => i !== answerIndex).flatMap((o) => [...findingsNamed(o)]) };
  if (claimed.finding !== null && q.task !== 'Location and Distribution Assessment') {
    const said = reportStatus.get(claimed.finding);
    const supported = claimed.status === 'absent' ? said === 'absent' : said === 'present';
    if (!supported) failures.push(['c3', `answer-unsupported: the report ${said === undefined ? 'does not mention' : `says ${said} for`} ${claimed.finding}, the answer claims ${claimed.status}`]);
    for (const d of claimed.distractorFindings) {
      const dSaid = reportStatus.get(d);
      if (d === claimed.finding) continue;
      // "Which is absent?" needs every other option reported present; "which is present?" needs none of them present or hedged.
      if (claimed.status === 'absent' && dSaid !== 'present') failures.push(['c3', `distractor-not-present: the report ${dSaid === undefined ? 'does not mention' : `says ${dSaid} for`} "${d}", so it may be absent too`]);
      if (claimed.status === 'present' && (dSaid === 'present' || dSaid === 'uncertain')) failures.push(['c3', `distractor-supported: the report also says ${dSaid} for "${d}", so two options may be true`]);
      // A distractor implied by what the report has ("vascular congestion" beside oedema) may be true too — caught
      // here for a model's questions as for the templates' (issue #23).
      const implied = claimed.status === 'present' && dSaid === undefined ? [...reportStatus].find(([name, st]) => st === 'present' && name !== d && (findingEntry(name)?.overlaps.includes(d) ?? false)) : undefined;
      if (implied) failures.push(['c3', `distractor-implied: the report says ${implied[1]} for "${implied[0]}", which overlaps "${d}", so it may be true too`]);
    }
  }
  return failures;
}
