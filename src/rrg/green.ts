/**
 * GREEN (Ostmeier et al. 2024, github.com/Stanford-AIMI/GREEN): a fine-tuned language model reads a reference and a
 * candidate report and writes its assessment in a fixed format — an explanation, clinically significant and
 * insignificant errors in six categories (a)–(f) with their counts, and the matched findings with theirs. The score
 * of a pair is matched / (matched + clinically significant errors).
 *
 * Only the judge's generation is external. The prompt, the reading of the judge's reply and the arithmetic are
 * here, as green_score/green.py and green_score/utils.py (commit 146649a4) do them, quirks included, so a reply gives
 * the number GREEN's own code gives it. Their regular expressions are Python's; the character classes below are
 * Python's where JavaScript's differ (Python's `\s`, and `.` that stops only at "\n").
 */
import { createHash } from 'node:crypto';

/** GREEN cuts both reports to their first 200 words (split on white space, joined by one space) before prompting. */
export const GREEN_MAX_WORDS = 200;

/** Python's `\s` on text (str.isspace): JavaScript's `\s` lacks \x1c–\x1f and \x85, and adds \ufeff. */
const PY_SPACE = '[\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const PY_SPACE_RUN = new RegExp(`${PY_SPACE}+`, 'u');

/** Python's `" ".join(text.split()[:n])`. */
export function firstWords(text: string, n = GREEN_MAX_WORDS): string {
  return text.split(PY_SPACE_RUN).filter((w) => w !== '').slice(0, n).join(' ');
}

/** GREEN's prompt (green_score/utils.py make_prompt), word for word: the judge was trained on it. */
export function greenPrompt(reference: string, candidate: string): string {
  return `Objective: Evaluate the accuracy of a candidate radiology report in comparison to a reference radiology report composed by expert radiologists.

    Process Overview: You will be presented with:

    1. The criteria for making a judgment.
    2. The reference radiology report.
    3. The candidate radiology report.
    4. The desired format for your assessment.

    1. Criteria for Judgment:

    For each candidate report, determine:

    The count of clinically significant errors.
    The count of clinically insignificant errors.

    Errors can fall into one of these categories:

    a) False report of a finding in the candidate.
    b) Missing a finding present in the reference.
    c) Misidentification of a finding's anatomic location/position.
    d) Misassessment of the severity of a finding.
    e) Mentioning a comparison that isn't in the reference.
    f) Omitting a comparison detailing a change from a prior study.
    Note: Concentrate on the clinical findings rather than the report's writing style. Evaluate only the findings that appear in both reports.

    2. Reference Report:
    ${reference}

    3. Candidate Report:
    ${candidate}

    4. Reporting Your Assessment:

    Follow this specific format for your output, even if no errors are found:
    \`\`\`
    [Explanation]:
    <Explanation>

    [Clinically Significant Errors]:
    (a) <Error Type>: <The number of errors>. <Error 1>; <Error 2>; ...; <Error n>
    ....
    (f) <Error Type>: <The number of errors>. <Error 1>; <Error 2>; ...; <Error n>

    [Clinically Insignificant Errors]:
    (a) <Error Type>: <The number of errors>. <Error 1>; <Error 2>; ...; <Error n>
    ....
    (f) <Error Type>: <The number of errors>. <Error 1>; <Error 2>; ...; <Error n>

    [Matched Findings]:
    <The number of matched findings>. <Finding 1>; <Finding 2>; ...; <Finding n>
    \`\`\`
`;
}

/** sha256 of the prompt template (recorded with results, and part of the judge's cache key). */
export const GREEN_PROMPT_SHA256 = createHash('sha256').update(greenPrompt('{reference}', '{candidate}')).digest('hex');

/** The prompt of one pair, after GREEN's 200-word cut of each report. */
export function greenPromptFor(pair: { reference: string; candidate: string }): string {
  return greenPrompt(firstWords(pair.reference), firstWords(pair.candidate));
}

/** The six error categories, in GREEN's order. */
export const GREEN_ERROR_CATEGORIES = [
  'False report of a finding in the candidate',
  'Missing a finding present in the reference',
  "Misidentification of a finding's anatomic location/position",
  'Misassessment of the severity of a finding',
  "Mentioning a comparison that isn't in the reference",
  'Omitting a comparison detailing a change from a prior study',
] as const;

