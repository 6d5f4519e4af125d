import { inPaperOrder } from '../core/question.js';
/** One question answered twice, with its options in two orders: the option text chosen each time (null: unparseable or error). */
export interface AnswerPair {
  task: string;
  original: string | null;
  shuffled: string | null;
  correctOriginal: boolean;
  correctShuffled: boolean;
}

/** Consistency of one group: how often the same option (by text) was chosen in both orders. */
export interface ConsistencyCounts {
  pairs: number;
  /** Pairs where both answers could be read. */
  bothAnswered: number;
  consistent: number;
  /** consistent / bothAnswered (null when none was answered twice). */
  rate: number | null;
  accuracyOriginal: number;
  accuracyShuffled: number;
}

/** The position-bias check result: consistency per task and overall. */
export interface ConsistencyReport {
  overall: ConsistencyCounts;
  byTask: Record<string, ConsistencyCounts>;
}

function counts(pairs: AnswerPair[]): ConsistencyCounts {
  const both = pairs.filter((p) => p.original !== null && p.shuffled !== null);
  const consistent = both.filter((p) => p.original === p.shuffled).length;
  const n = pairs.length;
  return {
    pairs: n,
    bothAnswered: both.length,
    consistent,
    rate: both.length === 0 ? null : consistent / both.length,
    accuracyOriginal: n === 0 ? 0 : pairs.filter((p) => p.correctOriginal).length / n,
    accuracyShuffled: n === 0 ? 0 : pairs.filter((p) => p.correctShuffled).length / n,
  };
}

/** Summarises answer pairs per task: a model without position bias picks the same option whatever its letter. */
export function consistencyReport(pairs: AnswerPair[]): ConsistencyReport {
  const tasks = inPaperOrder(pairs.map((p) => p.task));
  return { overall: counts(pairs), byTask: Object.fromEntries(tasks.map((t) => [t, counts(pairs.filter((p) => p.task === t))])) };
}
