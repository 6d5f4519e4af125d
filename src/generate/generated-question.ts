import type { Letter } from '../core/question.js';

/** Difficulty tiers, as the paper's generator assigns them. */
export const DIFFICULTIES = ['easy', 'medium', 'hard'] as const;
export type Difficulty = (typeof DIFFICULTIES)[number];

/**
 * A question made from one report, before checks, with its history: the report and sentence it came from and
 * the generator (template rules or a model) that made it.
 */
export interface GeneratedQuestion {
  id: string;
  reportId: string;
  patientId: string | null;
  task: string;
  category: string;
  subcategory: string;
  question: string;
  options: [string, string, string, string];
  answer: Letter;
  explanation: string;
  difficulty: Difficulty;
  /** The finding the answer names and what the question claims about it, for the content checks. */
  claim: { finding: string; status: 'present' | 'absent'; distractorFindings: string[] } | null;
  evidence: { section: string; sentence: string } | null;
  generator: { kind: 'template' | 'model'; name: string; version: string; model?: string; prompt?: { id: string; version: string; sha256: string } };
  images: { path: string; view: string | null }[];
}
