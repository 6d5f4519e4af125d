import { z } from 'zod';
import { TASK_NAMES } from '../../core/question.js';
import { DIFFICULTIES } from '../generated-question.js';

/** One question as the model must give it (the ReXVQA fields plus difficulty). */
export const ModelQuestion = z.object({
  question: z.string().trim().min(1),
  options: z.array(z.string().trim().min(1).transform((o) => o.replace(/^[A-D][.)]\s+/, ''))).length(4),
  answer: z.enum(['A', 'B', 'C', 'D']),
  explanation: z.string().trim().min(1),
  task_name: z.enum(TASK_NAMES),
  category: z.string().trim().min(1),
  subcategory: z.string().trim().min(1),
  difficulty: z.enum(DIFFICULTIES),
});
export type ModelQuestion = z.infer<typeof ModelQuestion>;

const Reply = z.object({ questions: z.array(z.unknown()) });

/** What a reply gave: the questions that follow the schema, and why each other one (or the whole reply) was refused. */
export interface ParsedReply { questions: ModelQuestion[]; problems: string[] }

/**
 * Reads the MCQ step's reply: JSON (also inside a ```json fence) of `{questions: [...]}`; each question is checked
 * against the schema on its own, so one bad question does not lose the others. A reply that is not JSON, a refusal
 * or an empty reply is one problem with its reason.
 */
export function parseMcqReply(text: string): ParsedReply {
  const trimmed = text.trim();
  if (trimmed === '') return { questions: [], problems: ['empty reply'] };
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(trimmed)?.[1] ?? trimmed;
  let value: unknown;
  try {
    value = JSON.parse(fenced);
  } catch (error) {
    const refusal = /\b(?:I can(?:no|')t|I'm sorry|I am unable|as an AI)\b/i.test(trimmed) ? 'the model refused' : `not JSON (${(error as Error).message})`;
    return { questions: [], problems: [`${refusal}: ${trimmed.slice(0, 120)}`] };
  }
  const reply = Reply.safeParse(value);
  if (!reply.success) return { questions: [], problems: [`reply breaks the schema: expected {"questions": [...]}, got ${JSON.stringify(value).slice(0, 120)}`] };
  const questions: ModelQuestion[] = [];
  const problems: string[] = [];
  reply.data.questions.forEach((raw, i) => {
    const q = ModelQuestion.safeParse(raw);
    if (q.success) questions.push(q.data);
    else problems.push(`question ${i + 1} breaks the schema: ${q.error.issues.map((x) => `${x.path.join('.') || '(question)'}: ${x.message}`).join('; ')}`);
  });
  return { questions, problems };
}
