import { LETTERS } from '../core/question.js';
import { keyedSeed, seededRandom } from '../core/seeded-random.js';
import type { CorpusReport } from '../corpus/corpus-report.js';
import { assertFindings, type FindingMention, type Side } from './assertion.js';
import type { Difficulty, GeneratedQuestion } from './generated-question.js';
import { contextFindings } from './context.js';
import { absentGradeOf, be, denialOf, nameOf, regardingName, sidedName } from './grammar.js';
import { LEXICON, findingEntry, hasSide, optionLabel, overlapping, type FindingEntry } from './lexicon.js';
import { quotable } from './minimum-necessary.js';
import { sentences } from './words.js';

/** The template generator's name and version, recorded with every question it makes and in the card. */
export const OFFLINE_GENERATOR = { kind: 'template' as const, name: 'cxrbench-templates', version: '1' };

/** Words that mark a sentence as a comparison with a prior study: no question is made from it (paper: 6.7% of errors). */
export const COMPARISON_WORDS = /\b(?:compared|comparison|prior|previous|previously|interval|since|again|unchanged|stable|new|newly|increased|increasing|decreased|decreasing|improved|improving|worsened|worsening|resolved|resolving|redemonstrat\w*|persistent|persists|before|earlier|previously)\b/i;

interface Evidence extends FindingMention {
  section: string;
  sentence: string;
  /**
   * Whether the sentence may be quoted and asked about. One that is not (it names people, or looks like a signature,
   * as a one-word "Hyperinflation." does) still says what the film shows, so it counts for what the report asserts:
   * its findings are never offered as wrong options.
   */
  quotable: boolean;
}

const G = 'Geometric Information Assessment';
/**
 * Pairs of regions of one side where either would be a right answer for a finding in the other: the lingula is part
 * of the left upper lobe and projects over the left mid and lower zones, and the right middle lobe projects over the
 * right mid and lower zones on a frontal film.
 */
export const NESTED_REGIONS = new Set(['lingula|upper lobe', 'upper lobe|lingula', 'lingula|lower zone', 'lower zone|lingula', 'lingula|mid zone', 'mid zone|lingula', 'middle lobe|lower zone', 'lower zone|middle lobe', 'middle lobe|mid zone', 'mid zone|middle lobe', 'middle lobe|base', 'base|middle lobe']);
/** Regions that name the same part of a lung ("base", "lower zone", "lower lobe" on a frontal film). */
export const REGION_FAMILY: Record<string, string> = { base: 'lower', 'lower zone': 'lower', 'lower lobe': 'lower', apex: 'upper', 'upper zone': 'upper', 'upper lobe': 'upper', 'middle lobe': 'middle', 'mid zone': 'middle', perihilar: 'hilar', hilum: 'hilar', retrocardiac: 'lower', 'costophrenic angle': 'lower', lingula: 'middle', mediastinum: 'mediastinum' };
/** Words by which a report attributes an appearance to a diagnosis. */
const DIAGNOSIS_LINK = /\b(?:consistent with|suggestive of|compatible with|in keeping with|likely (?:represents?|reflects?|due to)|represents?|reflects?|concerning for|suspicious for|due to|secondary to|indicat(?:es|ing|ive of)|characteristic of|typical of|diagnostic of)\b/i;
const P = 'Presence Assessment';
/** Findings with a severity scale (for "is there X?" distractors when X has no side). */
const GRADED: Record<string, string[]> = { cardiomegaly: ['Mild', 'Moderate', 'Severe'], emphysema: ['Mild', 'Moderate', 'Severe'], hyperinflation: ['Mild', 'Moderate', 'Marked'], 'pulmonary vascular congestion': ['Mild', 'Moderate', 'Severe'], scoliosis: ['Mild', 'Moderate', 'Severe'] };
/** The grades of each scale, as options say them: three, so a fourth option says the finding is not there. */
const SCALES = { size: ['Small', 'Moderate', 'Large'], severity: ['Mild', 'Moderate', 'Severe'] } as const;
/** Report words for a grade, by scale ("moderate" is on both: the finding's scale decides). */
export const SIZE_WORDS: Record<string, [string, 'size' | 'severity' | 'both']> = { small: ['Small', 'size'], tiny: ['Small', 'size'], trace: ['Small', 'size'], moderate: ['Moderate', 'both'], large: ['Large', 'size'], mild: ['Mild', 'severity'], minimal: ['Mild', 'severity'], severe: ['Severe', 'severity'], marked: ['Severe', 'severity'], massive: ['Large', 'size'] };
/** Words by which a sentence grades a finding against the prior: its grade may be relative, so none is asked. */
const RELATIVE_GRADE = /\b(?:increas\w*|decreas\w*|enlarg\w*|smaller|larger|improv\w*|wors\w*|progress\w*|less|more|slightly|interval)\b/i;

