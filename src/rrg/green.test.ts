import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cleanGreenReply, firstWords, GREEN_PROMPT_SHA256, greenOf, greenPromptFor, readGreenReply } from './green.js';

const NONE6 = [0, 0, 0, 0, 0, 0];

/** A reply in the judge's usual shape, as GREEN's own test responses look (Stanford-AIMI/GREEN tests/responses_test.csv). */
const USUAL = `:
The candidate report has missed several key findings from the reference report.

[Clinically Significant Errors]:
(a) False report of a finding in the candidate: 0.
(b) Missing a finding present in the reference: 2. Multiple chronic appearing left-sided rib fractures; No pneumothorax.
(c) Misidentification of a finding's anatomic location/position: 1. Blunting of the costophrenic angle is on the left, not the right.
(d) Misassessment of the severity of a finding: 0.
(e) Mentioning a comparison that isn't in the reference: 0.
(f) Omitting a comparison detailing a change from a prior study: 1. The prior study comparison is omitted.

[Clinically Insignificant Errors]:
(a) False report of a finding in the candidate: 0.
(b) Missing a finding present in the reference: 1. Trace atelectasis.
(c) Misidentification of a finding's anatomic location/position: 0.
(d) Misassessment of the severity of a finding: 0.
(e) Mentioning a comparison that isn't in the reference: 0.
(f) Omitting a comparison detailing a change from a prior study: 0.

[Matched Findings]:
1. Blunting of the costophrenic angle may be due to small pleural effusion.</s>`;

/**
 * Replies and what GREEN's parse_error_counts / compute_green make of them (green_score/green.py, commit 146649a4),
 * worked out by hand from its regular expressions; each case says which rule it exercises.
 */
const CASES: { name: string; reply: string; matched: number; significant?: number[]; insignificant?: number[]; readable?: boolean; green: number }[] = [
  { name: 'the usual reply', reply: USUAL, matched: 1, significant: [0, 2, 1, 0, 0, 1], insignificant: [0, 1, 0, 0, 0, 0], green: 1 / 5 },
  {
    name: 'only the categories with errors listed; "None." starts with "No", so that section counts nothing',
    reply: '[Clinically Significant Errors]:\n(b) Missing a finding present in the reference: 1. Rib fractures.\n(e) Mentioning a comparison that isn\'t in the reference: 1. CT thorax.\n\n[Clinically Insignificant Errors]:\nNone.\n\n[Matched Findings]:\n2. No pneumothorax; Pleural abnormalities unchanged.',
    matched: 2, significant: [0, 1, 0, 0, 1, 0], insignificant: NONE6, green: 2 / 4,
  },
  { name: 'no matched findings: GREEN is 0 whatever the errors', reply: '[Clinically Significant Errors]:\n(b) Missing a finding present in the reference: 1. Dilated esophagus.\n\n[Matched Findings]:\n0.', matched: 0, significant: [0, 1, 0, 0, 0, 0], green: 0 },
  { name: 'no errors: 1', reply: '[Clinically Significant Errors]:\n(a) False report of a finding in the candidate: 0.\n\n[Matched Findings]:\n3. A; B; C.', matched: 3, significant: NONE6, green: 1 },
  { name: "GPT-4's template numbers the categories", reply: '[Clinically Significant Errors]:\n(1) False report of a finding in the candidate: 2. X; Y.\n(4) Misassessment of the severity of a finding: 1. Z.\n\n[Matched Findings]:\n1. W.', matched: 1, significant: [2, 0, 0, 1, 0, 0], green: 1 / 4 },
  { name: 'letters win over numbers when both appear', reply: '[Clinically Significant Errors]:\n(1) False report of a finding in the candidate: 2. X.\n(c) Misidentification: 1. Z.\n\n[Matched Findings]:\n1. W.', matched: 1, significant: [0, 0, 1, 0, 0, 0], green: 1 / 2 },
  {
    name: 'the same category twice: the lines are sorted and the last one with a count wins',
    reply: '[Clinically Significant Errors]:\n(a) False report of a finding in the candidate: 3. X.\n(a) False report of a finding in the candidate: 1. Y.\n\n[Matched Findings]:\n1. W.',
    matched: 1, significant: [3, 0, 0, 0, 0, 0], green: 1 / 4,
  },
  { name: 'a count needs ": " before it and "." after it', reply: '[Clinically Significant Errors]:\n(a) False report: 2 findings.\n(b) Missing:3.\n(c) Misidentification: 4.\n\n[Matched Findings]:\n2. W.', matched: 2, significant: [0, 0, 4, 0, 0, 0], green: 2 / 6 },
  { name: 'a section ends at the first blank line: error lines after it are not counted', reply: '[Clinically Significant Errors]:\n(a) False report: 1. X.\n\n(b) Missing: 5. Y.\n\n[Matched Findings]:\n1. W.', matched: 1, significant: [1, 0, 0, 0, 0, 0], green: 1 / 2 },
  { name: 'blank lines right after a heading are skipped (\\s* before the text)', reply: '[Clinically Significant Errors]:\n\n\n(d) Misassessment: 2. X.\n\n[Matched Findings]:\n\n4. W.', matched: 4, significant: [0, 0, 0, 2, 0, 0], green: 4 / 6 },
  { name: 'the matched count must open the section and be followed by "."', reply: '[Clinically Significant Errors]:\n(a) False: 0.\n\n[Matched Findings]:\nThere are 2. W; V.', matched: 0, significant: NONE6, green: 0 },
  { name: 'a matched section that starts with "No" counts nothing', reply: '[Clinically Significant Errors]:\n(a) False: 0.\n\n[Matched Findings]:\nNone. 3. W.', matched: 0, significant: NONE6, green: 0 },
  { name: 'a category written inside a line still counts (findall finds it anywhere)', reply: '[Clinically Significant Errors]:\nErrors: (b) Missing a finding: 2. X; Y.\n\n[Matched Findings]:\n2. W.', matched: 2, significant: [0, 2, 0, 0, 0, 0], green: 2 / 4 },
  { name: 'the first count on a line is taken', reply: '[Clinically Significant Errors]:\n(b) Missing: 1. Rib fractures (old: 2.) unchanged.\n\n[Matched Findings]:\n1. W.', matched: 1, significant: [0, 1, 0, 0, 0, 0], green: 1 / 2 },
  { name: 'only the first "[Matched Findings]" section is read', reply: '[Clinically Significant Errors]:\n(a) False: 1. X.\n\n[Matched Findings]:\n1. W.\n\n[Matched Findings]:\n9. V.', matched: 1, significant: [1, 0, 0, 0, 0, 0], green: 1 / 2 },
  { name: 'Python\'s \\d reads other scripts\' digits (Arabic-Indic ٣ = 3)', reply: '[Clinically Significant Errors]:\n(a) False: ١. X.\n\n[Matched Findings]:\n٣. W.', matched: 3, significant: [1, 0, 0, 0, 0, 0], green: 3 / 4 },
  { name: 'a line break inside an error line is where Python\'s "." stops; \\r and \\u2028 are not', reply: '[Clinically Significant Errors]:\n(a) False report\r: 2.\u2028X.\n\n[Matched Findings]:\n1. W.', matched: 1, significant: [2, 0, 0, 0, 0, 0], green: 1 / 3 },
  { name: 'only the matched section: errors count 0', reply: 'The reports agree.\n\n[Matched Findings]:\n2. W; V.', matched: 2, significant: NONE6, green: 1 },
  { name: 'none of the sections: unreadable, 0 (GREEN returns 0 when no section is found)', reply: 'I cannot evaluate these reports.', matched: 0, significant: NONE6, readable: false, green: 0 },
  { name: 'the section name is matched exactly (case and brackets)', reply: '[clinically significant errors]:\n(a) False: 1. X.\n\nMatched Findings:\n1. W.', matched: 0, significant: NONE6, readable: false, green: 0 },
  { name: 'a count beyond what a number can hold is not a count: unreadable, 0', reply: '[Clinically Significant Errors]:\n(a) False: 99999999999999999999. X.\n\n[Matched Findings]:\n1. W.', matched: 1, readable: false, green: 0 },
];

