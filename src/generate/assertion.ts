import { LEXICON } from './lexicon.js';
import { words, type Word } from './words.js';

/** What a report sentence says about a finding. */
export type AssertionStatus = 'present' | 'absent' | 'uncertain';
export type Side = 'left' | 'right' | 'bilateral';

/** A finding named in a sentence, with what the sentence asserts about it. */
export interface FindingMention {
  finding: string;
  status: AssertionStatus;
  side: Side | null;
  region: string | null;
  /** The words that named it, and the trigger that negated or hedged it (for the explanation and debugging). */
  phrase: string;
  trigger: string | null;
  /** The clause names more than one side or region, so which belongs to this finding is not certain. */
  placeAmbiguous: boolean;
}

interface Phrase { finding: string; tokens: string[]; wildcard: boolean }
const tokenize = (text: string) => words(text).map((w) => w.lower);

const PHRASES: Phrase[] = LEXICON.flatMap((e) => e.phrases.map((p) => ({ finding: e.name, tokens: tokenize(p.replace(/\*$/, '')), wildcard: p.endsWith('*') })))
  .sort((a, b) => b.tokens.length - a.tokens.length);

const seq = (...texts: string[]) => texts.map(tokenize);
/** NegEx-style triggers (Chapman et al. 2001, and its radiology extensions), as word sequences. */
const PSEUDO = seq('no change', 'no significant change', 'no interval change', 'no substantial change', 'not only', 'no increase', 'no decrease', 'without change', 'without interval change', 'no significant interval change', 'not significantly changed', 'no appreciable change');
const PRE_NEGATION = seq('no evidence of', 'no evidence for', 'no signs of', 'no sign of', 'no new', 'no', 'not', 'without', 'negative for', 'free of', 'clear of', 'absence of', 'absent', 'resolved', 'resolution of', 'interval resolution of', 'removal of', 'removed', 'no longer', 'rather than', 'ruled out', 'neither', 'nor', 'interval removal of', 'no residual');
const PRE_UNCERTAIN = seq('cannot exclude', 'can not exclude', 'cannot rule out', 'can not rule out', 'not excluded', 'possible', 'possibly', 'may', 'might', 'could', 'questionable', 'question of', 'suspicious for', 'suspicious', 'concerning for', 'versus', 'vs', 'evaluate for', 'evaluation for', 'assess for', 'rule out', 'r / o', 'equivocal', 'suspected', 'probable', 'probably', 'likely', 'differential', 'borderline', 'cannot be excluded');
const POST_NEGATION = seq('is not seen', 'are not seen', 'not seen', 'not identified', 'is not identified', 'are not identified', 'not visualized', 'not present', 'is absent', 'are absent', 'absent', 'has resolved', 'have resolved', 'resolved', 'no longer seen', 'no longer visualized', 'no longer present', 'has been removed', 'have been removed', 'removed', 'is excluded', 'has cleared', 'have cleared', 'not demonstrated', 'is not demonstrated', 'not evident', 'is not evident');
const POST_UNCERTAIN = seq('cannot be excluded', 'can not be excluded', 'cannot be ruled out', 'not excluded', 'not ruled out', 'is possible', 'is suspected', 'is questioned', 'questioned', 'versus', 'vs', 'is not excluded', 'is likely', 'is probable');
/** Words that end a trigger's scope: a new clause begins. */
const TERMINATORS = new Set(['but', 'however', 'although', 'though', 'except', 'apart', 'aside', 'whereas', 'while', 'yet', 'which', 'there', 'otherwise', 'though', ';', ':', '.', '(', ')', 'since', 'because', 'given', 'new', 'now', 'persistent', 'stable', 'unchanged']);
const LIST_WORDS = new Set(['or', 'and', 'nor', ',', '/']);
const CLAUSE_VERBS = new Set(['is', 'are', 'was', 'were', 'has', 'have', 'remains', 'remain', 'appears', 'appear', 'demonstrates', 'shows', 'seen', 'noted', 'present']);

const NORMAL_HEART = /\b(?:heart|cardiac)(?: size| silhouette| shadow| contour)?s?(?: and [a-z ]+?)? (?:is |are |remains? )?(?:normal|within normal limits|not enlarged|unremarkable)\b|\bnormal(?:-sized)? (?:heart|cardiac)(?: size| silhouette)?\b|\b(?:heart|cardiac silhouette) (?:is )?(?:normal|upper normal|within normal limits) in size\b|\bno cardiomegaly\b/;

