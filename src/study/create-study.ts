import { CxrError } from '../core/errors.js';
import { LETTERS } from '../core/question.js';
import { benchmarkItems, type Benchmark } from '../store/benchmarks.js';
import type { Store } from '../store/connect.js';
import { imageContentType } from '../store/images.js';
import { createStudy, type NewStudyCase, type Study } from '../store/studies.js';
import { decodableImage, readCaseSet, readImageFile } from './case-source.js';
import { sampleCases, type SamplingPlan } from './sample.js';

/** A new study and the cases whose images are missing (the host must see these before inviting anyone). */
export interface CreatedStudy {
  study: Study;
  cases: number;
  pool: number;
  missing: { questionId: string; paths: string[] }[];
}

/** The questions the sample was drawn from: the whole set, or those of the chosen task. */
function poolSize(tasks: readonly string[], plan: SamplingPlan): number {
  return plan.task === null ? tasks.length : tasks.filter((t) => t === plan.task).length;
}

function missingOf(cases: readonly NewStudyCase[]): CreatedStudy['missing'] {
  return cases
    .map((c) => ({ questionId: c.questionId, paths: c.images.filter((i) => !i.contentType && !i.sha256).map((i) => (i.problem && i.problem !== 'missing' ? `${i.path} (${i.problem})` : i.path)) }))
    .filter((m) => m.paths.length > 0 || cases.find((c) => c.questionId === m.questionId)!.images.length === 0)
    .map((m) => (m.paths.length > 0 ? m : { ...m, paths: ['(the record lists no image)'] }));
}

/** Creates a study (draft) from a question set on disk: the sample drawn by `plan`, images read from their files. */
export async function createStudyFromSet(store: Store, actor: string, input: { data: string; splits?: string[]; title: string; plan: SamplingPlan; publishScores?: boolean }): Promise<CreatedStudy> {
  const set = await readCaseSet(input.data, input.splits);
  const chosen = sampleCases(set.cases.map((c) => c.question.task), input.plan);
  const cases: NewStudyCase[] = [];
  for (const index of chosen) {
    const { question: q, images } = set.cases[index]!;
    const checked = await Promise.all(images.map(decodableImage));
    cases.push({
      questionId: q.id, studyRef: q.studyId, task: q.task, category: q.category ?? '(none)', question: q.text, options: q.options, gold: q.answer, explanation: q.explanation,
      images: checked.map((image) => ({ path: image.path, view: image.view, load: () => readImageFile(image), contentType: image.file ? imageContentType(image.file) : null, problem: image.problem })),
    });
  }
  const study = await createStudy(store, actor, { title: input.title, benchmarkId: null, source: set.source, sourceSha256: set.sha256, sampling: { ...input.plan, pool: poolSize(set.cases.map((c) => c.question.task), input.plan) }, seed: input.plan.seed, publishScores: input.publishScores ?? false }, cases);
  return { study, cases: cases.length, pool: poolSize(set.cases.map((c) => c.question.task), input.plan), missing: missingOf(cases) };
}

/** Creates a study (draft) from a benchmark of the board; its images are those stored with it (`board load --with-images`). */
export async function createStudyFromBenchmark(store: Store, actor: string, benchmark: Benchmark, input: { title: string; plan: SamplingPlan; publishScores?: boolean }): Promise<CreatedStudy> {
  const items = await benchmarkItems(store, benchmark.id);
  if (items.length === 0) throw new CxrError('not-found', `benchmark ${benchmark.slug} has no questions`);
  const stored = new Map((await store.db.selectFrom('benchmark_images').select(['path', 'sha256']).where('benchmark_id', '=', benchmark.id).execute()).map((r) => [r.path, r.sha256]));
  const chosen = sampleCases(items.map((i) => i.task), input.plan);
  const cases: NewStudyCase[] = chosen.map((index) => {
    const item = items[index]!;
    const record = JSON.parse(item.public_json) as { question?: string; ImagePath?: unknown; ImageViewPosition?: unknown };
    const paths = Array.isArray(record.ImagePath) ? record.ImagePath.map(String) : [];
    const views = Array.isArray(record.ImageViewPosition) ? record.ImageViewPosition : [];
    const options = (JSON.parse(item.options_json) as string[]).map((o, i) => o.replace(new RegExp(`^${LETTERS[i]}[.)]\\s*`), ''));
    return {
      questionId: item.question_id, studyRef: item.study_id, task: item.task, category: item.category, question: String(record.question ?? ''), options, gold: item.gold, explanation: null,
      images: paths.map((path, k) => ({ path, view: typeof views[k] === 'string' ? (views[k] as string) : null, sha256: stored.get(path) ?? null })),
    };
  });
  const study = await createStudy(store, actor, { title: input.title, benchmarkId: benchmark.id, source: `benchmark ${benchmark.slug} v${benchmark.version}`, sourceSha256: benchmark.content_sha256, sampling: { ...input.plan, pool: poolSize(items.map((i) => i.task), input.plan) }, seed: input.plan.seed, publishScores: input.publishScores ?? false }, cases);
  return { study, cases: cases.length, pool: poolSize(items.map((i) => i.task), input.plan), missing: missingOf(cases) };
}
