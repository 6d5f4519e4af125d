/**
 * Benchmark: read 41,007 model outputs of ~1,500 characters (a private-test run) with the answer reader,
 * against the limit of 2 s; and read adversarial 1 MB outputs, against 50 ms each. The outputs are
 * generated from the answer habits the labelled corpus covers (JSON with explanation, reasoning that discusses
 * every option, think blocks, markdown analyses, conclusion-first, informal). Run: `./run bench:extract`.
 */
import { extractAnswer } from '../src/extract/extract.js';
import { LETTERS } from '../src/core/question.js';
import { seededRandom } from '../src/core/seeded-random.js';

const N = 41_007;
const random = seededRandom(11);
const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
const OPTION_SETS = [
  ['Left lower lobe', 'Right upper lobe', 'Bilateral lower lobes', 'Right middle lobe'],
  ['No pleural effusion', 'Small right effusion', 'Large left effusion', 'Small bilateral effusions'],
  ['About 1 cm', 'About 3 cm', 'About 5 cm', 'About 8 cm'],
  ['Atelectasis', 'Pneumonia', 'Pulmonary infarct', 'Lung adenocarcinoma'],
];
const FINDINGS = [
  'The cardiomediastinal silhouette is within normal limits for an AP projection.',
  'There is patchy airspace opacity in the lower zone with air bronchograms and no significant volume loss.',
  'The costophrenic angles are sharp and there is no pneumothorax.',
  'Support devices are in standard position; the endotracheal tube tip projects about 4 cm above the carina.',
  'The hila are not enlarged and the pulmonary vasculature is not redistributed.',
  'Osseous structures are intact without an acute fracture.',
];
function filler(chars: number): string {
  let out = '';
  while (out.length < chars) out += `${pick(FINDINGS)} `;
  return out.trim();
}
function output(letter: string, options: string[]): string {
  const discussion = options.map((o, i) => `Option ${LETTERS[i]} (${o}): ${LETTERS[i] === letter ? 'consistent with the findings.' : 'does not fit because the distribution differs.'}`).join('\n');
  switch (Math.floor(random() * 6)) {
    case 0: return JSON.stringify({ answer: letter, explanation: filler(1500) });
    case 1: return `${filler(1100)}\n\n${discussion}\n\nTherefore, the answer is ${letter}.`;
    case 2: return `<think>\n${filler(1000)} Maybe ${pick(LETTERS)}? ${filler(250)}\n</think>\n\n**Answer: ${letter}**\n\n${filler(250)}`;
    case 3: return `### Findings\n${filler(1000)}\n\n### Options\n${discussion}\n\n### Final Answer\n**${letter}. ${options[LETTERS.indexOf(letter as 'A')]}**`;
    case 4: return `${letter}. ${options[LETTERS.indexOf(letter as 'A')]}\n\n${filler(1500)} The other options are less likely.`;
    default: return `ok so ${filler(1500)} i'd say ${letter.toLowerCase()} tbh`;
  }
}
// Every question has its own options, as in ReXVQA (per-option work cannot be cached across questions).
const items = Array.from({ length: N }, (_, i) => {
  const options = pick(OPTION_SETS).map((o, k) => (k === 0 ? o : `${o} ${['(grade', '(type', '(site', '(size'][k]} ${i})`));
  const letter = pick(LETTERS);
  return { options, letter, text: output(letter, options) };
});
const meanChars = items.reduce((n, i) => n + i.text.length, 0) / N;
for (const it of items.slice(0, 2000)) extractAnswer(it.text, it.options); // warm-up
const started = process.hrtime.bigint();
let agree = 0;
for (const it of items) if (extractAnswer(it.text, it.options).letter === it.letter) agree++;
const seconds = Number(process.hrtime.bigint() - started) / 1e9;

const MB = 1 << 20;
const rep = (s: string) => s.repeat(Math.ceil(MB / s.length)).slice(0, MB);
const adversarial: Record<string, string> = {
  'unclosed <answer> tags': rep('<answer>'), 'spaces + one invalid byte': rep(' ') + '\ufffd', 'letters "A "': rep('A '), 'options loop "A. B. C. D."': rep('A. B. C. D. '),
  'open braces': rep('{'), 'balanced braces': '{'.repeat(MB / 2) + '}'.repeat(MB / 2), 'nested JSON 1000 deep': '{"a":'.repeat(1000) + '"B"' + '}'.repeat(1000),
  'unclosed \\boxed{': rep('\\boxed{'), '"The answer is "': rep('The answer is '), '"B or C or "': rep('B or C or '), 'one long word': rep('x'),
  'newlines': rep('\n'), '"answer: B" lines': rep('answer: B\n'), '"not A, "': rep('not A, '), 'option text': rep('right upper lobe '),
  'sentences': rep('The opacity is in the right upper lobe. '), 'CJK hedges': rep('答案是B或C，'), 'binary': Buffer.from(Array.from({ length: MB }, (_, i) => (i * 7919 + 13) % 256)).toString('latin1'),
};
const times = Object.entries(adversarial).map(([name, text]) => {
  const t0 = process.hrtime.bigint();
  extractAnswer(text, OPTION_SETS[0]);
  return { name, ms: Number(process.hrtime.bigint() - t0) / 1e6 };
});
const worst = times.reduce((a, b) => (b.ms > a.ms ? b : a));
const date = new Date().toISOString().slice(0, 10);
process.stdout.write(`${date} · ${N} outputs, mean ${Math.round(meanChars)} characters · ${seconds.toFixed(2)} s (limit 2 s: ${(seconds / 2).toFixed(2)} ×), ${((seconds / N) * 1e6).toFixed(0)} µs per output · read as generated: ${agree}/${N} · node ${process.version}\n`);
process.stdout.write(`${times.length} adversarial 1 MB outputs: worst ${worst.ms.toFixed(1)} ms (${worst.name}; limit 50 ms: ${(worst.ms / 50).toFixed(2)} ×), median ${times.map((t) => t.ms).sort((a, b) => a - b)[Math.floor(times.length / 2)]!.toFixed(1)} ms\n`);
