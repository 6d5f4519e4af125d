/**
 * What a model printed, made readable without changing what it says: Unicode compatibility forms (full-width
 * "Ｂ", "："), invisible characters, the end-of-turn tokens of chat templates, a transcript's user turn, and
 * reasoning blocks split from the answer that follows them.
 */
export interface NormalizedOutput {
  /** The answer part: after the reasoning block when there is one, else the whole output. */
  answer: string;
  /** The reasoning block's text (`<think>…</think>`), read only when the answer part commits to nothing. */
  reasoning: string | null;
  /** A reasoning block was opened and never closed: the model stopped before giving its answer. */
  unfinished: boolean;
}

/**
 * Outputs longer than this are read as their head and tail. A committed answer sits at the start
 * (answer-first) or the end (conclusion) of what a model writes; this bounds the time any output can take.
 */
export const MAX_READ_CHARS = 64_000;
const HEAD_CHARS = 16_000;

/** Chat-template tokens models leave in their text; replaced by a line break (they end turns). A turn opener takes its role word with it ("<start_of_turn>model"). */
const SPECIAL_TOKEN = /(?:<start_of_turn>|<\|im_start\|>|<\|start_header_id\|>)[ \t]*(?:model|assistant|system|user)?[ \t]*(?:<\|end_header_id\|>)?|<\|[^|<>\s]{1,40}\|>|<\/?s>|<(?:eos|bos|pad|unk|end_of_turn|start_of_turn|end_of_text|endoftext|eot)>|\[\/?INST\]|<\|?(?:im_start|im_end)\|?>/gi;
/** The reasoning tags of reasoning models. */
const THINK_OPEN = /<(think|thinking|reasoning|thought)>/i;
const THINK_CLOSE = /<\/(think|thinking|reasoning|thought)>/gi;
/** A transcript's turns ("USER: … ASSISTANT: …"): only the last assistant turn is the model's answer. */
const USER_TURN = /(?:^|\n)[ \t#*]*(?:USER|User|Human|HUMAN)[ \t*]*:/;
const ASSISTANT_TURN = /(?:^|\n)[ \t#*]*(?:ASSISTANT|Assistant|AI|GPT|Model|model)[ \t*]*:/g;
/** Cyrillic and Greek capitals that look like A, B, C, E (a reader sees the Latin letter). */
const HOMOGLYPHS: Record<string, string> = { А: 'A', В: 'B', С: 'C', Е: 'E', Α: 'A', Β: 'B', Ε: 'E' };
/** A look-alike capital standing alone (not a Russian preposition "В" before a word, not inside a word). */
const LONE_HOMOGLYPH = /(?<![\p{L}\p{N}])([АВСЕΑΒΕ])(?![\p{L}\p{N}])(?![ \t]+\p{Script=Cyrillic})/gu;

/** The head and tail of a long output, cut between words (a cut inside a word could leave a stray letter). */
function headAndTail(raw: string): string {
  let head = raw.slice(0, HEAD_CHARS);
  const lastSpace = head.search(/\s\S*$/);
  if (lastSpace > HEAD_CHARS - 200) head = head.slice(0, lastSpace);
  let tail = raw.slice(raw.length - (MAX_READ_CHARS - HEAD_CHARS));
  const firstSpace = tail.search(/\s/);
  tail = firstSpace !== -1 && firstSpace < 200 ? tail.slice(firstSpace) : tail.slice(Math.min(200, tail.length));
  return `${head}\n…\n${tail}`;
}

/** Splits and cleans a raw model output (see {@link NormalizedOutput}). Linear in the length of the output. */
export function normalizeOutput(raw: string): NormalizedOutput {
  let text = raw.length > MAX_READ_CHARS ? headAndTail(raw) : raw;
  // Each pass only when the text has what it changes: most outputs are plain ASCII without template tokens.
  if (/[^\x00-\x7f]/.test(text)) {
    text = text.normalize('NFKC').replace(/[\u200b-\u200f\u2060\ufeff\u00ad]/g, '').replace(LONE_HOMOGLYPH, (c) => HOMOGLYPHS[c] ?? c);
  }
  if (text.includes('\r')) text = text.replace(/\r\n?/g, '\n');
  if (text.includes('<') || text.includes('[')) text = text.replace(SPECIAL_TOKEN, '\n');
  if ((text.includes('USER') || text.includes('User') || text.includes('Human') || text.includes('HUMAN')) && USER_TURN.test(text)) {
    let last = -1;
    for (const m of text.matchAll(ASSISTANT_TURN)) last = m.index + m[0].length;
    if (last !== -1) text = text.slice(last);
  }
  let closeEnd = -1;
  let closeStart = -1;
  for (const m of text.includes('</') ? text.matchAll(THINK_CLOSE) : []) {
    closeStart = m.index;
    closeEnd = m.index + m[0].length;
  }
  if (closeEnd !== -1) {
    const open = THINK_OPEN.exec(text.slice(0, closeStart));
    const reasoning = text.slice(open ? open.index + open[0].length : 0, closeStart);
    return { answer: text.slice(closeEnd).trim(), reasoning: reasoning.trim(), unfinished: false };
  }
  const open = THINK_OPEN.exec(text);
  if (open && text.slice(0, open.index).trim() === '') return { answer: '', reasoning: text.slice(open.index + open[0].length).trim(), unfinished: true };
  return { answer: text.trim(), reasoning: null, unfinished: false };
}