const SIDE_WORDS: Record<string, Side> = { left: 'left', right: 'right', bilateral: 'bilateral', bilaterally: 'bilateral', both: 'bilateral', bibasilar: 'bilateral', bibasal: 'bilateral', biapical: 'bilateral', lt: 'left', rt: 'right' };
const LOBE_ABBREVIATIONS: Record<string, [Side, string]> = { rul: ['right', 'upper lobe'], rml: ['right', 'middle lobe'], rll: ['right', 'lower lobe'], lul: ['left', 'upper lobe'], lll: ['left', 'lower lobe'] };
const REGION_WORDS: Record<string, string> = { apex: 'apex', apical: 'apex', apices: 'apex', base: 'base', bases: 'base', basal: 'base', basilar: 'base', bibasilar: 'base', bibasal: 'base', perihilar: 'perihilar', retrocardiac: 'retrocardiac', costophrenic: 'costophrenic angle', lingula: 'lingula', lingular: 'lingula', hilum: 'hilum', hila: 'hilum', hilar: 'hilum', mediastinum: 'mediastinum', mediastinal: 'mediastinum', paratracheal: 'mediastinum', subpulmonic: 'base' };

function matchAt(ws: Word[], i: number, tokens: string[], wildcard = false): boolean {
  if (i + tokens.length > ws.length) return false;
  for (let k = 0; k < tokens.length; k++) {
    const w = ws[i + k]!.lower;
    const last = k === tokens.length - 1;
    if (last && wildcard ? !w.startsWith(tokens[k]!) : w !== tokens[k]) return false;
  }
  return true;
}

function longestAt(ws: Word[], i: number, table: string[][]): string[] | null {
  let best: string[] | null = null;
  for (const t of table) if (matchAt(ws, i, t) && (!best || t.length > best.length)) best = t;
  return best;
}

interface Span { finding: string; from: number; to: number }

function findMentions(ws: Word[]): Span[] {
  const spans: Span[] = [];
  for (let i = 0; i < ws.length; ) {
    const phrase = PHRASES.find((p) => matchAt(ws, i, p.tokens, p.wildcard));
    if (phrase) {
      spans.push({ finding: phrase.finding, from: i, to: i + phrase.tokens.length });
      i += phrase.tokens.length;
    } else i++;
  }
  return spans;
}

/** Whether a comma at `i` continues a list of findings (so a negation before it still applies after it). */
function listContinues(ws: Word[], i: number, mentions: Span[]): boolean {
  const next = ws[i + 1];
  if (!next) return false;
  if (LIST_WORDS.has(next.lower)) return true;
  const following = mentions.find((m) => m.from > i && m.from <= i + 4);
  if (!following) return false;
  // "…, heart is enlarged" starts a new clause; "…, small effusion" goes on with the list.
  return !ws.slice(i + 1, following.to).some((w) => CLAUSE_VERBS.has(w.lower));
}

/** The status each mention gets from the triggers of its sentence, and the trigger's words. */
function statuses(ws: Word[], mentions: Span[]): { status: AssertionStatus; trigger: string | null }[] {
  const result = mentions.map(() => ({ status: 'present' as AssertionStatus, trigger: null as string | null }));
  const inMention = (i: number) => mentions.some((m) => i >= m.from && i < m.to);
  for (let i = 0; i < ws.length; i++) {
    if (inMention(i)) continue;
    const pseudo = longestAt(ws, i, PSEUDO);
    if (pseudo) {
      i += pseudo.length - 1;
      continue;
    }
    const negation = longestAt(ws, i, PRE_NEGATION);
    const uncertain = longestAt(ws, i, PRE_UNCERTAIN);
    const trigger = negation && (!uncertain || negation.length >= uncertain.length) ? negation : uncertain;
    if (!trigger) continue;
    const status: AssertionStatus = trigger === negation ? 'absent' : 'uncertain';
    // Forward scope: to the next terminator; at a comma only while a list of findings goes on.
    for (let j = i + trigger.length; j < ws.length; j++) {
      const w = ws[j]!.lower;
      if (TERMINATORS.has(w) && !inMention(j)) break;
      if (w === ',' && !listContinues(ws, j, mentions)) break;
      const index = mentions.findIndex((m) => m.from === j);
      if (index >= 0 && result[index]!.trigger === null) result[index] = { status, trigger: trigger.join(' ') };
    }
    i += trigger.length - 1;
  }
  // Post-triggers: "pneumothorax is not seen", "effusion has resolved", "pneumonia cannot be excluded".
  mentions.forEach((m, index) => {
    if (result[index]!.trigger !== null) return;
    for (let j = m.to; j < Math.min(ws.length, m.to + 8); j++) {
      const w = ws[j]!.lower;
      if (TERMINATORS.has(w) && !inMention(j)) break;
      const uncertain = longestAt(ws, j, POST_UNCERTAIN);
      const negation = longestAt(ws, j, POST_NEGATION);
      const trigger = uncertain && (!negation || uncertain.length >= negation.length) ? uncertain : negation;
      if (trigger) {
        const status: AssertionStatus = trigger === uncertain ? 'uncertain' : 'absent';
        // The post-trigger covers every mention of the list that ends here ("effusion or pneumothorax is not seen").
        for (let k = index; k >= 0 && mentions[k]!.to <= j; k--) {
          if (k < index && !ws.slice(mentions[k]!.to, mentions[k + 1]!.from).every((x) => LIST_WORDS.has(x.lower))) break;
          if (result[k]!.trigger === null) result[k] = { status, trigger: trigger.join(' ') };
        }
        break;
      }
    }
  });
  return result;
}

