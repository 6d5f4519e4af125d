import { dirname } from 'node:path';
import type { Question } from '../core/question.js';
import { resolveImagePath } from '../dataset/image-path.js';
import { studyFromQuestion } from '../dataset/study.js';
import type { CorpusReport } from './corpus-report.js';

/**
 * The studies of a ReXVQA-format question set as a report corpus (one report per study, from the report fields
 * every record repeats), with image paths made absolute so a question set written elsewhere still finds them.
 */
export async function corpusFromQuestions(questions: AsyncIterable<Question>, questionFileOf: (q: Question) => string): Promise<CorpusReport[]> {
  const byStudy = new Map<string, CorpusReport>();
  for await (const q of questions) {
    if (byStudy.has(q.studyId)) continue;
    const study = studyFromQuestion(q);
    const base = dirname(questionFileOf(q));
    byStudy.set(q.studyId, {
      id: study.id,
      patientId: study.patient.id,
      sections: study.report,
      images: study.images.map((i) => ({ path: resolveImagePath(i.path, base, 'default'), view: i.view })),
      source: { file: questionFileOf(q), record: q.id },
    });
  }
  return [...byStudy.values()];
}
