import { parsePredictions, type PredictionFormat } from '../core/prediction-file.js';
import { extractAnswer } from '../extract/extract.js';
import type { Store } from '../store/connect.js';
import type { StudyItem } from '../store/studies.js';

/** One model's letters on a study's items, read from predictions with the board's extractor. */
export function lettersOn(items: readonly Pick<StudyItem, 'question_id' | 'options_json'>[], predictions: ReadonlyMap<string, string>): Map<string, string | null> {
  return new Map(items.map((item) => [item.question_id, predictions.has(item.question_id) ? extractAnswer(predictions.get(item.question_id), JSON.parse(item.options_json) as string[]).letter : null]));
}

/**
 * The leaderboard entries of a study's benchmark as raters on its items: each scored submission's file is read
 * again, on the server, with the same extractor that scored it. Reported rows (no file) have no answers and are
 * left out. Only verified (participant and baseline) entries count.
 */
export async function entryAnswers(store: Store, benchmarkId: string, items: readonly StudyItem[]): Promise<{ name: string; answers: Map<string, string | null> }[]> {
  const rows = await store.db.selectFrom('entries').innerJoin('submissions', 'submissions.id', 'entries.submission_id').innerJoin('submission_files', 'submission_files.submission_id', 'submissions.id')
    .select(['submissions.model_json', 'submissions.format', 'submissions.kind', 'submission_files.content', 'submissions.created_at'])
    .where('entries.benchmark_id', '=', benchmarkId).where('submissions.kind', '!=', 'reported').orderBy('entries.rexrank_overall', 'desc').execute();
  const names = new Set<string>();
  return rows.map((r) => {
    const model = (JSON.parse(r.model_json) as { name?: string }).name ?? 'model';
    let name = r.kind === 'baseline' ? `[baseline] ${model}` : model;
    for (let k = 2; names.has(name); k++) name = `${model} (${k})`;
    names.add(name);
    return { name, answers: lettersOn(items, parsePredictions(r.content, r.format as PredictionFormat).predictions) };
  });
}