/**
 * The one size or severity word right before a finding's phrase ("small left pleural effusion"), if exactly one in
 * the sentence, of a scale the finding takes (no "small cardiomegaly", no "mild effusion"), and not graded against
 * the prior ("slightly smaller moderate effusion").
 */
export function gradeOf(sentence: string, phrase: string, finding?: string): { value: string; scale: readonly string[] } | null {
  const at = sentence.toLowerCase().indexOf(phrase.toLowerCase());
  if (at < 0) return null;
  const before = sentence.slice(Math.max(0, at - 40), at).toLowerCase().split(/[^a-z]+/).filter(Boolean).slice(-3);
  const found = before.filter((w) => SIZE_WORDS[w]);
  const sizeWordsInSentence = sentence.toLowerCase().split(/[^a-z]+/).filter((w) => SIZE_WORDS[w]);
  if (found.length !== 1 || sizeWordsInSentence.length !== 1 || /\bto\b|-/.test(sentence.slice(Math.max(0, at - 40), at)) || RELATIVE_GRADE.test(sentence)) return null;
  // The grade word must modify this finding: no clause break or other finding between them ("Mild pulm edema,
  // cardiomegaly": the "mild" is the oedema's).
  const window = sentence.slice(Math.max(0, at - 40), at);
  const gap = window.slice(window.toLowerCase().lastIndexOf(found[0]!) + found[0]!.length);
  if (/[,;:.]|\band\b|\bwith\b/i.test(gap) || assertFindings(gap).length > 0) return null;
  const [value, kind] = SIZE_WORDS[found[0]!]!;
  const scale = finding === undefined ? (kind === 'both' ? 'size' : kind) : findingEntry(finding)?.scale;
  if (!scale || (kind !== 'both' && kind !== scale)) return null;
  return { value, scale: SCALES[scale] };
}
const N = 'Negation Assessment';
const L = 'Location and Distribution Assessment';
const D = 'Differential Diagnosis';

/** What a differential question may ask the cause of. */
const LUNG_APPEARANCES = new Set(['airspace opacity', 'interstitial opacity', 'consolidation', 'nodule', 'mass', 'cavitation']);

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const SIDE_PHRASE: Record<Side, string> = { left: 'Left', right: 'Right', bilateral: 'Both sides,' };

/**
 * Every finding mention of a report's findings and impression, sentence by sentence. Sentences that compare with a
 * prior study are read too (issue #23): "unchanged moderate effusion" and "new right pneumothorax" are findings there
 * now, asked about without the prior; "resolved" and "no longer seen" read as absent; a finding only described as
 * it was before ("the previously described nodule") is not keyed.
 */
export function reportEvidence(report: CorpusReport): Evidence[] {
  const out: Evidence[] = [];
  for (const section of ['findings', 'impression'] as const) {
    const text = report.sections[section];
    if (!text) continue;
    for (const s of sentences(text)) {
      if (s.text.length > 400) continue;
      // Only sentences about the image, that can be quoted in an explanation without naming anyone, give questions.
      const canQuote = quotable(s.text);
      for (const m of assertFindings(s.text)) out.push({ ...m, section, sentence: s.text, quotable: canQuote });
    }
  }
  return out;
}

/**
 * What the report says about each finding overall: present or uncertain anywhere wins over absent. With the report,
 * what its context implies counts too (see contextFindings): a finding the report does not state but its indication
 * implies, or one implausible for the patient, is uncertain — never keyed, never a wrong option.
 */
export function reportStatus(evidence: Evidence[], report?: CorpusReport): Map<string, 'present' | 'absent' | 'uncertain'> {
  const status = new Map<string, 'present' | 'absent' | 'uncertain'>();
  for (const e of evidence) {
    const before = status.get(e.finding);
    if (before === undefined || (before === 'absent' && e.status !== 'absent') || (before === 'uncertain' && e.status === 'present')) status.set(e.finding, e.status);
  }
  if (report) for (const name of contextFindings(report)) if (!status.has(name)) status.set(name, 'uncertain');
  return status;
}