/** The clause around a mention: from the previous terminator to the next (commas included, they bind modifiers). */
function clause(ws: Word[], m: Span): [number, number] {
  let from = m.from;
  while (from > 0 && !TERMINATORS.has(ws[from - 1]!.lower) && ws[from - 1]!.lower !== ',') from--;
  let to = m.to;
  while (to < ws.length && !TERMINATORS.has(ws[to]!.lower) && ws[to]!.lower !== ',') to++;
  return [from, to];
}

function sideAndRegion(ws: Word[], m: Span, mentions: Span[]): { side: Side | null; region: string | null; placeAmbiguous: boolean } {
  const sidesSeen = new Set<Side>();
  const regionsSeen = new Set<string>();
  const [from, to] = clause(ws, m);
  let side: Side | null = null;
  let region: string | null = null;
  let sideDistance = Infinity;
  const others = mentions.filter((o) => o !== m);
  for (let i = from; i < to; i++) {
    if (i >= m.from && i < m.to && !['hilar', 'mediastinal'].includes(ws[i]!.lower)) continue;
    // A word that belongs to another finding's own phrase describes that finding, unless it sits before this one.
    if (others.some((o) => i >= o.from && i < o.to) && i > m.to) continue;
    const w = ws[i]!.lower;
    const distance = i < m.from ? m.from - i : i - m.to + 1;
    const abbreviation = LOBE_ABBREVIATIONS[w];
    const s = SIDE_WORDS[w] ?? abbreviation?.[0] ?? ((w === 'l' || w === 'r') && i === m.from - 1 ? (w === 'l' ? 'left' : 'right') : undefined);
    if (s) sidesSeen.add(s);
    if (s && distance < sideDistance) {
      side = s;
      sideDistance = distance;
    }
    if (abbreviation) {
      region ??= abbreviation[1];
      regionsSeen.add(abbreviation[1]);
    }
    const next = ws[i + 1]?.lower;
    if ((w === 'upper' || w === 'middle' || w === 'lower' || w === 'mid') && (next === 'lobe' || next === 'lobes' || next === 'zone' || next === 'zones')) {
      const r = `${w} ${next.startsWith('lobe') ? 'lobe' : 'zone'}`;
      region ??= r;
      regionsSeen.add(r);
    } else if (REGION_WORDS[w] && !(i >= m.from && i < m.to)) {
      region ??= REGION_WORDS[w]!;
      regionsSeen.add(REGION_WORDS[w]!);
    }
  }
  return { side, region, placeAmbiguous: sidesSeen.size > 1 || regionsSeen.size > 1 };
}

/**
 * What one report sentence asserts about each finding of the lexicon it names: present, absent (negated) or
 * uncertain (hedged), with the side and region the sentence gives. One mention per finding and side; a normal
 * heart statement ("heart size is normal") counts as cardiomegaly absent.
 */
export function assertFindings(sentence: string): FindingMention[] {
  const ws = words(sentence);
  const mentions = findMentions(ws);
  const found = statuses(ws, mentions);
  const out: FindingMention[] = [];
  const seen = new Set<string>();
  mentions.forEach((m, i) => {
    const { side, region, placeAmbiguous } = sideAndRegion(ws, m, mentions);
    const key = `${m.finding}|${side}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ finding: m.finding, status: found[i]!.status, side, region, phrase: sentence.slice(ws[m.from]!.start, ws[m.to - 1]!.end), trigger: found[i]!.trigger, placeAmbiguous });
  });
  if (!seen.has('cardiomegaly|null') && NORMAL_HEART.test(sentence.toLowerCase())) {
    out.push({ finding: 'cardiomegaly', status: 'absent', side: null, region: null, phrase: 'normal heart size', trigger: 'normal', placeAmbiguous: false });
  }
  return out;
}