/** What GREEN reads from one reply. */
export interface GreenReading {
  matched: number;
  /** Clinically significant errors per category (a)–(f). */
  significant: number[];
  /** Clinically insignificant errors per category (a)–(f) (not part of the score). */
  insignificant: number[];
  /**
   * False when the reply has neither a "[Clinically Significant Errors]" nor a "[Matched Findings]" section, or a
   * count too large to be a count: GREEN scores such a reply 0 (its default), and cxrbench names the study.
   */
  readable: boolean;
}

/**
 * GREEN's cleaning of a generated reply (utils.py process_responses): keep what follows the last "<|assistant|>",
 * without "</s>" and "<unk>". GREEN decodes prompt and reply together, so the marker is always there and the two
 * tokens are always removed; a served reply is the generation alone, so they are removed whether or not it has one.
 */
export function cleanGreenReply(reply: string): string {
  const marker = '<|assistant|>';
  const turn = reply.includes(marker) ? reply.slice(reply.lastIndexOf(marker) + marker.length) : reply;
  return turn.replaceAll('</s>', '').replaceAll('<unk>', '');
}

/**
 * A run of Unicode decimal digits (Python's `\d`) as a number. Every Unicode digit block is ten code points from 0 to 9
 * in order, and blocks that touch start on a multiple of ten from the first, so a digit's value is its distance from
 * the start of its run of digits, modulo ten.
 */
function digitsValue(digits: string): number {
  let value = 0;
  for (const ch of digits) {
    const cp = ch.codePointAt(0)!;
    let start = cp;
    while (/\p{Nd}/u.test(String.fromCodePoint(start - 1))) start--;
    value = value * 10 + ((cp - start) % 10);
  }
  return value;
}

/** Python's string order (by code point); JavaScript's default compares UTF-16 units. */
function byCodePoint(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

type Section = 'Clinically Significant Errors' | 'Clinically Insignificant Errors' | 'Matched Findings';

/** A section's text: from after "[Section]:" and white space up to the first blank line or the end (green.py's pattern). */
function sectionText(reply: string, section: Section): string | null {
  const pattern = new RegExp(`\\[${section}\\]:${PY_SPACE}*([\\s\\S]*?)(?:\\n${PY_SPACE}*\\n|$)`, 'u');
  return pattern.exec(reply)?.[1] ?? null;
}

/** green.py parse_error_counts for an error section: the count on each "(a) …: n." line, the last such line winning. */
function errorCounts(text: string): number[] {
  const counts = [0, 0, 0, 0, 0, 0];
  let labels = ['a', 'b', 'c', 'd', 'e', 'f'];
  let lines = text.match(/\([a-f]\) [^\n]*/gu) ?? [];
  if (lines.length === 0) {
    // GPT-4's template numbers the categories instead of lettering them.
    lines = text.match(/\([1-6]\) [^\n]*/gu) ?? [];
    labels = ['1', '2', '3', '4', '5', '6'];
  }
  lines.sort(byCodePoint);
  labels.forEach((label, position) => {
    for (const line of lines) {
      if (!line.startsWith(`(${label}) `)) continue;
      const count = /(?<=: )\p{Nd}+(?=\.)/u.exec(line);
      if (count) counts[position] = digitsValue(count[0]);
    }
  });
  return counts;
}

/** Reads one judge reply as green.py's parse_error_counts does (after cleanGreenReply). */
export function readGreenReply(reply: string): GreenReading {
  const text = cleanGreenReply(reply);
  const significantText = sectionText(text, 'Clinically Significant Errors');
  const insignificantText = sectionText(text, 'Clinically Insignificant Errors');
  const matchedText = sectionText(text, 'Matched Findings');
  const errors = (section: string | null) => (section === null || section.startsWith('No') ? [0, 0, 0, 0, 0, 0] : errorCounts(section));
  let matched = 0;
  if (matchedText !== null && !matchedText.startsWith('No')) {
    const count = /^\p{Nd}+(?=\.)/u.exec(matchedText);
    if (count) matched = digitsValue(count[0]);
  }
  const significant = errors(significantText);
  const insignificant = errors(insignificantText);
  const sane = [matched, ...significant, ...insignificant].every((n) => Number.isSafeInteger(n));
  return { matched, significant, insignificant, readable: sane && (significantText !== null || matchedText !== null) };
}

/** GREEN of one reading (green.py compute_green): 0 without matched findings, else matched / (matched + significant errors). */
export function greenOf(reading: GreenReading): number {
  if (!reading.readable || reading.matched === 0) return 0;
  return reading.matched / (reading.matched + reading.significant.reduce((s, n) => s + n, 0));
}
