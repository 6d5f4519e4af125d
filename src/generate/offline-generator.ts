import { LETTERS } from '../core/question.js';
import { keyedSeed, seededRandom } from '../core/seeded-random.js';
import type { CorpusReport } from '../corpus/corpus-report.js';
import { assertFindings, type FindingMention, type Side } from './assertion.js';
import type { Difficulty, GeneratedQuestion } from './generated-question.js';
import { LEXICON, findingEntry, optionLabel, type FindingEntry } from './lexicon.js';
import { quotable } from './minimum-necessary.js';
import { sentences } from './words.js';

/** The template generator's name and version, recorded with every question it makes and in the card. */
export const OFFLINE_GENERATOR = { kind: 'template' as const, name: 'cxrbench-templates', version: '1' };

/** Words that mark a sentence as a comparison with a prior study: no question is made from it (paper: 6.7% of errors). */
export const COMPARISON_WORDS = /\b(?:compared|comparison|prior|previous|previously|interval|since|again|unchanged|stable|new|newly|increased|increasing|decreased|decreasing|improved|improving|worsened|worsening|resolved|resolving|redemonstrat\w*|persistent|persists|before|earlier|previously)\b/i;

interface Evidence extends FindingMention { section: string; sentence: string }

const G = 'Geometric Information Assessment';
/** Regions that name the same part of a lung ("base", "lower zone", "lower lobe" on a frontal film). */
const REGION_FAMILY: Record<string, string> = { base: 'lower', 'lower zone': 'lower', 'lower lobe': 'lower', apex: 'upper', 'upper zone': 'upper', 'upper lobe': 'upper', 'middle lobe': 'middle', 'mid zone': 'middle', perihilar: 'hilar', hilum: 'hilar', retrocardiac: 'retrocardiac', 'costophrenic angle': 'lower', lingula: 'middle', mediastinum: 'mediastinum' };
/** Words by which a report attributes an appearance to a diagnosis. */
const DIAGNOSIS_LINK = /\b(?:consistent with|suggestive of|compatible with|in keeping with|likely (?:represents?|reflects?|due to)|represents?|reflects?|concerning for|suspicious for|due to|secondary to|indicat(?:es|ing|ive of)|characteristic of|typical of|diagnostic of)\b/i;
const P = 'Presence Assessment';
/** Findings with a severity scale (for "is there X?" distractors when X has no side). */
const GRADED: Record<string, string[]> = { cardiomegaly: ['Mild', 'Moderate', 'Severe'], emphysema: ['Mild', 'Moderate', 'Severe'], hyperinflation: ['Mild', 'Moderate', 'Marked'], 'pulmonary vascular congestion': ['Mild', 'Moderate', 'Severe'], scoliosis: ['Mild', 'Moderate', 'Severe'] };
const SIZE_SCALE = ['Small', 'Moderate', 'Large', 'Very large (massive)'];
const SEVERITY_SCALE = ['Mild', 'Moderate', 'Severe', 'Borderline'];
const SIZE_WORDS: Record<string, [string, string[]]> = { small: ['Small', SIZE_SCALE], tiny: ['Small', SIZE_SCALE], trace: ['Small', SIZE_SCALE], moderate: ['Moderate', SIZE_SCALE], large: ['Large', SIZE_SCALE], massive: ['Very large (massive)', SIZE_SCALE], mild: ['Mild', SEVERITY_SCALE], severe: ['Severe', SEVERITY_SCALE], marked: ['Severe', SEVERITY_SCALE], borderline: ['Borderline', SEVERITY_SCALE] };

/** The one size or severity word right before a finding's phrase ("small left pleural effusion"), if exactly one. */
export function gradeOf(sentence: string, phrase: string): { value: string; scale: string[] } | null {
  const at = sentence.toLowerCase().indexOf(phrase.toLowerCase());
  if (at < 0) return null;
  const before = sentence.slice(Math.max(0, at - 40), at).toLowerCase().split(/[^a-z]+/).filter(Boolean).slice(-3);
  const found = before.filter((w) => SIZE_WORDS[w]);
  const sizeWordsInSentence = sentence.toLowerCase().split(/[^a-z]+/).filter((w) => SIZE_WORDS[w]);
  if (found.length !== 1 || sizeWordsInSentence.length !== 1 || /\bto\b|-/.test(sentence.slice(Math.max(0, at - 40), at))) return null;
  const [value, scale] = SIZE_WORDS[found[0]!]!;
  return { value, scale };
}
const N = 'Negation Assessment';
const L = 'Location and Distribution Assessment';
const D = 'Differential Diagnosis';

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const SIDE_PHRASE: Record<Side, string> = { left: 'Left', right: 'Right', bilateral: 'Both sides,' };

/** Every finding mention of a report's findings and impression, sentence by sentence, comparison sentences left out. */
export function reportEvidence(report: CorpusReport): Evidence[] {
  const out: Evidence[] = [];
  for (const section of ['findings', 'impression'] as const) {
    const text = report.sections[section];
    if (!text) continue;
    for (const s of sentences(text)) {
      // Only sentences about the image, that can be quoted in an explanation without naming anyone.
      if (COMPARISON_WORDS.test(s.text) || s.text.length > 400 || !quotable(s.text)) continue;
      for (const m of assertFindings(s.text)) out.push({ ...m, section, sentence: s.text });
    }
  }
  return out;
}