test('GREEN reads the judge\'s reply as green.py does: a labelled set of replies, each rule named', () => {
  for (const c of CASES) {
    const r = readGreenReply(c.reply);
    assert.equal(r.matched, c.matched, `${c.name}: matched`);
    if (c.significant) assert.deepEqual(r.significant, c.significant, `${c.name}: significant errors`);
    if (c.insignificant) assert.deepEqual(r.insignificant, c.insignificant, `${c.name}: insignificant errors`);
    assert.equal(r.readable, c.readable ?? true, `${c.name}: readable`);
    assert.ok(Math.abs(greenOf(r) - c.green) < 1e-12, `${c.name}: GREEN ${greenOf(r)} ≠ ${c.green}`);
  }
});

test('GREEN cleans a decoded generation as process_responses does: what follows the last <|assistant|>, without </s> and <unk>', () => {
  assert.equal(cleanGreenReply('<|user|>\nprompt</s>\n<|assistant|>\n[Matched Findings]:\n1. W.</s><unk>'), '\n[Matched Findings]:\n1. W.');
  assert.equal(cleanGreenReply('[Matched Findings]:\n1. W.</s>'), '[Matched Findings]:\n1. W.', 'a served reply has no marker: the tokens go all the same, as GREEN always removes them');
  assert.equal(greenOf(readGreenReply('<|assistant|> [Clinically Significant Errors]:\n(a) X: 9.\n\n<|assistant|>\n[Matched Findings]:\n2. W.')), 1, 'only the last turn is read');
});

test("GREEN's prompt: the reports after a 200-word cut on white space, placed word for word", () => {
  const long = Array.from({ length: 250 }, (_, i) => `w${i}`).join(' \n\t');
  assert.equal(firstWords(long).split(' ').length, 200);
  assert.equal(firstWords('  a\u00a0b\u2003c\x1cd  '), 'a b c d', "Python's split() cuts at every Unicode space, \\x1c included");
  assert.equal(firstWords('a\ufeffb'), 'a\ufeffb', "the BOM is not a space to Python's split()");
  const prompt = greenPromptFor({ reference: 'Small left effusion.', candidate: long });
  assert.ok(prompt.startsWith('Objective: Evaluate the accuracy of a candidate radiology report'));
  assert.ok(prompt.includes('\n    2. Reference Report:\n    Small left effusion.\n\n    3. Candidate Report:\n    w0 w1 '));
  assert.ok(prompt.includes(' w199\n\n    4. Reporting Your Assessment:'));
  assert.ok(!prompt.includes('w200'));
  // sha256 of GREEN's own make_prompt('{reference}', '{candidate}') (green_score/utils.py at 146649a4), computed with Python.
  assert.equal(GREEN_PROMPT_SHA256, '62ff3675597dd0994584f5b08cd33076bc5d74c72de27cf0124b0a9dac8aad0f', 'the template is GREEN\'s, character for character');
  assert.ok(prompt.endsWith('<The number of matched findings>. <Finding 1>; <Finding 2>; ...; <Finding n>\n    ```\n'));
});
