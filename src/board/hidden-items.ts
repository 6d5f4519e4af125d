import type { Letter } from '../core/question.js';
import { benchmarkItems } from '../store/benchmarks.js';
import type { Store } from '../store/connect.js';
import type { HiddenItem } from './hidden-item.js';

// Hidden items never change once loaded: cache them per benchmark (per process or thread) so a submission does
// not re-read 41K rows.
const itemCache = new Map<string, Promise<HiddenItem[]>>();

/** The hidden items of a benchmark, in position order, loaded once. */
export function hiddenItemsOf(store: Store, benchmarkId: string): Promise<HiddenItem[]> {
  let items = itemCache.get(benchmarkId);
  if (!items) {
    items = benchmarkItems(store, benchmarkId).then((rows) => rows.map((r) => ({
      position: r.position, questionId: r.question_id, studyId: r.study_id, task: r.task, category: r.category, subcategory: r.subcategory,
      gold: r.gold as Letter, options: JSON.parse(r.options_json) as HiddenItem['options'],
    })));
    items.catch(() => itemCache.delete(benchmarkId));
    itemCache.set(benchmarkId, items);
  }
  return items;
}
