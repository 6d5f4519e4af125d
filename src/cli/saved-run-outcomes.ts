import { join } from 'node:path';
import type { RunManifest } from '../core/manifest.js';
import type { Outcome, Prediction } from '../core/model-io.js';
import type { Question } from '../core/question.js';
import type { EndpointAnswerJudge } from '../judge/answer-judge.js';
import { judgeItemOf, outcomeOf, type JudgeVerdicts } from '../runner/outcomes.js';
import { RUN_FILES, writeManifest } from '../runner/run.js';
import type { AnswerReading } from '../score/results.js';
import { judgeManifest, storedJudge } from './judge-options.js';
import type { SavedRun } from './run-folder.js';

/** One question of a saved run with its latest prediction and outcome. */
export interface SavedRunItem {
  question: Question;
  prediction: Prediction | undefined;
  outcome: Outcome;
}

/** A saved run's outcomes, as its manifest says to read them. */
export interface SavedRunOutcomes {
  items: SavedRunItem[];
  /** Questions the run covers (some may not have been asked yet). */
  selected: number;
  reading: AnswerReading;
}

/** How a manifest says answers are read, for reports. */
export function readingOf(manifest: RunManifest): AnswerReading {
  const e = manifest.extractor;
  return { extractor: `${e.name} ${e.version}${e.strict ? ' (strict)' : ''}`, judge: e.judge ? `${e.judge.model.name} (prompt ${e.judge.prompt.name} v${e.judge.prompt.version})` : null };
}

/**
 * Re-reads every outcome of a saved run from its journal. Outputs the rules cannot read take the verdicts of
 * the judge the run recorded, from its journal (no request is sent). Given a `judge`, that judge is asked now
 * about what it has not decided yet, and (with `record`) the manifest is updated to say so.
 */
export async function savedRunOutcomes(run: SavedRun, judge: EndpointAnswerJudge | null = null, record = true): Promise<SavedRunOutcomes> {
  const strict = run.manifest.extractor.strict;
  const open = run.manifest.mode === 'open';
  const reader = judge ?? storedJudge(run.manifest.extractor.judge, join(run.dir, RUN_FILES.judge));
  let judged: JudgeVerdicts | undefined;
  if (reader) {
    const items = [];
    for await (const question of run.questions()) {
      const item = judgeItemOf(question, run.journal.latest.get(question.id), strict, open);
      if (item) items.push(item);
    }
    judged = { model: reader.model, verdicts: await reader.decide(items) };
  }
  if (judge && record) {
    run.manifest = { ...run.manifest, extractor: { ...run.manifest.extractor, judge: judgeManifest(judge, open) } };
    writeManifest(run.dir, run.manifest);
  }
  const items: SavedRunItem[] = [];
  let selected = 0;
  for await (const question of run.questions()) {
    selected++;
    const prediction = run.journal.latest.get(question.id);
    const outcome = outcomeOf(question, prediction, strict, judged, open);
    if (outcome) items.push({ question, prediction, outcome });
  }
  return { items, selected, reading: readingOf(run.manifest) };
}
