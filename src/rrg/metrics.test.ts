import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { sentenceBleu } from './bleu.js';
import { radcliqV1, RADCLIQ_V1, type RadcliqInputs } from './radcliq.js';
import { lcsLength, rougeL } from './rouge-l.js';
import { rexrankTokens, rougeTokens } from './tokenize.js';

test('BLEU-2 reproduces fast_bleu\'s own check vectors (three references, the example\'s tokens)', () => {
  // fast_bleu's README example (NLTK's): the sentences as token lists, without the final full stops.
  const refs = [
    'It is a guide to action that ensures that the military will forever heed Party commands',
    'It is the guiding principle which guarantees the military forces always being under the command of the Party',
    'It is the practical guide for the army always to heed the directions of the party',
  ].map((r) => r.split(' '));
  const hyp1 = 'It is a guide to action which ensures that the military always obeys the commands of the party'.split(' ');
  const hyp2 = 'he read the book because he was interested in world history'.split(' ');
  assert.equal(sentenceBleu(refs, hyp1), 0.7453559924999299);
  assert.equal(sentenceBleu(refs, hyp2).toPrecision(15), (0.0191380231127159).toPrecision(15));
  // trigram weights, the other column of the same example: equal to 8 decimals (fast_bleu's C++ arithmetic differs in
  // the 9th; the exact value is (17/18 · 10/17 · 7/16)^(1/3) = 0.6240726989…)
  assert.equal(sentenceBleu(refs, hyp1, [1 / 3, 1 / 3, 1 / 3]).toFixed(7), (0.6240726901657495).toFixed(7));
  assert.equal(sentenceBleu(refs, hyp1, [1 / 3, 1 / 3, 1 / 3]), Math.cbrt((17 / 18) * (10 / 17) * (7 / 16)));
  assert.equal(sentenceBleu(refs, hyp2, [1 / 3, 1 / 3, 1 / 3]).toFixed(7), (0.013720869575946234).toFixed(7));
});

test('BLEU-2 by hand: no unigram match is 0, an empty hypothesis is 0, brevity penalty on a short hypothesis', () => {
  assert.equal(sentenceBleu([['a', 'b']], ['c', 'd']), 0);
  assert.equal(sentenceBleu([['a', 'b']], []), 0);
  // hypothesis "a b" against "a b c d": p1 = 1, p2 = 1, BP = exp(1 - 4/2)
  assert.equal(sentenceBleu([['a', 'b', 'c', 'd']], ['a', 'b']), Math.exp(-1));
  // one bigram matched of three, clipped unigrams 3/4
  assert.equal(sentenceBleu([['the', 'heart', 'is', 'normal']], ['the', 'heart', 'the', 'size']), Math.sqrt((2 / 4) * (1 / 3)));
});

test('ReXrank tokens: lowercase, "." split off, only the space separates (newlines stay in tokens)', () => {
  assert.deepEqual(rexrankTokens('No effusion.  Heart size normal.\nLungs clear.'), ['no', 'effusion', '.', 'heart', 'size', 'normal', '.\nlungs', 'clear', '.']);
  assert.deepEqual(rougeTokens('Left-sided effusion, 2.5 cm.'), ['left', 'sided', 'effusion', '2', '5', 'cm']);
});

test('ROUGE-L by hand: LCS F-measure', () => {
  assert.equal(lcsLength(['a', 'b', 'c', 'd'], ['a', 'c', 'x', 'd']), 3);
  // LCS 3: P = 3/4, R = 3/5 → F = 2·0.75·0.6/1.35
  assert.equal(rougeL(['a', 'b', 'c', 'd', 'e'], ['a', 'c', 'x', 'd']), (2 * 0.75 * 0.6) / 1.35);
  assert.equal(rougeL(['a'], []), 0);
  assert.equal(rougeL(['a', 'b'], ['a', 'b']), 1);
});

/** The LCS table row by row, as rouge-score's _lcs_table fills it: the reference the bit-parallel LCS must equal. */
function lcsByTable(a: readonly string[], b: readonly string[]): number {
  let previous = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    const current = [0];
    for (let j = 1; j <= b.length; j++) current[j] = a[i - 1] === b[j - 1] ? previous[j - 1]! + 1 : Math.max(previous[j]!, current[j - 1]!);
    previous = current;
  }
  return previous[b.length]!;
}

test('ROUGE-L\'s bit-parallel LCS equals the LCS table on 3,000 random pairs: lengths across 32-bit words, tokens rare and frequent', () => {
  let seed = 7; // a fixed sequence: the same pairs every run
  const random = (n: number) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n);
  for (let k = 0; k < 3000; k++) {
    // small alphabets make tokens that recur 32 times and more (the precomputed masks), large ones rare tokens
    const alphabet = [2, 3, 5, 20, 200][k % 5]!;
    const lengthOf = () => [0, 1, 31, 32, 33, 63, 64, 65, 100, 300][random(10)]! + random(3);
    const a = Array.from({ length: lengthOf() }, () => `t${random(alphabet)}`);
    const b = Array.from({ length: lengthOf() }, () => `t${random(alphabet)}`);
    assert.equal(lcsLength(a, b), lcsByTable(a, b), `a = ${a.join(' ')}\nb = ${b.join(' ')}`);
  }
  // and two reports at the length limit (50,000 characters, some 8,000 tokens each): 250 words of the table at once
  const words = Array.from({ length: 40 }, (_, i) => `w${i}`);
  const [a, b] = [0, 1].map(() => Array.from({ length: 8000 }, () => words[random(words.length)]!));
  assert.equal(lcsLength(a!, b!), lcsByTable(a!, b!));
});

interface PublishedRow { dataset: string; track: string; model: string; bleu: number; bertscore: number; sembscore: number; radgraph: number; inv_radcliq_v1: number }

test('RadCliQ-v1: every one of the 96 published ReXrank V1.0 Findings rows is reproduced within its printed rounding', () => {
  const published = JSON.parse(readFileSync(new URL('../../test/fixtures/rexrank-v1/published.json', import.meta.url), 'utf8')) as { rows: PublishedRow[] };
  const rows = published.rows.filter((r) => r.track === 'Findings');
  assert.equal(rows.length, 96);
  assert.equal(new Set(rows.map((r) => r.model)).size, 24);
  assert.equal(new Set(rows.map((r) => r.dataset)).size, 4);
  const half = 0.0005;
  const outside: string[] = [];
  for (const row of rows) {
    // RadCliQ is linear: its extremes over the box of inputs ± half a printed unit are at the corners the signs pick.
    const corner = (lowest: boolean): RadcliqInputs => Object.fromEntries(RADCLIQ_V1.metrics.map((m, i) => [m, row[m] + ((RADCLIQ_V1.coef[i]! < 0) === lowest ? half : -half)])) as unknown as RadcliqInputs;
    const lo = radcliqV1(corner(true));
    const hi = radcliqV1(corner(false));
    assert.ok(lo > 0, `${row.dataset} ${row.model}: mean RadCliQ ≤ 0`);
    const [invLo, invHi] = [1 / hi, 1 / lo];
    if (row.inv_radcliq_v1 + half < invLo || row.inv_radcliq_v1 - half > invHi) outside.push(`${row.dataset} ${row.model}: published ${row.inv_radcliq_v1}, recomputed ${invLo.toFixed(4)}–${invHi.toFixed(4)}`);
  }
  assert.deepEqual(outside, []);
});
