/** A count with its share of the split, in percent (0–100, not rounded). */
export interface CountShare {
  count: number;
  pct: number;
}

/** The distribution of a per-study count (questions per study, images per study). */
export interface PerStudyDistribution {
  studies: number;
  min: number;
  median: number;
  mean: number;
  max: number;
  /** How many studies have each value, keyed by the value. */
  histogram: Record<string, number>;
}

/** Statistics of one split: the shape of the paper's Table 1 and the distributions a host checks. */
export interface SplitStats {
  /** Usable questions (records with errors are left out and counted in `excluded`). */
  total: number;
  excluded: number;
  byTask: Record<string, CountShare>;
  byCategory: Record<string, CountShare>;
  /** Subcategory counts within each category. */
  bySubcategory: Record<string, Record<string, CountShare>>;
  /** Correct-answer letter distribution (position bias of the key). */
  byAnswer: Record<string, CountShare>;
  questionsPerStudy: PerStudyDistribution;
  imagesPerStudy: PerStudyDistribution;
  /** View positions over the distinct images of the split. */
  viewPositions: Record<string, CountShare>;
}

/** Statistics of a dataset, per split in file order (train, valid, test first). */
export interface DatasetStats {
  splits: Record<string, SplitStats>;
}
