import { isAbsolute, relative } from 'node:path';
import type { CorpusReport } from '../../corpus/corpus-report.js';
import { questionFailures } from '../check/question-checks.js';
import { structuralFailures } from '../check/structural.js';
import type { GeneratedQuestion } from '../generated-question.js';
import { generateOffline, reportEvidence, reportStatus } from '../offline-generator.js';
import { reportImageOnly, toGeneratedRecord } from '../official-record.js';

/** One question of a report with its official record and every validator failure (empty: it passed). */
export interface CheckedQuestion {
  q: GeneratedQuestion;
  record: Record<string, unknown>;
  failures: [string, string][];
}

/** What one report gave: its questions, checked, and whether the report names any finding it could quote. */
export interface ReportStage {
  questions: CheckedQuestion[];
  namesFindings: boolean;
}

/**
 * The per-report part of generate: the report read, questions made (by the templates, or given by a model), each
 * written as its official record and put through every per-question validator — structural (v1–v4), content and
 * attribute checks (c1–c3: support, location, side, grade) and a PHI screen of its own text. Pure: the same report
 * gives the same result on any thread, so generate may run it on several (stage/report-threads.ts).
 */
export function reportStage(safe: CorpusReport, made: GeneratedQuestion[] | 'offline', seed: number, seedKey: string, metadataDir: string): ReportStage {
  const evidence = reportEvidence(safe);
  const status = reportStatus(evidence, safe);
  // Records give image paths relative to their metadata/ folder, as the official files do: absolute corpus paths
  // are made relative to it; relative ones are written as the corpus gives them.
  const recordImagePath = (path: string) => (isAbsolute(path) ? relative(metadataDir, path) : path);
  const generated = made === 'offline' ? (safe.images.length === 0 ? [] : generateOffline(safe, seed, evidence, status, seedKey)) : made;
  const questions = generated.map((q) => ({ ...q, images: q.images.map((i) => ({ ...i, path: recordImagePath(i.path) })) }));
  // The report's own sentences, as every record of it carries them: worked out once per report.
  const imageOnly = questions.length === 0 ? undefined : reportImageOnly(safe);
  return {
    namesFindings: evidence.some((e) => e.quotable),
    questions: questions.map((q) => {
      const record = toGeneratedRecord(q, safe, imageOnly);
      const failures = [...structuralFailures(record, q.id), ...questionFailures(q, evidence, status)];
      return { q, record, failures };
    }),
  };
}
