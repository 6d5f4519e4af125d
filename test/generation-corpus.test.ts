/**
 * Issue #23: the offline generator's reading of report sentences against people, on what a question's key is
 * made of — which findings a sentence asserts, present or absent (never a hedge read as either), and which side,
 * region and size or grade belong to which finding. The labelled corpus is test/fixtures/generation-corpus
 * (binding-dev / binding-heldout, written and labelled blind to the rules; see its README). Printed per file with
 * Wilson 95% intervals; the floors are the figures measured, so a change that makes keys worse fails here.
 * Never tune on held-out.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { corpusFindingName } from './helpers/corpus-names.js';
import { assertFindings, type FindingMention } from '../src/generate/assertion.js';
import { gradeOf } from '../src/generate/offline-generator.js';
import { wilson } from '../src/score/intervals.js';

interface Label { finding: string; status: 'present' | 'absent' | 'uncertain'; side: string | null; region: string | null; size: string | null; grade: string | null; subtype: string | null; ambiguous: string[] }
interface Item { id: string; style: string; sentence: string; findings: Label[] }

/** A rate with its count, for printing and floors. */
interface Rate { k: number; n: number }
const rate = (): Rate => ({ k: 0, n: 0 });
const tally = (r: Rate, ok: boolean) => {
  r.n++;
  if (ok) r.k++;
};

/** Our words for a size or grade, from the corpus's. */
const AMOUNT: Record<string, string> = { trace: 'Small', small: 'Small', moderate: 'Moderate', large: 'Large', mild: 'Mild', severe: 'Severe', minimal: 'Mild' };

export function measureBinding(file: string) {
  const items = readFileSync(new URL(`./fixtures/generation-corpus/${file}.jsonl`, import.meta.url), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Item);
  const r = {
    /** Of the findings we read as present, the share the label has present (a presence key). */
    presentRight: rate(),
    /** Of the findings we read as absent, the share the label has absent (a negation key). */
    absentRight: rate(),
    /** Of the findings the label calls uncertain that we found, the share we did not key as present or absent. */
    hedgesKept: rate(),
    /** Of the sides we give a present finding, the share the label gives it (and does not call ambiguous). */
    sideRight: rate(),
    /** The same for regions. */
    regionRight: rate(),
    /** Of the sizes / grades we read for a present finding, the share the label gives it. */
    amountRight: rate(),
    /** Of the fractures we name a kind (clavicle, vertebral compression), the share of that kind. */
    fractureKindRight: rate(),
    /** Of the labelled findings, the share we find at all (coverage, not correctness). */
    found: rate(),
  };
  for (const item of items) {
    const read = assertFindings(item.sentence).map((m) => ({ ...m, kind: m.finding, finding: corpusFindingName(m.finding) }));
    const labelFor = (m: Pick<FindingMention, 'finding' | 'side'>) => item.findings.filter((l) => l.finding === m.finding).sort((a, b) => Number(b.side === m.side) - Number(a.side === m.side))[0];
    for (const l of item.findings) tally(r.found, read.some((m) => m.finding === l.finding));
    for (const m of read) {
      const l = labelFor(m);
      if (!l) continue;
      if (m.status === 'present') tally(r.presentRight, l.status === 'present');
      // A fracture's kind: a clavicle fracture is not a vertebral one (the corpus says the kind in subtype).
      if (m.kind !== m.finding && m.kind !== 'fracture') tally(r.fractureKindRight, (l.subtype ?? '').startsWith(m.kind.replace(' fracture', '')));
      if (m.status === 'absent') tally(r.absentRight, l.status === 'absent');
      if (l.status === 'uncertain') tally(r.hedgesKept, m.status === 'uncertain');
      if (m.status !== 'present') continue;
      if (m.side !== null && !m.placeAmbiguous) tally(r.sideRight, m.side === l.side && !l.ambiguous.includes('side'));
      if (m.region !== null && !m.placeAmbiguous) tally(r.regionRight, m.region === l.region && !l.ambiguous.includes('region'));
      const amount = gradeOf(item.sentence, m.phrase, m.kind);
      if (amount) tally(r.amountRight, amount.value === AMOUNT[l.size ?? l.grade ?? ''] && !l.ambiguous.includes('size') && !l.ambiguous.includes('grade'));
    }
  }
  const shown = (x: Rate) => {
    const e = wilson(x.k, x.n);
    return `${(100 * e.value).toFixed(1)}% (${(100 * e.lo).toFixed(0)}–${(100 * e.hi).toFixed(0)}, ${x.k}/${x.n})`;
  };
  process.stdout.write(`# generation corpus ${file}: ${items.length} sentences — ${Object.entries(r).map(([k, v]) => `${k} ${shown(v)}`).join('; ')}\n`);
  return Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v.n === 0 ? 1 : v.k / v.n])) as Record<keyof typeof r, number>;
}

/**
 * Before the #23 rules (2026-11-26): dev presentRight 87.3%, absentRight 87.9%, hedgesKept 56.1%, sideRight 94.7%,
 * regionRight 83.3%, amountRight 94.2%; held-out 88.9%, 97.6%, 52.0%, 94.4%, 88.2%, 100%. The floors are the
 * figures after them (hedges, alternatives, look-alikes, binding through the finding's own phrase, grades by the
 * finding's scale and not against the prior, fracture kinds), rounded down.
 */
const FLOORS: Record<string, Partial<Record<string, number>>> = {
  'binding-dev': { presentRight: 0.96, absentRight: 0.92, hedgesKept: 0.86, sideRight: 0.98, regionRight: 0.98, amountRight: 0.97, fractureKindRight: 0.99, found: 0.89 },
  'binding-heldout': { presentRight: 0.97, absentRight: 0.97, hedgesKept: 0.88, sideRight: 0.99, regionRight: 0.99, amountRight: 0.99, fractureKindRight: 0.99, found: 0.85 },
};

