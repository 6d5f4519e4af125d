import { createHash } from 'node:crypto';

/**
 * The model-backed generator's prompts, versioned as the paper's were (12 iterations): changing any text bumps the
 * version and adds a changelog line; the sha256 of each is recorded with every question and in the dataset card.
 */
export interface GenerationPrompt {
  id: string;
  version: string;
  changelog: string[];
  system: string;
  user: string;
}

export const BULLETS_PROMPT: GenerationPrompt = {
  id: 'cxrbench-report-bullets',
  version: '1',
  changelog: ['1: first version — findings and impression to one bullet per finding, with status, side, region, size.'],
  system: 'You are a radiologist who restates chest X-ray reports as structured findings. You never add a finding the report does not state.',
  user: [
    'Rewrite the chest X-ray report below as bullet points, one per finding.',
    'For each finding give: what it is; whether the report says it is present, absent or uncertain; its side and region when stated; its size or severity when stated.',
    'Leave out anything that compares with a previous study, and anything about people, dates or places.',
    '',
    'FINDINGS: {{findings}}',
    'IMPRESSION: {{impression}}',
  ].join('\n'),
};

export const MCQ_PROMPT: GenerationPrompt = {
  id: 'cxrbench-bullets-to-mcq',
  version: '1',
  changelog: ['1: first version — ReXVQA schema, five tasks, one correct option, distractors as specific as the answer.'],
  system: 'You write four-option multiple-choice questions about chest X-rays for a benchmark of vision-language models. Reply with JSON only.',
  user: [
    'From the findings below, write up to {{max}} multiple-choice questions that a reader of the image could answer.',
    'Tasks: Presence Assessment, Negation Assessment, Differential Diagnosis, Location and Distribution Assessment, Geometric Information Assessment.',
    'Rules: exactly four options; exactly one is correct according to the findings; distractors are as long, specific and plausible as the answer; never refer to a previous study; never name a person, date or place; the explanation says which finding supports the answer.',
    'Give each question a category and subcategory (e.g. "Pleural Effusion" / "Effusion") and a difficulty: easy, medium or hard.',
    '',
    'FINDINGS:',
    '{{bullets}}',
  ].join('\n'),
};

/** sha256 of a prompt's text (system and user template). */
export const promptSha256 = (p: GenerationPrompt) => createHash('sha256').update(`${p.id}\u0000${p.version}\u0000${p.system}\u0000${p.user}`).digest('hex');

/** The JSON schema the MCQ reply must follow (sent as `response_format` and checked again on receipt). */
export const MCQ_JSON_SCHEMA: Record<string, unknown> = {
  type: 'object',
  additionalProperties: false,
  required: ['questions'],
  properties: {
    questions: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['question', 'options', 'answer', 'explanation', 'task_name', 'category', 'subcategory', 'difficulty'],
        properties: {
          question: { type: 'string' },
          options: { type: 'array', items: { type: 'string' }, minItems: 4, maxItems: 4 },
          answer: { type: 'string', enum: ['A', 'B', 'C', 'D'] },
          explanation: { type: 'string' },
          task_name: { type: 'string', enum: ['Presence Assessment', 'Negation Assessment', 'Differential Diagnosis', 'Location and Distribution Assessment', 'Geometric Information Assessment'] },
          category: { type: 'string' },
          subcategory: { type: 'string' },
          difficulty: { type: 'string', enum: ['easy', 'medium', 'hard'] },
        },
      },
    },
  },
};

/** Every prompt of the model-backed generator with its version, hash and changelog (for the dataset card). */
export const generationPrompts = () => [BULLETS_PROMPT, MCQ_PROMPT].map((p) => ({ id: p.id, version: p.version, sha256: promptSha256(p), changelog: p.changelog }));

/** The content judge's prompt: the paper's c1–c3 asked of a model, against the report the question came from. */
export const QUESTION_JUDGE_PROMPT: GenerationPrompt = {
  id: 'cxrbench-question-judge',
  version: '1',
  changelog: ['1: first version — c1 domain specificity, c2 cognitive depth, c3 clinical alignment, each pass/fail with a reason.'],
  system: 'You review multiple-choice questions written from chest X-ray reports for a benchmark. You judge strictly and reply with JSON only.',
  user: [
    'Report (the only ground truth):',
    '{{report}}',
    '',
    'Question: {{question}}',
    '{{options}}',
    'Keyed answer: {{answer}}',
    'Explanation: {{explanation}}',
    '',
    'Judge three things, each pass or fail with a one-sentence reason:',
    'c1 domain specificity: the question is about chest X-ray findings and every option is a sensible chest X-ray answer.',
    'c2 cognitive depth: answering needs the image; the wording of the question or options does not give the answer away.',
    'c3 clinical alignment: the report supports the keyed answer, no other option is also true according to the report, and nothing refers to a previous study.',
  ].join('\n'),
};

/** The JSON schema of the judge's reply. */
export const QUESTION_JUDGE_SCHEMA: Record<string, unknown> = {
  type: 'object',
  additionalProperties: false,
  required: ['c1', 'c2', 'c3'],
  properties: Object.fromEntries(['c1', 'c2', 'c3'].map((k) => [k, { type: 'object', additionalProperties: false, required: ['pass', 'reason'], properties: { pass: { type: 'boolean' }, reason: { type: 'string' } } }])),
};

/** The content judge's prompt with its version, hash and changelog (for the dataset card). */
export const judgePromptInfo = () => [QUESTION_JUDGE_PROMPT].map((p) => ({ id: p.id, version: p.version, sha256: promptSha256(p), changelog: p.changelog }));
