import type { CountShare, DatasetStats, PerStudyDistribution, SplitStats } from '../core/dataset-stats.js';
import { inPaperOrder, type Question } from '../core/question.js';
import type { DatasetLayout } from './layout.js';
import { readQuestionFile } from './read-dataset.js';
import { UsabilityTracker } from './usable.js';

/** The label used for a question without category or subcategory, so it is counted rather than dropped. */
export const UNLABELLED = '(none)';

/** Options of {@link computeStats}. */
export interface StatsOptions {
  /** Leave out questions whose images are missing, as `data validate --images` does (same values). */
  images?: 'default' | string;
}

/**
 * Computes per-split statistics in one streaming pass: the paper's Table 1 (questions per task), category
 * and subcategory distributions, answer-letter balance, questions and images per study, and view positions.
 * Only usable questions are counted (the meaning `data validate` uses, see {@link UsabilityTracker}); the rest
 * are `excluded`. A dataset with a repeated key or a study in two splits is read a second time, since those
 * make records read earlier unusable. Memory grows with the number of studies, not questions.
 */
export async function computeStats(layout: DatasetLayout, options: StatsOptions = {}): Promise<DatasetStats> {
  const tracker = new UsabilityTracker(options.images);
  let splits = await accumulate(layout, tracker, true);
  if (tracker.needsSecondPass) splits = await accumulate(layout, tracker, false);
  return { splits };
}

async function accumulate(layout: DatasetLayout, tracker: UsabilityTracker, observe: boolean): Promise<DatasetStats['splits']> {
  const splits: DatasetStats['splits'] = {};
  for (const file of layout.files) {
    const split = new SplitAccumulator();
    for await (const event of readQuestionFile(file)) {
      if (event.kind !== 'record') continue;
      if (observe) tracker.observe(event);
      if (event.question && tracker.isUsable(event.question, file)) split.add(event.question);
      else split.excluded++;
    }
    splits[file.split] = split.result();
  }
  return splits;
}

class SplitAccumulator {
  excluded = 0;
  private total = 0;
  private readonly tasks = new Map<string, number>();
  private readonly categories = new Map<string, number>();
  private readonly subcategories = new Map<string, Map<string, number>>();
  private readonly answers = new Map<string, number>();
  private readonly views = new Map<string, number>();
  private readonly studies = new Map<string, { questions: number; images: number }>();

  add(q: Question): void {
    this.total++;
    bump(this.tasks, q.task);
    const category = q.category ?? UNLABELLED;
    bump(this.categories, category);
    let subs = this.subcategories.get(category);
    if (!subs) this.subcategories.set(category, (subs = new Map()));
    bump(subs, q.subcategory ?? UNLABELLED);
    bump(this.answers, q.answer);
    const study = this.studies.get(q.studyId);
    if (study) study.questions++;
    else {
      this.studies.set(q.studyId, { questions: 1, images: q.images.length });
      for (const image of q.images) bump(this.views, image.view ?? 'unknown');
    }
  }

  result(): SplitStats {
    const studies = [...this.studies.values()];
    const imageCount = studies.reduce((n, s) => n + s.images, 0);
    const tasks = shares(this.tasks, this.total);
    return {
      total: this.total,
      excluded: this.excluded,
      byTask: Object.fromEntries(inPaperOrder(Object.keys(tasks)).map((t) => [t, tasks[t]!])),
      byCategory: shares(this.categories, this.total),
      bySubcategory: Object.fromEntries(
        [...this.subcategories.entries()].sort(byCountThenName(this.categories)).map(([cat, subs]) => [cat, shares(subs, this.categories.get(cat) ?? 0)]),
      ),
      byAnswer: shares(this.answers, this.total, true),
      questionsPerStudy: distribution(studies.map((s) => s.questions)),
      imagesPerStudy: distribution(studies.map((s) => s.images)),
      viewPositions: shares(this.views, imageCount),
    };
  }
}

function bump(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

function byCountThenName(counts: Map<string, number>) {
  return ([a]: [string, unknown], [b]: [string, unknown]) => (counts.get(b) ?? 0) - (counts.get(a) ?? 0) || a.localeCompare(b);
}

/** Counts with their percentage of `total`, largest first (or by name, for answer letters). */
function shares(counts: Map<string, number>, total: number, byName = false): Record<string, CountShare> {
  const entries = [...counts.entries()].sort(byName ? ([a], [b]) => a.localeCompare(b) : byCountThenName(counts));
  return Object.fromEntries(entries.map(([name, count]) => [name, { count, pct: total === 0 ? 0 : (100 * count) / total }]));
}

function distribution(values: number[]): PerStudyDistribution {
  if (values.length === 0) return { studies: 0, min: 0, median: 0, mean: 0, max: 0, histogram: {} };
  const sorted = Float64Array.from(values).sort();
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  const histogram: Record<string, number> = {};
  for (const v of sorted) histogram[String(v)] = (histogram[String(v)] ?? 0) + 1;
  return {
    studies: sorted.length,
    min: sorted[0]!,
    median,
    mean: sorted.reduce((a, b) => a + b, 0) / sorted.length,
    max: sorted[sorted.length - 1]!,
    histogram,
  };
}
