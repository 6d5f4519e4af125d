/** The text scores of open-ended answers (`eval --open`) against the correct option's text. Pure types. */

/** Mean scores of a group of open-ended answers, each in [0, 1]; an unanswered question (error) scores 0. */
export interface OpenScoreMeans {
  n: number;
  /** Questions with an answer text (not an error). */
  answered: number;
  /** Share whose normalised answer equals the normalised correct option text. */
  exactMatch: number;
  /** Mean token F1 (SQuAD's: bag of normalised tokens). */
  tokenF1: number;
  /** Mean ROUGE-L F-measure (the rrg/ implementation). */
  rougeL: number;
}

/** An open run's scores: over all questions, and per task in the paper's order. */
export interface OpenEndedScores {
  overall: OpenScoreMeans;
  byTask: Record<string, OpenScoreMeans>;
}
