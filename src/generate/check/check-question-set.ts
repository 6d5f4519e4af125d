import { ISSUE_KINDS } from '../../core/dataset-issue.js';
import type { Question } from '../../core/question.js';
import type { CorpusReport } from '../../corpus/corpus-report.js';
import { detectLayout } from '../../dataset/layout.js';
import { readQuestions } from '../../dataset/read-dataset.js';
import { reportSections } from '../../dataset/study.js';
import { validateDataset } from '../../dataset/validate.js';
import type { GeneratedQuestion } from '../generated-question.js';
import { reportEvidence, reportStatus } from '../offline-generator.js';
import { allPairsIfSmall, diversityFilter, diversityText } from './diversity.js';
import { questionFailures } from './question-checks.js';
import type { Rejection } from './rejection.js';
import type { Embedder } from '../../models/embeddings.js';

/** What `cxrbench check` found: each validator's count, and every rejection with its reason. */
export interface CheckResult {
  questions: number;
  validators: { validator: string; checked: number; passed: number }[];
  rejections: Rejection[];
}

const VALIDATORS = ['v1', 'v2', 'v3', 'v4', 'c1', 'c2', 'c3', 'phi', 'diversity'];

/** A question of any ReXVQA-format set in the shape the content validators read; what it claims is read from its options. */
function asGenerated(q: Question): GeneratedQuestion {
  return { id: q.id, reportId: q.studyId, patientId: null, task: q.task, category: q.category ?? '', subcategory: q.subcategory ?? '', question: q.text, options: q.options, answer: q.answer, explanation: q.explanation ?? '', difficulty: 'medium', claim: null, evidence: null, generator: { kind: 'model', name: 'external', version: '?' }, images: q.images.map((i) => ({ path: i.path, view: i.view })) };
}

/**
 * The check layer on a question set already written in the official layout (by `generate`, by a model pipeline,
 * or by hand): the structural validators v1–v4 as `data validate` runs them, the content validators c1–c3 against
 * each record's own report (Findings and Impression), the PHI screen of the question text, and the diversity filter.
 */
export async function checkQuestionSet(path: string, similarity: number, embedder: Embedder | null = null, scope: 'study' | 'dataset' = 'study'): Promise<CheckResult> {
  const layout = detectLayout(path);
  const report = await validateDataset(layout, {});
  const rejections: Rejection[] = [];
  const failedBy = new Map<string, Set<string>>(VALIDATORS.map((v) => [v, new Set<string>()]));
  // A file that cannot be read (not JSON, cut short) fails the check as a whole, as it fails data validate.
  const fileErrors = report.errors.filter((i) => i.key === null);
  for (const issue of fileErrors) rejections.push({ questionId: `(file ${issue.file})`, reportId: '', validator: 'v1', reason: `${issue.code}: ${issue.message}` });
  if (fileErrors.length > 0) failedBy.get('v1')!.add('(file)');
  for (const issue of [...report.errors, ...report.warnings]) {
    if (issue.key === null || issue.code === 'optional-field-missing') continue;
    const group = ISSUE_KINDS[issue.code].group;
    // Warnings across records (the same question text in two splits, about different films) are data validate's
    // to report; a question fails here on its own record's problems, as generate checks it.
    if (issue.severity === 'warning' && group === 'integrity') continue;
    const validator = group.startsWith('v') ? group.slice(0, 2) : 'v4';
    failedBy.get(validator)!.add(issue.key);
    rejections.push({ questionId: issue.key, reportId: '', validator, reason: `${issue.code}: ${issue.message}` });
  }
  const questions: Question[] = [];
  for await (const q of readQuestions(layout)) questions.push(q);
  for (const q of questions) {
    const sections = reportSections(q.meta);
    const asReport: CorpusReport = { id: q.studyId, patientId: null, sections, images: [], source: { file: q.split, record: q.id } };
    const generated = asGenerated(q);
    const evidence = reportEvidence(asReport);
    const failures = questionFailures(generated, evidence, reportStatus(evidence, asReport));
    for (const [validator, reason] of failures) {
      failedBy.get(validator)!.add(q.id);
      rejections.push({ questionId: q.id, reportId: q.studyId, validator, reason });
    }
  }
  const texts = questions.map((q) => diversityText(q.text, q.options));
  const vectors = embedder ? await embedder.embed(texts) : undefined;
  const groups = new Map<string, number[]>();
  questions.forEach((q, i) => {
    const group = scope === 'dataset' ? '' : q.studyId;
    const members = groups.get(group);
    if (members) members.push(i);
    else groups.set(group, [i]);
  });
  for (const members of groups.values()) {
    const verdicts = diversityFilter(members.map((i) => texts[i]!), { threshold: similarity, ...allPairsIfSmall(members.length) }, vectors ? members.map((i) => vectors[i]!) : undefined);
    verdicts.forEach((v, k) => {
      if (v.kept) return;
      const q = questions[members[k]!]!;
      failedBy.get('diversity')!.add(q.id);
      rejections.push({ questionId: q.id, reportId: q.studyId, validator: 'diversity', reason: `near-duplicate: cosine ${v.similarity.toFixed(3)} > ${similarity} with ${questions[members[v.nearest]!]!.id}` });
    });
  }
  const total = report.counts.records;
  return { questions: total, validators: VALIDATORS.map((v) => ({ validator: v, checked: total, passed: total - failedBy.get(v)!.size })), rejections };
}
