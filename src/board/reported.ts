import { inPaperOrder } from '../core/question.js';
import type { ModelCard } from './model-card.js';

/** A published result imported as a reference row: shown as "reported, not verified here", never ranked in tiers. */
export interface ReportedResult {
  model: ModelCard;
  overall: number;
  byTask: Record<string, number>;
  unparseable: number;
  source: string;
}

const SOURCE = 'ReXrank V2.0 leaderboard (ReXVQA private test), as published';
const TASK_ORDER = ['Differential Diagnosis', 'Geometric Information Assessment', 'Location and Distribution Assessment', 'Negation Assessment', 'Presence Assessment'] as const;

// overall, then differential / geometric / location / negation / presence; unparseable (the paper's failed extractions, REFERENCE.md §3).
const TABLE: [string, boolean, number, number[], number][] = [
  ['MedGemma-4B-it', true, 0.8217, [0.7671, 0.8045, 0.8347, 0.8503, 0.8521], 0],
  ['Janus-Pro-7B', true, 0.6656, [0.5634, 0.7542, 0.6462, 0.7573, 0.607], 0],
  ['Qwen2.5-VL-7B', true, 0.6555, [0.6361, 0.6648, 0.6324, 0.8327, 0.5114], 0],
  ['Eagle2-9B', true, 0.6443, [0.6817, 0.5698, 0.5695, 0.8632, 0.5375], 0],
  ['Gemini-1.5-Pro', false, 0.6331, [0.6221, 0.4689, 0.596, 0.8568, 0.6217], 0],
  ['Qwen2-VL-7B', true, 0.547, [0.5265, 0.4494, 0.5405, 0.6269, 0.5915], 1],
  ['Phi-3.5-Vision', true, 0.4749, [0.6224, 0.2215, 0.3711, 0.795, 0.3644], 20],
  ['LLaVA-1.5-7B', true, 0.2661, [0.2161, 0.2346, 0.2761, 0.2402, 0.3633], 971],
];

/** The eight published ReXrank V2.0 results. */
export const REPORTED_REXRANK_V2: readonly ReportedResult[] = TABLE.map(([name, openWeights, overall, tasks, unparseable]) => ({
  model: { name, openWeights, notes: SOURCE },
  overall,
  byTask: Object.fromEntries(inPaperOrder(TASK_ORDER).map((t) => [t, tasks[(TASK_ORDER as readonly string[]).indexOf(t)]!])),
  unparseable,
  source: SOURCE,
}));