function shuffle<T>(items: T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Whether two places (side and region) may be the same part of the chest: the same side, and no two regions apart. */
function samePlace(a: { side: Side | null; region: string | null }, b: { side: Side | null; region: string | null }): boolean {
  if (a.side === null || b.side === null) return false;
  const sides = a.side === b.side || a.side === 'bilateral' || b.side === 'bilateral';
  return sides && (a.region === null || b.region === null || (REGION_FAMILY[a.region] ?? a.region) === (REGION_FAMILY[b.region] ?? b.region));
}

/**
 * An airspace opacity the report goes on to name as a finding of its own in the same place — "left paramediastinal
 * opacity" in the findings, "post-radiation fibrosis in the left upper lobe" in the impression; "opacity at the right
 * base" beside "right basal atelectasis" — may be that finding described twice: it is not keyed as an airspace opacity.
 * Only a finding stated present counts; an opacity whose cause is only suggested stays an opacity.
 */
function namedAsAnother(e: Evidence, evidence: readonly Evidence[]): boolean {
  // A raised hemidiaphragm beside an effusion on its side, even a suggested one, may be a subpulmonic effusion's
  // pseudo-elevation: the report's own reading of the same contour.
  const counts = e.finding === 'airspace opacity' ? (x: Evidence) => x.status === 'present' : e.finding === 'elevated hemidiaphragm' ? (x: Evidence) => x.status !== 'absent' && x.finding === 'pleural effusion' : null;
  if (!counts) return false;
  return evidence.some((x) => x.finding !== e.finding && counts(x) && !findingEntry(x.finding)?.diagnosis && overlapping(x.finding, e.finding) && samePlace(x, e));
}

/**
 * Three findings the report does not support as distractors for `answer`: from the answer's group first (harder),
 * preferring findings the report explicitly rules out, then others it never mentions.
 */
function distractorsFor(answer: FindingEntry, status: Map<string, string>, random: () => number): { names: string[]; sameGroup: boolean } | null {
  // Never a finding the report states, hedges or implies: not one that overlaps the answer or anything it reports
  // present or uncertain (oedema → vascular congestion; hilar enlargement ~ lymphadenopathy).
  const reported = [...status].filter(([, s]) => s !== 'absent').map(([name]) => name);
  const usable = LEXICON.filter((e) => e.ask && !e.diagnosis && !overlapping(e.name, answer.name) && (status.get(e.name) === undefined || status.get(e.name) === 'absent') && !reported.some((r) => overlapping(r, e.name)));
  const same = shuffle(usable.filter((e) => e.group === answer.group), random);
  const other = shuffle(usable.filter((e) => e.group !== answer.group), random);
  const picked = [...same, ...other].slice(0, 3);
  return picked.length === 3 ? { names: picked.map((e) => e.name), sameGroup: same.length >= 3 } : null;
}

function quote(e: Evidence): string {
  return `The ${e.section} section of the report reads: "${e.sentence}"`;
}
const labelOf = (name: string) => optionLabel(findingEntry(name)!);

/** Makes one question; options are shuffled with the report's seed and the answer's letter recorded. */
function make(report: CorpusReport, index: number, random: () => number, parts: { task: string; entry: FindingEntry; question: string; answer: string; distractors: string[]; explanation: string; difficulty: Difficulty; claim: GeneratedQuestion['claim']; evidence: Evidence }): GeneratedQuestion {
  const order = shuffle([0, 1, 2, 3], random);
  const written = [parts.answer, ...parts.distractors];
  const options = order.map((o) => written[o]!) as [string, string, string, string];
  return {
    id: `${report.id}#q${index}`,
    reportId: report.id,
    patientId: report.patientId,
    task: parts.task,
    category: parts.entry.category,
    subcategory: parts.entry.subcategory,
    question: parts.question,
    options,
    answer: LETTERS[order.indexOf(0)]!,
    explanation: parts.explanation,
    difficulty: parts.difficulty,
    claim: parts.claim,
    evidence: { section: parts.evidence.section, sentence: parts.evidence.sentence },
    generator: OFFLINE_GENERATOR,
    images: report.images,
  };
}

const PRESENCE_STEMS = ['Which of the following findings is present on this chest radiograph?', 'Which of these findings does this chest X-ray show?', 'Which one of the following is seen on this radiograph?'];
const NEGATION_STEMS = ['Which of the following findings is absent on this chest radiograph?', 'Which of these findings is NOT seen on this chest X-ray?'];


/**
 * Template questions from one report (offline, no model): presence of each finding the report asserts, negation
 * of each it rules out, "what does it show regarding X" in one form whether X is there or not (so the denial is
 * not always the key), the grade the report gives a finding, location where it binds a side and region, and a
 * differential where it names a diagnosis for an appearance. Distractors come from the vocabulary and are never
 * findings the report states, hedges or implies, nor places or grades the finding cannot have. Deterministic for a
 * seed.
 */
export function generateOffline(report: CorpusReport, seed = 0, evidence = reportEvidence(report), status = reportStatus(evidence, report), seedKey = report.id): GeneratedQuestion[] {
  const random = seededRandom(keyedSeed(seed, seedKey));
  const questions: GeneratedQuestion[] = [];
  const done = new Set<string>();
  const asked = (e: Evidence) => e.quotable && findingEntry(e.finding)!.ask;
  const present = evidence.filter((e) => e.status === 'present' && status.get(e.finding) === 'present' && asked(e) && !namedAsAnother(e, evidence));
  const absent = evidence.filter((e) => e.status === 'absent' && status.get(e.finding) === 'absent' && asked(e));
  const reported = [...status].filter(([, v]) => v !== 'absent').map(([name]) => name);
  for (const e of present) {
    const entry = findingEntry(e.finding)!;
    if (entry.diagnosis || done.has(`P|${e.finding}`)) continue;
    done.add(`P|${e.finding}`);
    const d = distractorsFor(entry, status, random);
    if (!d) continue;
    questions.push(make(report, questions.length, random, {
      task: P, entry, question: PRESENCE_STEMS[Math.floor(random() * PRESENCE_STEMS.length)]!, answer: optionLabel(entry), distractors: d.names.map(labelOf),
      explanation: `The report describes ${nameOf(entry)}. ${quote(e)}`, difficulty: d.sameGroup ? 'medium' : 'easy',
      claim: { finding: entry.name, status: 'present', distractorFindings: d.names }, evidence: e,
    }));
  }
  const presentNames = [...new Set(present.map((e) => e.finding))].filter((n) => !findingEntry(n)!.diagnosis);
  for (const e of absent) {
    const entry = findingEntry(e.finding)!;
    if (entry.diagnosis || done.has(`N|${e.finding}`) || presentNames.length < 3) continue;
    // "Which is absent?" with a key that overlaps a finding the report has ("no consolidation" beside an opacity) has
    // a second arguable answer.
    if (reported.some((r) => overlapping(r, entry.name))) continue;
    const others = shuffle(presentNames.filter((n) => !overlapping(n, entry.name)), random).slice(0, 3);
    if (others.length < 3) continue;
    done.add(`N|${e.finding}`);
    questions.push(make(report, questions.length, random, {
      task: N, entry, question: NEGATION_STEMS[Math.floor(random() * NEGATION_STEMS.length)]!, answer: optionLabel(entry), distractors: others.map(labelOf),
      explanation: `The report rules out ${entry.name}; the other three are reported. ${quote(e)}`, difficulty: 'medium',
      claim: { finding: entry.name, status: 'absent', distractorFindings: others }, evidence: e,
    }));
  }
  // "What does this chest radiograph show regarding X?" — one form whether X is there or not: absent X is keyed
  // "No X" among its side or grade variants; present X is keyed by its side or grade, with "No X" among the
  // distractors. So the denial is an option of every such question, not the key of every one.
  for (const e of [...absent.filter((x) => x.side === null), ...present]) {
    const entry = findingEntry(e.finding)!;
    if (entry.diagnosis || done.has(`R|${e.finding}`)) continue;
    const label = nameOf(entry);
    const denial = denialOf(entry);
    let answer: string;
    let variants: string[];
    if (e.status === 'absent') {
      if (entry.laterality === 'lateral') variants = (['left', 'right', 'bilateral'] as const).map((side) => sidedName(side, entry));
      else if (entry.scale) variants = SCALES[entry.scale].map((g) => `${g} ${label}`);
      else continue;
      answer = denial;
    } else {
      const sides = new Set(present.filter((x) => x.finding === e.finding).map((x) => x.side));
      const grade = gradeOf(e.sentence, e.phrase, e.finding);
      const grades = new Set(present.filter((x) => x.finding === e.finding).map((x) => gradeOf(x.sentence, x.phrase, x.finding)?.value ?? null));
      if (entry.laterality === 'lateral' && e.side !== null && !e.placeAmbiguous && sides.size === 1) {
        answer = sidedName(e.side, entry);
        variants = (['left', 'right', 'bilateral'] as const).filter((side) => side !== e.side).map((side) => sidedName(side, entry));
      } else if (entry.scale && grade && grades.size === 1 && sides.size === 1) {
        answer = `${grade.value} ${label}`;
        variants = grade.scale.filter((g) => g !== grade.value).map((g) => `${g} ${label}`);
      } else continue;
      variants = [...variants, denial];
    }
    done.add(`R|${e.finding}`);
    questions.push(make(report, questions.length, random, {
      task: N, entry, question: `What does this chest radiograph show regarding ${regardingName(entry)}?`, answer, distractors: variants,
      explanation: e.status === 'absent' ? `The report rules out ${label}. ${quote(e)}` : `The report describes ${answer.toLowerCase()}. ${quote(e)}`, difficulty: e.status === 'absent' ? 'easy' : 'medium',
      claim: { finding: entry.name, status: e.status === 'absent' ? 'absent' : 'present', distractorFindings: [] }, evidence: e,
    }));
  }
  // Size or grade the report gives a present finding: "small effusion", "mild cardiomegaly".
  for (const e of present) {
    const entry = findingEntry(e.finding)!;
    if (done.has(`G|${e.finding}`)) continue;
    const grade = gradeOf(e.sentence, e.phrase, e.finding);
    if (!grade) continue;
    // Two grades of one finding in the report (a large right and a small left effusion): no single right answer.
    const grades = new Set(present.filter((x) => x.finding === e.finding).map((x) => gradeOf(x.sentence, x.phrase, x.finding)?.value ?? null).filter((g) => g !== null));
    if (grades.size > 1 || present.filter((x) => x.finding === e.finding && x.side !== e.side).length > 0) continue;
    done.add(`G|${e.finding}`);
    const label = nameOf(entry);
    const how = entry.scale === 'size' ? 'large' : 'severe';
    questions.push(make(report, questions.length, random, {
      task: G, entry, question: `How ${how} ${be(entry)} the ${label} on this radiograph?`, answer: grade.value, distractors: [...grade.scale.filter((x) => x !== grade.value), absentGradeOf(entry)],
      explanation: `The report describes the ${label} as ${grade.value.toLowerCase()}. ${quote(e)}`, difficulty: 'medium', claim: null, evidence: e,
    }));
  }
  for (const e of present) {
    const entry = findingEntry(e.finding)!;
    if (!hasSide(entry) || e.side === null || e.placeAmbiguous || done.has(`L|${e.finding}`)) continue;
    // Only one side and one region of this finding in the report, or the question has two right answers.
    const elsewhere = evidence.filter((x) => x.finding === e.finding && x.status !== 'absent');
    if (new Set(elsewhere.map((x) => x.side)).size > 1 || new Set(elsewhere.map((x) => x.region).filter((r) => r !== null)).size > 1) continue;
    const region = e.region !== null && entry.regions.includes(e.region) ? e.region : null;
    // A finding that always has a side has no fourth place without a region: "Not lateralised (midline)" would be a
    // three-option question in disguise, so no question.
    if (region === null && entry.laterality === 'lateral') continue;
    done.add(`L|${e.finding}`);
    const phrase = (side: Side, r: string | null) => (r ? `${SIDE_PHRASE[side]} ${r}` : side === 'bilateral' ? 'Both sides' : `${SIDE_PHRASE[side]} side`);
    const answer = phrase(e.side, region);
    const other: Side = e.side === 'left' ? 'right' : 'left';
    // There is no left middle lobe, no right lingula, and no retrocardiac region on both sides or on the right.
    // Places that contain or project over each other (the lingula in the left upper lobe; the middle lobe over the
    // right mid and lower zones): beside either, the other would be right too.
    const nested = (side: Side, r: string) => side === e.side && NESTED_REGIONS.has(`${region}|${r}`);
    const valid = (side: Side, r: string) => !(r === 'middle lobe' && side !== 'right') && !((r === 'lingula' || r === 'retrocardiac') && side !== 'left') && !nested(side, r);
    // No place where the report has this finding or one it overlaps ("multifocal pneumonia" with an opacity in the left
    // lower zone: "left lower lobe" would be arguable for the consolidation too).
    const occupied = evidence.filter((x) => x !== e && x.status !== 'absent' && overlapping(x.finding, e.finding));
    const free = (side: Side, r: string | null) => !occupied.some((x) => samePlace(x, { side, region: r }));
    let distractors: string[];
    if (region) {
      // Other places the finding can be, from other parts of the lung: "left base" and "left lower zone" would both be right.
      const otherRegions = shuffle(entry.regions.filter((r) => REGION_FAMILY[r] !== REGION_FAMILY[region]), random);
      const places = [...(valid(other, region) ? [[other, region] as [Side, string]] : []), ...otherRegions.flatMap((r) => [[e.side!, r], [other, r]] as [Side, string][]).filter(([side, r]) => valid(side, r))];
      const candidates = places.map(([side, r]) => ({ text: phrase(side, r), free: free(side, r) }));
      distractors = [...new Set(candidates.filter((c) => c.free).map((c) => c.text))].filter((c) => c !== answer).slice(0, 3);
    } else distractors = [...(['left', 'right', 'bilateral'] as const).filter((side) => side !== e.side && free(side, null)).map((side) => phrase(side, null)), 'Midline'];
    if (distractors.length < 3) continue;
    questions.push(make(report, questions.length, random, {
      task: L, entry, question: `Where ${be(entry)} the ${nameOf(entry)} located?`, answer, distractors,
      explanation: `The ${nameOf(entry)} ${be(entry)} ${region ? `${e.side === 'bilateral' ? 'bilateral' : `on the ${e.side}`}, ${region}` : e.side === 'bilateral' ? 'bilateral' : `on the ${e.side}`}. ${quote(e)}`,
      difficulty: region ? 'hard' : 'medium', claim: null, evidence: e,
    }));
  }
  const DIAGNOSES = LEXICON.filter((x) => x.diagnosis).map((x) => x.name).concat(['atelectasis', 'lung cancer', 'aspiration', 'pulmonary embolism']);
  for (const e of present) {
    const entry = findingEntry(e.finding)!;
    if (!entry.diagnosis || done.has(`D|${e.finding}`)) continue;
    // The appearance is a lung opacity: "cardiomegaly … in keeping with fluid overload" does not make the heart's size a sign of oedema.
    const appearance = evidence.find((x) => x.sentence === e.sentence && x.status === 'present' && LUNG_APPEARANCES.has(x.finding));
    // Only when the sentence says the appearance IS the diagnosis ("opacity consistent with pneumonia"), not when it
    // lists both ("consolidation and pulmonary edema").
    if (!appearance || !DIAGNOSIS_LINK.test(e.sentence)) continue;
    done.add(`D|${e.finding}`);
    const others = shuffle(DIAGNOSES.filter((n) => n !== e.finding && status.get(n) === undefined && !reported.some((r) => overlapping(r, n))), random).slice(0, 3);
    if (others.length < 3) continue;
    questions.push(make(report, questions.length, random, {
      // The appearance by its vocabulary name, not the report's words ("cavitating", "opacities"): the stem stays a
      // noun phrase in the singular the verb agrees with.
      task: D, entry, question: `The ${nameOf(findingEntry(appearance.finding)!)} on this radiograph ${be(findingEntry(appearance.finding)!)} most consistent with which diagnosis?`, answer: optionLabel(entry), distractors: others.map((n) => (findingEntry(n) ? labelOf(n) : capital(n))),
      explanation: `The report attributes the ${appearance.phrase.toLowerCase()} to ${entry.name}. ${quote(e)}`, difficulty: 'hard',
      claim: { finding: entry.name, status: 'present', distractorFindings: others.filter((n) => findingEntry(n) !== undefined) }, evidence: e,
    }));
  }
  return questions;
}
