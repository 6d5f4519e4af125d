import { assertFindings, placeOf, type FindingMention } from '../assertion.js';
import type { GeneratedQuestion } from '../generated-question.js';
import { findingEntry } from '../lexicon.js';
import { NESTED_REGIONS, REGION_FAMILY } from '../offline-generator.js';

const LOCATION_TASK = 'Location and Distribution Assessment';
const WHERE = /^where (?:is|are) the (.+?) (?:located|seen|situated)\??$/i;

/** Whether two regions name the same part of the lung ("base" and "lower zone"; the lingula and the upper lobe), or either is not given. */
const sameFamily = (a: string | null, b: string | null) => a === null || b === null || a === b || NESTED_REGIONS.has(`${a}|${b}`) || (REGION_FAMILY[a] !== undefined && REGION_FAMILY[a] === REGION_FAMILY[b]);

/**
 * c3 for location questions, from any generator (issue #23): the keyed place is the one the report binds to the
 * finding — its side, and its region where both give one — no other option is that place too, and no option is a
 * place the finding cannot be (a midline for a finding that always has a side, a region it never occupies). A
 * question worded otherwise, or about a finding the vocabulary does not know, is not judged here.
 */
export function locationFailures(q: GeneratedQuestion, evidence: readonly FindingMention[]): [string, string][] {
  if (q.task !== LOCATION_TASK) return [];
  const name = WHERE.exec(q.question.trim())?.[1];
  const finding = name ? assertFindings(name)[0]?.finding : undefined;
  const entry = finding ? findingEntry(finding) : undefined;
  if (!finding || !entry) return [];
  const failures: [string, string][] = [];
  const bound = evidence.filter((e) => e.finding === finding && e.status !== 'absent' && e.side !== null && !e.placeAmbiguous);
  const sides = new Set(bound.map((e) => e.side));
  const regions = [...new Set(bound.map((e) => e.region).filter((r): r is string => r !== null))];
  const answerIndex = 'ABCD'.indexOf(q.answer);
  const places = q.options.map((o) => ({ option: o, ...placeOf(o), midline: /\bmidline\b/i.test(o) }));
  const matches = (p: (typeof places)[number]) => p.side !== null && sides.has(p.side) && regions.length <= 1 && sameFamily(p.region, regions[0] ?? null);
  if (sides.size !== 1) failures.push(['c3', `location-unsupported: the report binds ${sides.size === 0 ? 'no side' : 'more than one side'} to ${finding}`]);
  else if (!matches(places[answerIndex]!)) failures.push(['c3', `location-unsupported: the report puts ${finding} ${[...sides][0]}${regions[0] ? `, ${regions[0]}` : ''}, the answer says "${q.options[answerIndex]}"`]);
  places.forEach((p, i) => {
    if (i === answerIndex) return;
    if (sides.size === 1 && matches(p)) failures.push(['c3', `second-correct-place: "${p.option}" is where the report puts ${finding} too`]);
    if ((p.midline && entry.laterality === 'lateral') || (p.region !== null && entry.regions.length > 0 && !entry.regions.includes(p.region))) failures.push(['c3', `impossible-place: ${finding} is never "${p.option}"`]);
  });
  return failures;
}

const SIDED_OPTION = /^(left-sided|right-sided|bilateral)\s+(.+)$/i;

/**
 * c3 for a side given in an option ("Left-sided pleural effusion", "Bilateral rib fractures"), from any generator and
 * any task (issue #23 item 7): a keyed side form names the one side the report binds to the finding, and no other
 * option names that side of it too. A report that binds no side, or more than one, settles no side form as the key.
 */
export function sideFormFailures(q: GeneratedQuestion, evidence: readonly FindingMention[]): [string, string][] {
  const answerIndex = 'ABCD'.indexOf(q.answer);
  const forms = q.options.map((o) => {
    const m = SIDED_OPTION.exec(o.trim());
    const finding = m ? assertFindings(m[2]!)[0]?.finding : undefined;
    return m && finding ? { option: o, side: m[1]!.toLowerCase().replace('-sided', ''), finding } : null;
  });
  const key = forms[answerIndex];
  if (!key) return [];
  const bound = new Set(evidence.filter((e) => e.finding === key.finding && e.status !== 'absent' && e.side !== null && !e.placeAmbiguous).map((e) => e.side));
  if (bound.size !== 1) return [['c3', `side-unsupported: the report binds ${bound.size === 0 ? 'no side' : 'more than one side'} to ${key.finding}, the answer says "${key.option}"`]];
  const side = [...bound][0]!;
  if (key.side !== side) return [['c3', `side-unsupported: the report puts ${key.finding} on the ${side === 'bilateral' ? 'both sides' : side}, the answer says "${key.option}"`]];
  return forms.flatMap((f, i) => (f && i !== answerIndex && f.finding === key.finding && f.side === side ? [['c3', `second-correct-side: "${f.option}" is the side the report gives ${key.finding} too`] as [string, string]] : []));
}
