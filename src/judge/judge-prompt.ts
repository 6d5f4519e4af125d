import { createHash } from 'node:crypto';
import type { JudgeItem, JudgeVerdict } from '../core/extraction.js';
import type { GenerationParams, ModelRequest } from '../core/model-io.js';
import { LETTERS, type Letter } from '../core/question.js';

/** The end both judge prompts share: the question and options, the response between markers, and the reply asked for. */
const ASK_FOR_A_LETTER = ['', '{{question}}Options:', '{{options}}', '', '<<<RESPONSE', '{{output}}', 'RESPONSE>>>', '', 'Reply with exactly one word: A, B, C, D or none.'] as const;

/**
 * The judge's fixed prompt. It asks for the option the output COMMITTED to, not for the right answer: the judge
 * reads, it never answers the question itself. Changing any text here changes what the judge decides, so the
 * version is bumped and the hash (recorded in every manifest that used the judge) changes with it.
 */
export const JUDGE_PROMPT = {
  name: 'cxrbench-answer-judge',
  version: '1',
  system:
    'You read the answers other models gave to multiple-choice questions and report which option each answer chose. ' +
    'You never answer the question yourself and never judge whether the answer is right.',
  user: [
    'A model was asked the multiple-choice question below and gave the response shown between the markers.',
    'Which single option did the response commit to as its final answer?',
    '',
    'Rules:',
    '- Read it as a careful person would: a conclusion after discussing the options counts; the last answer of a self-correction counts; an answer given first and then argued for counts.',
    '- An answer given as the option\'s text, an ordinal ("the second option") or in another language counts when it is unmistakable.',
    '- Reply none when the response refuses, hedges between options, names several options, chooses something that is not one of the options, says none of the options is right (unless an option says so), or stops before answering.',
    ...ASK_FOR_A_LETTER,
  ].join('\n'),
} as const;

/**
 * The judge's prompt for an open-ended answer (`eval --open`): the model never saw the options, so the judge is not
 * asked which option it committed to but which option says what its answer says — still never whether it is right.
 */
export const OPEN_JUDGE_PROMPT = {
  name: 'cxrbench-open-answer-judge',
  version: '1',
  system:
    'You read the free-text answers other models gave to questions and report which of a list of options each answer says. ' +
    'You never answer the question yourself and never judge whether the answer is right.',
  user: [
    'A model was asked the question below WITHOUT being shown any options, and gave the answer shown between the markers.',
    'Which single option below says the same as that answer?',
    '',
    'Rules:',
    '- Read it as a careful radiologist would: the same finding, side, place or grade in other words counts (a synonym, an abbreviation, a more specific term that can only mean that option).',
    '- The answer\'s final conclusion counts, not a possibility it mentions and sets aside.',
    '- Reply none when the answer refuses, hedges between options, matches several options, says something none of the options says, or stops before answering.',
    ...ASK_FOR_A_LETTER,
  ].join('\n'),
} as const;

type JudgePrompt = typeof JUDGE_PROMPT | typeof OPEN_JUDGE_PROMPT;
const promptSha = (prompt: JudgePrompt) => createHash('sha256').update(`${prompt.system}\u0000${prompt.user}`).digest('hex');

/** sha256 of the judge prompt (system + user template), as recorded in manifests. */
export const JUDGE_PROMPT_SHA256 = promptSha(JUDGE_PROMPT);
/** sha256 of the open-answer judge prompt. */
export const OPEN_JUDGE_PROMPT_SHA256 = promptSha(OPEN_JUDGE_PROMPT);

/** The prompt that judges an item, by whether its answer was given with the options shown or without. */
export const judgePromptFor = (item: Pick<JudgeItem, 'open'>) => (item.open ? { prompt: OPEN_JUDGE_PROMPT, sha256: OPEN_JUDGE_PROMPT_SHA256 } : { prompt: JUDGE_PROMPT, sha256: JUDGE_PROMPT_SHA256 });

/** Outputs longer than this are shown to the judge as their head and tail: the committed answer is rarely in the middle. */
const MAX_OUTPUT_CHARS = 8000;
const HEAD_CHARS = 1500;

function shorten(output: string): string {
  if (output.length <= MAX_OUTPUT_CHARS) return output;
  const tail = MAX_OUTPUT_CHARS - HEAD_CHARS;
  return `${output.slice(0, HEAD_CHARS)}\n[… ${output.length - MAX_OUTPUT_CHARS} characters omitted …]\n${output.slice(-tail)}`;
}

/** The request that asks the judge about one output; `requestId` identifies it in the judge's journal. */
export function buildJudgeRequest(item: JudgeItem, requestId: string, params: GenerationParams): ModelRequest {
  const fill: Record<string, string> = {
    question: item.question ? `Question: ${item.question}\n` : '',
    options: item.options.length > 0 ? item.options.map((o, i) => `${LETTERS[i]}. ${o}`).join('\n') : '(A, B, C, D — their texts were not given)',
    output: shorten(item.output),
  };
  // One pass over the template, so text inside the output that looks like a placeholder is never expanded.
  const { prompt } = judgePromptFor(item);
  const user = prompt.user.replace(/\{\{(question|options|output)\}\}/g, (_, name: string) => fill[name]!);
  return { questionId: requestId, messages: [{ role: 'system', content: prompt.system }, { role: 'user', content: [{ type: 'text', text: user }] }], params };
}

/**
 * Reads the judge's reply: one of A–D or "none", tolerating what models wrap single words in (quotes, markdown,
 * a final period, "Answer:", a reasoning block before it). Anything else is an unreadable reply — never a guess.
 */
export function parseJudgeReply(reply: string): JudgeVerdict {
  const afterThinking = reply.includes('</think>') ? reply.slice(reply.lastIndexOf('</think>') + 8) : reply;
  const word = afterThinking
    .normalize('NFKC')
    .trim()
    .replace(/^(?:final\s+)?answer\s*[:：]\s*/i, '')
    .replace(/^[\s*_`"'“‘([{]+|[\s*_`"'”’)\]}.!]+$/g, '');
  if (/^[A-D]$/i.test(word)) return { kind: 'letter', letter: word.toUpperCase() as Letter, reply };
  if (/^none$/i.test(word)) return { kind: 'none', reply };
  return { kind: 'unreadable-reply', reply };
}