for (const [file, floor] of Object.entries(FLOORS)) {
  test(`generation corpus (${file}): statuses keyed, sides, regions and sizes bound to the right finding`, () => {
    const r = measureBinding(file);
    for (const [key, min] of Object.entries(floor)) assert.ok(r[key as keyof typeof r] >= min!, `${key} ${(100 * r[key as keyof typeof r]).toFixed(1)}% < ${100 * min!}%`);
  });
}

interface JudgedItem { item_id: string; part: 'dev' | 'heldout' | 'fresh' | 'fresh2' | 'fresh3' | 'fresh4'; key: string; options: Record<string, string> }
interface Judgement { item_id: string; key_correct: boolean; correct_options: string[]; answerable_from_image: boolean; distractors_plausible: boolean; well_formed: boolean; problems: string[] }

/**
 * Generated items judged blind against their reports on the issue's five criteria (judged/README.md): the figures a
 * user would ask for — is the key right, is it the only right option — per part, with intervals. Items made by the
 * generator before the #23 rules ("before", 430 items, judged/README.md) and after most of them ("after", 310 items
 * made at commit 6dd2653 with the default limit, judged/AFTER-README.md), each judged by a judge who saw neither the
 * rules nor the other judgements. The judgements are of those items, fixed: rules changed since are measured by the
 * binding corpus above, and the next judging round.
 */
export function judgedRates(round: 'before' | 'after' | 'round3' | 'fresh' | 'fresh2' | 'fresh3' | 'fresh4') {
  const read = <T>(name: string) => readFileSync(new URL(`./fixtures/generation-corpus/judged/${round}-${name}.jsonl`, import.meta.url), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as T);
  const items = read<JudgedItem>('items');
  const judgements = new Map(read<Judgement>('judgements').map((j) => [j.item_id, j]));
  assert.deepEqual([...judgements.keys()].sort(), items.map((i) => i.item_id).sort(), `${round}: one judgement per item`);
  const out: Record<string, Record<string, Rate>> = {};
  for (const item of items) {
    const j = judgements.get(item.item_id)!;
    assert.ok(j.correct_options.every((o) => o in item.options), `${item.item_id}: correct options are options`);
    const onlyKey = j.correct_options.length === 1 && j.correct_options[0] === item.key;
    const r = (out[item.part] ??= { keyCorrect: rate(), exactlyOne: rate(), fromImage: rate(), distractorsPlausible: rate(), wellFormed: rate(), allFive: rate() });
    tally(r.keyCorrect!, j.key_correct);
    tally(r.exactlyOne!, onlyKey);
    tally(r.fromImage!, j.answerable_from_image);
    tally(r.distractorsPlausible!, j.distractors_plausible);
    tally(r.wellFormed!, j.well_formed);
    tally(r.allFive!, j.key_correct && onlyKey && j.answerable_from_image && j.distractors_plausible && j.well_formed);
  }
  for (const [part, r] of Object.entries(out)) {
    process.stdout.write(`# judged items (${round}, ${part}): ${Object.entries(r).map(([k, v]) => { const e = wilson(v.k, v.n); return `${k} ${(100 * e.value).toFixed(1)}% (${(100 * e.lo).toFixed(0)}–${(100 * e.hi).toFixed(0)}, ${v.k}/${v.n})`; }).join('; ')}\n`);
  }
  return out;
}

test('judged items (before #23): every item judged once; the rates are printed', () => {
  const r = judgedRates('before');
  assert.deepEqual(Object.keys(r).sort(), ['dev', 'heldout']);
});

test('judged items (after the #23 rules): every item judged once; the rates are printed', () => {
  const r = judgedRates('after');
  assert.deepEqual(Object.keys(r).sort(), ['dev', 'heldout']);
});

test('judged items (round 3, after the second round fixes): every item judged once; the rates are printed', () => {
  const r = judgedRates('round3');
  assert.deepEqual(Object.keys(r).sort(), ['dev', 'heldout']);
});

test('judged items (fresh corpus, blind: reports and judges new to the rules, never tuned on before judging): every item judged once; the rates are printed', () => {
  const r = judgedRates('fresh');
  assert.deepEqual(Object.keys(r), ['fresh']);
  assert.equal(r.fresh!.keyCorrect!.n, 323);
});

test('judged items (second fresh corpus, another hospital\'s mix, blind): every item judged once; the rates are printed', () => {
  const r = judgedRates('fresh2');
  assert.deepEqual(Object.keys(r), ['fresh2']);
  assert.equal(r.fresh2!.keyCorrect!.n, 374);
});

test('judged items (third fresh corpus: US templates, UK free text, teleradiology shorthand; blind): every item judged once; the rates are printed', () => {
  const r = judgedRates('fresh3');
  assert.deepEqual(Object.keys(r), ['fresh3']);
  assert.equal(r.fresh3!.keyCorrect!.n, 259);
});

test('judged items (fourth fresh corpus, blind, the generator after three rounds of fixes): the issue\'s bar — key correct and exactly one correct ≥ 98%, all five ≥ 95% — as measured', () => {
  const r = judgedRates('fresh4').fresh4!;
  assert.equal(r.keyCorrect!.n, 316);
  // The judgements are fixed data: these hold what was measured at commit 225c4f5 (FRESH4-README.md).
  assert.ok(r.keyCorrect!.k / r.keyCorrect!.n >= 0.98 && r.exactlyOne!.k / r.exactlyOne!.n >= 0.98 && r.allFive!.k / r.allFive!.n >= 0.95);
});