/** What the report says about each finding overall: present or uncertain anywhere wins over absent. */
export function reportStatus(evidence: Evidence[]): Map<string, 'present' | 'absent' | 'uncertain'> {
  const status = new Map<string, 'present' | 'absent' | 'uncertain'>();
  for (const e of evidence) {
    const before = status.get(e.finding);
    if (before === undefined || (before === 'absent' && e.status !== 'absent') || (before === 'uncertain' && e.status === 'present')) status.set(e.finding, e.status);
  }
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

/**
 * Three findings the report does not support as distractors for `answer`: from the answer's group first (harder),
 * preferring findings the report explicitly rules out, then others it never mentions.
 */
function distractorsFor(answer: FindingEntry, status: Map<string, string>, random: () => number): { names: string[]; sameGroup: boolean } | null {
  const usable = LEXICON.filter((e) => e.name !== answer.name && !e.diagnosis && (status.get(e.name) === undefined || status.get(e.name) === 'absent'));
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
 * of each it rules out (when three present findings can stand as the other options), location where the report
 * gives a side or region, and a differential where it names a diagnosis for an appearance. Distractors come from
 * the lexicon and are never findings the report supports. Deterministic for a seed.
 */
export function generateOffline(report: CorpusReport, seed = 0, evidence = reportEvidence(report), status = reportStatus(evidence), seedKey = report.id): GeneratedQuestion[] {
  const random = seededRandom(keyedSeed(seed, seedKey));
  const questions: GeneratedQuestion[] = [];
  const done = new Set<string>();
  const present = evidence.filter((e) => e.status === 'present' && status.get(e.finding) === 'present');
  for (const e of present) {
    const entry = findingEntry(e.finding)!;
    if (entry.diagnosis || done.has(`P|${e.finding}`)) continue;
    done.add(`P|${e.finding}`);
    const d = distractorsFor(entry, status, random);
    if (!d) continue;
    questions.push(make(report, questions.length, random, {
      task: P, entry, question: PRESENCE_STEMS[Math.floor(random() * PRESENCE_STEMS.length)]!, answer: optionLabel(entry), distractors: d.names.map(labelOf),
      explanation: `The report describes ${entry.label?.toLowerCase() ?? entry.name}. ${quote(e)}`, difficulty: d.sameGroup ? 'medium' : 'easy',
      claim: { finding: entry.name, status: 'present', distractorFindings: d.names }, evidence: e,
    }));
  }
  const presentNames = [...new Set(present.map((e) => e.finding))].filter((n) => !findingEntry(n)!.diagnosis);
  for (const e of evidence.filter((x) => x.status === 'absent' && status.get(x.finding) === 'absent')) {
    const entry = findingEntry(e.finding)!;
    if (entry.diagnosis || done.has(`N|${e.finding}`) || presentNames.length < 3) continue;
    done.add(`N|${e.finding}`);
    const others = shuffle(presentNames, random).slice(0, 3);
    questions.push(make(report, questions.length, random, {
      task: N, entry, question: NEGATION_STEMS[Math.floor(random() * NEGATION_STEMS.length)]!, answer: optionLabel(entry), distractors: others.map(labelOf),
      explanation: `The report rules out ${entry.name}; the other three are reported. ${quote(e)}`, difficulty: 'medium',
      claim: { finding: entry.name, status: 'absent', distractorFindings: others }, evidence: e,
    }));
  }
  // A report that rules a finding out without three present findings to contrast: "Is there X?" by side or grade.
  for (const e of evidence.filter((x) => x.status === 'absent' && status.get(x.finding) === 'absent' && x.side === null)) {
    const entry = findingEntry(e.finding)!;
    if (entry.diagnosis || done.has(`N|${e.finding}`)) continue;
    const grades = GRADED[entry.name];
    if (!entry.lateral && !grades) continue;
    done.add(`N|${e.finding}`);
    const label = entry.label?.toLowerCase() ?? entry.name;
    const distractors = entry.lateral ? [`Left-sided ${label}`, `Right-sided ${label}`, `Bilateral ${label}`] : grades!.map((g) => `${g} ${label}`);
    questions.push(make(report, questions.length, random, {
      task: N, entry, question: `What does this chest radiograph show regarding ${label}?`, answer: `No ${label}`, distractors,
      explanation: `The report rules out ${label}. ${quote(e)}`, difficulty: 'easy',
      claim: { finding: entry.name, status: 'absent', distractorFindings: [] }, evidence: e,
    }));
  }
  // Size or grade the report gives a present finding: "small effusion", "mild cardiomegaly".
  for (const e of present) {
    const entry = findingEntry(e.finding)!;
    if (done.has(`G|${e.finding}`)) continue;
    const grade = gradeOf(e.sentence, e.phrase);
    if (!grade) continue;
    // Two grades of one finding in the report (a large right and a small left effusion): no single right answer.
    const grades = new Set(present.filter((x) => x.finding === e.finding).map((x) => gradeOf(x.sentence, x.phrase)?.value ?? null).filter((g) => g !== null));
    if (grades.size > 1 || present.filter((x) => x.finding === e.finding && x.side !== e.side).length > 0) continue;
    done.add(`G|${e.finding}`);
    const label = entry.label?.toLowerCase() ?? entry.name;
    const scale = grade.scale;
    questions.push(make(report, questions.length, random, {
      task: G, entry, question: `How is the ${label} graded in size or severity?`, answer: grade.value, distractors: scale.filter((x) => x !== grade.value),
      explanation: `The report describes the ${label} as ${grade.value.toLowerCase()}. ${quote(e)}`, difficulty: 'medium', claim: null, evidence: e,
    }));
  }
  for (const e of present) {
    const entry = findingEntry(e.finding)!;
    if (!entry.lateral || e.side === null || e.placeAmbiguous || done.has(`L|${e.finding}`)) continue;
    // Only one side of this finding in the report, or the question has two right answers.
    if (new Set(evidence.filter((x) => x.finding === e.finding && x.status !== 'absent').map((x) => x.side)).size > 1) continue;
    done.add(`L|${e.finding}`);
    const sides: Side[] = ['left', 'right', 'bilateral'];
    const region = e.region;
    const phrase = (side: Side, r: string | null) => (r ? `${SIDE_PHRASE[side]} ${r}` : side === 'bilateral' ? 'Both sides' : `${SIDE_PHRASE[side]} side`);
    const answer = phrase(e.side, region);
    // There is no left middle lobe: the middle lobe is only ever offered on the right.
    const valid = (side: Side, r: string) => !(r === 'middle lobe' && side !== 'right');
    // Distractor regions come from other parts of the lung: "left base" and "left lower zone" would both be right.
    const otherRegions = region ? shuffle(['upper zone', 'lower zone', 'apex', 'base', 'perihilar', 'lower lobe', 'upper lobe', 'middle lobe'].filter((r) => REGION_FAMILY[r] !== REGION_FAMILY[region]), random) : [];
    let distractors: string[];
    if (region) {
      const candidates = [phrase(e.side === 'left' ? 'right' : 'left', region), ...otherRegions.flatMap((r) => [phrase(e.side!, r), phrase(e.side === 'left' ? 'right' : 'left', r)].filter((_, k) => valid(k === 0 ? e.side! : e.side === 'left' ? 'right' : 'left', r)))];
      distractors = [...new Set(candidates.filter((c, k) => k > 0 || valid(e.side === 'left' ? 'right' : 'left', region)))].filter((c) => c !== answer).slice(0, 3);
    } else distractors = [...sides.filter((s) => s !== e.side).map((s) => phrase(s, null)), 'Not lateralised (midline)'];
    if (distractors.length < 3) continue;
    questions.push(make(report, questions.length, random, {
      task: L, entry, question: `Where is the ${entry.name} located?`, answer, distractors,
      explanation: `The ${entry.name} is ${region ? `${e.side === 'bilateral' ? 'bilateral' : `on the ${e.side}`}, ${region}` : e.side === 'bilateral' ? 'bilateral' : `on the ${e.side}`}. ${quote(e)}`,
      difficulty: region ? 'hard' : 'medium', claim: null, evidence: e,
    }));
  }
  const DIAGNOSES = LEXICON.filter((x) => x.diagnosis).map((x) => x.name).concat(['atelectasis', 'lung cancer', 'aspiration', 'pulmonary embolism']);
  for (const e of present) {
    const entry = findingEntry(e.finding)!;
    if (!entry.diagnosis || done.has(`D|${e.finding}`)) continue;
    const appearance = evidence.find((x) => x.sentence === e.sentence && x.status === 'present' && !findingEntry(x.finding)!.diagnosis);
    // Only when the sentence says the appearance IS the diagnosis ("opacity consistent with pneumonia"), not when it
    // lists both ("consolidation and pulmonary edema").
    if (!appearance || !DIAGNOSIS_LINK.test(e.sentence)) continue;
    done.add(`D|${e.finding}`);
    const others = shuffle(DIAGNOSES.filter((n) => n !== e.finding && status.get(n) === undefined), random).slice(0, 3);
    if (others.length < 3) continue;
    questions.push(make(report, questions.length, random, {
      task: D, entry, question: `The ${appearance.phrase.toLowerCase()} on this radiograph is most consistent with which diagnosis?`, answer: optionLabel(entry), distractors: others.map((n) => (findingEntry(n) ? labelOf(n) : capital(n))),
      explanation: `The report attributes the ${appearance.phrase.toLowerCase()} to ${entry.name}. ${quote(e)}`, difficulty: 'hard',
      claim: { finding: entry.name, status: 'present', distractorFindings: others.filter((n) => findingEntry(n) !== undefined) }, evidence: e,
    }));
  }
  return questions;
}
