import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CxrError } from '../core/errors.js';
import { RunManifest } from '../core/manifest.js';
import type { Question } from '../core/question.js';
import { detectLayout } from '../dataset/layout.js';
import { readQuestions } from '../dataset/read-dataset.js';
import { drawStratifiedSample } from '../dataset/stratified-sample.js';
import { readJournal, type JournalState } from '../runner/journal.js';
import { RUN_FILES } from '../runner/run.js';

/** A saved run opened for re-scoring: its manifest, journal, and a way to stream its questions again. */
export interface SavedRun {
  dir: string;
  manifest: RunManifest;
  journal: JournalState;
  questions: () => AsyncIterable<Question>;
}

/** Opens a run folder written by `cxrbench eval`, with errors that name the missing or broken file. */
export function openSavedRun(dir: string): SavedRun {
  const manifestFile = join(dir, RUN_FILES.manifest);
  if (!existsSync(manifestFile)) throw new CxrError('path-not-found', `${dir}: not a run folder (no ${RUN_FILES.manifest}); give the --out folder of a cxrbench eval run`);
  let manifest: RunManifest;
  try {
    manifest = RunManifest.parse(JSON.parse(readFileSync(manifestFile, 'utf8')));
  } catch (error) {
    throw new CxrError('unreadable-file', `${manifestFile}: not a valid run manifest (${(error as Error).message.slice(0, 300)})`);
  }
  const journal = readJournal(join(dir, RUN_FILES.journal));
  const datasetFile = manifest.dataset.path;
  if (!existsSync(datasetFile)) throw new CxrError('path-not-found', `${manifestFile}: the run's dataset file ${datasetFile} is gone; the questions are needed to re-score`);
  const layout = detectLayout(datasetFile.endsWith('.jsonl') ? datasetFile : dirname(datasetFile));
  const limit = manifest.dataset.selected;
  const sample = manifest.sample;
  // A sampled run's questions are drawn again from the file with the recorded sample (the same pure function eval used).
  let sampledIds: Promise<Set<string>> | null = null;
  const drawSampledIds = async (spec: NonNullable<RunManifest['sample']>) => {
    const size = spec.share === null ? { kind: 'count' as const, n: spec.size } : { kind: 'share' as const, share: spec.share };
    return (await drawStratifiedSample(readQuestions(layout, [manifest.dataset.split]), { size, stratify: spec.stratify, seed: spec.seed })).sample.ids;
  };
  return {
    dir,
    manifest,
    journal,
    async *questions() {
      if (sample) {
        const ids = await (sampledIds ??= drawSampledIds(sample));
        for await (const q of readQuestions(layout, [manifest.dataset.split])) if (ids.has(q.id)) yield q;
        return;
      }
      let n = 0;
      if (limit === 0) return;
      for await (const q of readQuestions(layout, [manifest.dataset.split])) {
        yield q;
        if (++n >= limit) return;
      }
    },
  };
}
