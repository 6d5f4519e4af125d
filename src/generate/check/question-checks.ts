import type { FindingMention } from '../assertion.js';
import { detectPhi } from '../../phi/detect.js';
import type { GeneratedQuestion } from '../generated-question.js';
import { contentFailures } from './content.js';
import { gradeFailures } from './grade.js';
import { locationFailures, sideFormFailures } from './location.js';

/**
 * Every check of one question against its report, beside the structural ones: content (c1–c3), location, a keyed
 * side form, a keyed grade, and a PHI screen of its own text — the same list for `generate` (any generator) and
 * `check` (any set), so the two never disagree about a question.
 */
export function questionFailures(q: GeneratedQuestion, evidence: readonly (FindingMention & { sentence: string })[], status: Map<string, string>): [string, string][] {
  return [
    ...contentFailures(q, status), ...locationFailures(q, evidence), ...sideFormFailures(q, evidence), ...gradeFailures(q, evidence),
    ...detectPhi(`${q.question}\n${q.options.join('\n')}\n${q.explanation}`).map((s): [string, string] => ['phi', `identifier in the question text: ${s.kind}`]),
  ];
}
