import { assertFindings, type FindingMention } from '../assertion.js';
import type { GeneratedQuestion } from '../generated-question.js';
import { findingEntry } from '../lexicon.js';
import { SIZE_WORDS, gradeOf } from '../offline-generator.js';

const GRADE_TASK = 'Geometric Information Assessment';
const HOW = /^how (?:large|severe|big|extensive|marked) (?:is|are) the (.+?)(?: on (?:this|the) (?:chest )?(?:radiograph|x-ray|film|image|study))?\??$/i;

/** The grade an option names ("Small", "trace", "Moderate-sized") on the finding's scale, or null when it names none. */
function optionGrade(option: string): { value: string; kind: 'size' | 'severity' | 'both' } | null {
  const first = option.trim().toLowerCase().split(/[^a-z]+/)[0] ?? '';
  const known = SIZE_WORDS[first];
  return known ? { value: known[0], kind: known[1] } : null;
}

/**
 * c3 for grade questions, from any generator (issue #23 item 7): the keyed grade is the one the report gives the
 * finding (one grade word of the finding's own scale, not graded against the prior), no other option is that grade
 * too, and no option is a grade the finding does not take ("Mild" effusion, "Small" cardiomegaly). A question worded
 * otherwise, or about a finding the vocabulary does not know, is not judged here.
 */
export function gradeFailures(q: GeneratedQuestion, evidence: readonly (FindingMention & { sentence: string })[]): [string, string][] {
  if (q.task !== GRADE_TASK) return [];
  const name = HOW.exec(q.question.trim())?.[1];
  const finding = name ? assertFindings(name)[0]?.finding : undefined;
  const scale = finding ? findingEntry(finding)?.scale : undefined;
  if (!finding || !scale) return [];
  const failures: [string, string][] = [];
  const grades = [...new Set(evidence.filter((e) => e.finding === finding && e.status === 'present').map((e) => gradeOf(e.sentence, e.phrase, finding)?.value ?? null).filter((g): g is string => g !== null))];
  const answerIndex = 'ABCD'.indexOf(q.answer);
  const options = q.options.map((o) => ({ option: o, grade: optionGrade(o) }));
  const key = options[answerIndex]!;
  if (grades.length !== 1) failures.push(['c3', `grade-unsupported: the report gives ${grades.length === 0 ? 'no grade' : `more than one grade (${grades.join(', ')})`} for ${finding}`]);
  else if (key.grade?.value !== grades[0]) failures.push(['c3', `grade-unsupported: the report calls ${finding} ${grades[0]!.toLowerCase()}, the answer says "${key.option}"`]);
  options.forEach((o, i) => {
    if (o.grade && o.grade.kind !== 'both' && o.grade.kind !== scale) failures.push(['c3', `nonexistent-grade: ${finding} is graded by ${scale}, never "${o.option}"`]);
    else if (i !== answerIndex && grades.length === 1 && o.grade?.value === grades[0]) failures.push(['c3', `second-correct-grade: "${o.option}" is the report's grade for ${finding} too`]);
  });
  return failures;
}
