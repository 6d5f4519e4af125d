import { LEXICON, findingEntry, hasSide } from './lexicon.js';
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
/**
 * Phrases indexed by their first word, longest first, so a sentence is matched in one pass without trying every
 * phrase at every word. A phrase whose first word is also its wildcard ("effusion*") is found by its literal prefix.
 */
const BY_FIRST_WORD = new Map<string, Phrase[]>();
const WILDCARD_FIRST: Phrase[] = [];
for (const p of PHRASES) {
  if (p.wildcard && p.tokens.length === 1) WILDCARD_FIRST.push(p);
  else BY_FIRST_WORD.set(p.tokens[0]!, [...(BY_FIRST_WORD.get(p.tokens[0]!) ?? []), p]);
}
/** The phrases that can start at a word (its own, its singular's, and the wildcards whose prefix it begins with), longest first. */
function phrasesAt(word: string): Phrase[] {
  // A one-word phrase also matches its plural: look the word up as it is and as a singular.
  const singulars = word.endsWith('es') ? [word.slice(0, -1), word.slice(0, -2)] : word.endsWith('s') ? [word.slice(0, -1)] : [];
  const exact = [...(BY_FIRST_WORD.get(word) ?? []), ...singulars.flatMap((w) => (BY_FIRST_WORD.get(w) ?? []).filter((p) => p.tokens.length === 1))];
  if (singulars.length > 0) exact.sort((a, b) => b.tokens.length - a.tokens.length);
  const wild = WILDCARD_FIRST.filter((p) => word.startsWith(p.tokens[0]!));
  if (wild.length === 0) return exact;
  return [...exact, ...wild].sort((a, b) => b.tokens.length - a.tokens.length);
}

const seq = (...texts: string[]) => texts.map(tokenize);
/** NegEx-style triggers (Chapman et al. 2001, and its radiology extensions), as word sequences. */
const PSEUDO = seq('out of view', 'out of the field of view', 'out of the field', 'beyond the field of view', 'no change', 'no significant change', 'no interval change', 'no substantial change', 'not only', 'no increase', 'no decrease', 'without change', 'without interval change', 'no significant interval change', 'not significantly changed', 'no appreciable change', 'partial resolution', 'incomplete resolution', 'partially resolved', 'document resolution', 'not seen below', 'not visualized below', 'not clearly seen below', 'gram negative', 'not well seen');
const PRE_NEGATION = seq('no other', 'no further', 'no additional', 'no evidence of', 'no evidence for', 'no signs of', 'no sign of', 'no new', 'no', 'not', 'without', 'negative for', 'free of', 'clear of', 'absence of', 'absent', 'resolved', 'resolution of', 'interval resolution of', 'removal of', 'removed', 'no longer', 'rather than', 'ruled out', 'neither', 'nor', 'interval removal of', 'no residual', 'nothing to suggest', 'mimicking', 'mimics', 'simulating', 're-expansion of', 'reexpansion of', 'interval re-expansion of', 'extubated', 'extubation');
// Issue #23: every hedge makes a finding uncertain — "likely", "probable", "suggestive of", "thought to be" too — so a
// question never keys a finding the report only suspects. "Consistent with", "compatible with" and "in keeping with"
// still assert (the report commits to the reading); "unlikely" leaves the finding open, it does not rule it out.
const PRE_UNCERTAIN = seq('more sensitive for', 'sensitive for', 'less sensitive for', 'insensitive for', 'unsuccessful', 'failed', 'attempted', "can't exclude", "can't rule out", 'near complete resolution of', 'near-complete resolution of', 'near complete resolution', 'near-complete resolution', 'largely resolved', 'likely', 'most likely', 'more likely', 'less likely', 'probable', 'probably', 'prob', 'presumably', 'presumed', 'suggestive of', 'suggests', 'suggesting', 'favor', 'favour', 'favored', 'favoured', 'favoring', 'favouring', 'thought to be', 'thought to represent', 'felt to be', 'felt to represent', 'may represent', 'unlikely', 'either', 'and / or', 'cannot exclude', 'can not exclude', 'cannot rule out', 'can not rule out', 'not excluded', 'possible', 'possibly', 'may', 'might', 'could', 'questionable', 'question of', 'suspicious for', 'suspicious', 'concerning for', 'concern for', 'versus', 'vs', 'evaluate for', 'evaluation for', 'assess for', 'assessment for', 'rule out', 'r / o', 'equivocal', 'suspected', 'suspect', 'differential', 'borderline', 'cannot be excluded', '?', 'query', 'to exclude', 'exclude', 'difficult to exclude', 'differential considerations', 'consideration', 'occult');
const POST_NEGATION = seq('is not reproduced', 'not reproduced', 'not seen again', 'is not seen again', 'not redemonstrated', 'is not redemonstrated', 'is not seen', 'are not seen', 'not seen', 'not identified', 'is not identified', 'are not identified', 'not visualized', 'not present', 'is absent', 'are absent', 'absent', 'has resolved', 'have resolved', 'resolved', 'no longer seen', 'no longer visualized', 'no longer present', 'no longer evident', 'has been removed', 'have been removed', 'removed', 'is excluded', 'has cleared', 'have cleared', 'not demonstrated', 'is not demonstrated', 'not evident', 'is not evident', 'ruled out', 'was ruled out', 'explanted', 'has re-expanded', 're-expanded', 'has reexpanded', 'reexpanded', 'has been re-expanded', 'has been explanted', 'out', 'withdrawn', 'has been withdrawn', 'excluded', 'has been excluded', 'have been excluded', 'are excluded');
const POST_UNCERTAIN = seq('attempt', 'attempts', "can't be excluded", "can't be ruled out", "can't be entirely excluded", 'are frequently occult', 'are often occult', 'may be occult', 'can be occult', 'occult', 'not separately seen', 'is not separately seen', 'not separately identified', 'is not separately identified', 'not separately visible', 'suspected', 'is more likely', 'more likely', 'has largely resolved', 'have largely resolved', 'largely resolved', 'has largely cleared', 'have largely cleared', 'largely cleared', 'has almost resolved', 'almost resolved', 'nearly resolved', 'probably present', 'difficult to assess', 'unlikely', 'is unlikely', 'considered unlikely', 'is considered unlikely', 'is likely', 'is probable', 'of doubtful significance', 'of uncertain significance', 'is a possibility', 'remains a possibility', 'a possibility', 'also possible', 'is also possible', 'is favored', 'is favoured', 'recommended', 'is recommended', 'suggested', 'is suggested', 'advised', 'is advised', 'to be considered', 'should be considered', 'cannot be excluded', 'can not be excluded', 'cannot be ruled out', 'not excluded', 'not ruled out', 'is possible', 'is suspected', 'is questioned', 'questioned', 'versus', 'vs', 'is not excluded', 'possibly', 'may', 'may be', 'might', 'could', 'is a consideration', 'is difficult to exclude', 'difficult to exclude', '?', 'is not clearly seen', 'not clearly seen', 'cannot be entirely excluded', 'cannot entirely be excluded', 'not entirely excluded', 'cannot be completely excluded', 'is doubtful', 'doubtful', 'not favored', 'is not favored', 'not favoured', 'is not favoured');
/** Words that name what makes an appearance without the finding: technique, position, overlying tissue, look-alikes. */
const MIMICS = new Set(['talc', 'pleurodesis', 'rotation', 'rotated', 'projection', 'positioning', 'technique', 'overlying', 'overlapping', 'superimposition', 'superimposed', 'summation', 'breast', 'nipple', 'artefact', 'artifact', 'costochondral', 'clothing', 'jewellery', 'jewelry', 'braid']);

/** The group of a finding (devices are placed, not seen by mistake). */
const findingGroup = (name: string) => findingEntry(name)?.group;

/** Words by which a sentence doubts its own denial (a film that cannot show it). */
const DOUBTED_DENIAL = new Set(['insensitive', 'limited', 'suboptimal', 'obscured', 'obscures', 'unable', 'poorly', 'poor']);

/** Findings that name an appearance, which a report may go on to attribute to a finding of its own. */
const APPEARANCES = new Set(['airspace opacity', 'interstitial opacity']);
/** Words by which a sentence attributes an appearance to something ("due to", "representing", "likely"). */
const ATTRIBUTION = new Set(['due', 'from', 'secondary', 'caused', 'related', 'representing', 'represents', 'represent', 'reflects', 'reflect', 'reflecting', 'likely', 'probably', 'compatible', 'consistent', 'keeping', 'attributable', 'thought', 'felt']);

/** Verbs by which a sentence says what an appearance is ("may represent", "could reflect", "may be a"). */
const IDENTITY_VERBS = new Set(['represent', 'represents', 'reflect', 'reflects', 'be', 'indicate', 'relate', 'correspond']);

/** Words that end a trigger's scope: a new clause begins. */
const TERMINATORS = new Set(['but', 'however', 'although', 'though', 'except', 'apart', 'aside', 'other', 'whereas', 'while', 'yet', 'which', 'there', 'otherwise', ';', ':', '.', '(', ')', '-', 'since', 'because', 'given', 'new', 'now', 'persistent', 'stable', 'unchanged', 'remains', 'remain']);
/** Findings of paired structures: named in the plural without a side, they are on both sides. */
const PAIRED = new Set(['pleural effusion', 'hilar enlargement', 'pleural thickening', 'pleural plaque']);
const LIST_WORDS = new Set(['or', 'and', 'nor', ',', '/']);
const PRESENCE_MODIFIERS = new Set(['small', 'large', 'moderate', 'mild', 'trace', 'tiny', 'massive', 'severe', 'minimal', 'marked', 'extensive', 'left', 'right', 'bilateral', 'persistent', 'residual', 'increased', 'decreased', 'worsening', 'improving', 'lt', 'rt']);
const CLAUSE_VERBS = new Set(['is', 'are', 'was', 'were', 'has', 'have', 'remains', 'remain', 'appears', 'appear', 'demonstrates', 'shows', 'seen', 'noted', 'present']);

const NORMAL_HEART = /\b(?:heart|cardiac)(?: size| silhouette| shadow| contour)?s?(?: and [a-z ]+?)? (?:is |are |remains? )?(?:normal|within normal limits|not enlarged|unremarkable)\b|\bnormal(?:-sized)? (?:heart|cardiac)(?: size| silhouette)?\b|\b(?:heart|cardiac silhouette) (?:is )?(?:normal|upper normal|within normal limits) in size\b|\bno cardiomegaly\b/;

const SIDE_WORDS: Record<string, Side> = { left: 'left', right: 'right', bilateral: 'bilateral', bilaterally: 'bilateral', bilat: 'bilateral', both: 'bilateral', bibasilar: 'bilateral', bibasal: 'bilateral', biapical: 'bilateral', lt: 'left', rt: 'right', 'b/l': 'bilateral' };
const LOBE_ABBREVIATIONS: Record<string, [Side, string]> = { rul: ['right', 'upper lobe'], rml: ['right', 'middle lobe'], rll: ['right', 'lower lobe'], lul: ['left', 'upper lobe'], lll: ['left', 'lower lobe'] };
const REGION_WORDS: Record<string, string> = { apex: 'apex', apical: 'apex', apices: 'apex', base: 'base', bases: 'base', basal: 'base', basilar: 'base', bibasilar: 'base', bibasal: 'base', perihilar: 'perihilar', retrocardiac: 'retrocardiac', costophrenic: 'costophrenic angle', lingula: 'lingula', lingular: 'lingula', hilum: 'hilum', hila: 'hilum', hilar: 'hilum', mediastinum: 'mediastinum', mediastinal: 'mediastinum', paratracheal: 'mediastinum', subpulmonic: 'base' };

function matchAt(ws: Word[], i: number, tokens: string[], wildcard = false): boolean {
  if (i + tokens.length > ws.length) return false;
  for (let k = 0; k < tokens.length; k++) {
    const w = ws[i + k]!.lower;
    const last = k === tokens.length - 1;
    const t = tokens[k]!;
    // The last word of a phrase also matches its plural ("tubes", "effusions").
    if (last && wildcard ? !w.startsWith(t) : w !== t && !(last && t.length > 2 && (w === `${t}s` || w === `${t}es`))) return false;
  }
  return true;
}

/**
 * Each trigger table indexed by its entries' first words, so a word is tried only against the entries that can start
 * there (the tables hold a hundred entries and are tried at every word of every sentence).
 */
const FIRST_WORD_INDEX = new WeakMap<string[][], Map<string, string[][]>>();
function indexOf(table: string[][]): Map<string, string[][]> {
  let index = FIRST_WORD_INDEX.get(table);
  if (!index) {
    index = new Map();
    for (const t of table) index.set(t[0]!, [...(index.get(t[0]!) ?? []), t]);
    FIRST_WORD_INDEX.set(table, index);
  }
  return index;
}

function longestAt(ws: Word[], i: number, table: string[][]): string[] | null {
  if (i >= ws.length) return null;
  const index = indexOf(table);
  const w = ws[i]!.lower;
  let best: string[] | null = null;
  for (const t of index.get(w) ?? []) if (matchAt(ws, i, t) && (!best || t.length > best.length)) best = t;
  // A one-word entry also matches its plural (matchAt's rule for a last word): "nos" is not looked up as "no" for
  // longer entries, whose first word must match exactly.
  for (const stem of w.endsWith('es') ? [w.slice(0, -1), w.slice(0, -2)] : w.endsWith('s') ? [w.slice(0, -1)] : []) {
    for (const t of index.get(stem) ?? []) if (t.length === 1 && matchAt(ws, i, t) && !best) best = t;
  }
  return best;
}

interface Span { finding: string; from: number; to: number }

/** The finding a word sequence names, as a whole phrase of the lexicon. */
function phraseFinding(tokens: string[]): string | null {
  const probe = tokens.map((t, i) => ({ text: t, lower: t, start: i, end: i }));
  return PHRASES.find((p) => p.tokens.length === tokens.length && matchAt(probe, 0, p.tokens, p.wildcard))?.finding ?? null;
}

/**
 * Phrases that contain a finding's word but name something else — pads and leads on the skin, a nipple marker —
 * read past as a whole so "defibrillator pads" is not a defibrillator.
 */
const NOT_FINDINGS = seq('pericardial effusion', 'pericardial effusions', 'pericardial fluid', 'mass effect', 'subcutaneous emphysema', 'surgical emphysema', 'soft tissue emphysema', 'subcutaneous air', 'subcutaneous gas', 'defibrillator pad', 'defibrillator pads', 'ecg lead', 'ecg leads', 'ekg lead', 'ekg leads', 'monitoring lead', 'monitoring leads', 'telemetry lead', 'telemetry leads', 'nipple marker', 'nipple markers', 'nipple shadow', 'nipple shadows', 'external pacing pads', 'pacing pads', 'soft tissue opacity', 'soft tissue opacities', 'soft-tissue opacity', 'soft tissue density', 'soft-tissue density', 'side port', 'side ports', 'side hole', 'side holes', 'pleural cavity', 'thoracic cavity', 'chest cavity', 'abdominal cavity', 'peritoneal cavity');

function findMentions(ws: Word[]): Span[] {
  const spans: Span[] = [];
  for (let i = 0; i < ws.length; ) {
    const notFinding = longestAt(ws, i, NOT_FINDINGS);
    if (notFinding) {
      i += notFinding.length;
      continue;
    }
    const candidates = phrasesAt(ws[i]!.lower);
    const phrase = candidates.find((p) => matchAt(ws, i, p.tokens, p.wildcard));
    if (phrase) {
      // One phrase can name two findings ("hydropneumothorax": fluid and air).
      for (const p of candidates) if (p !== phrase && p.finding !== phrase.finding && p.tokens.length === phrase.tokens.length && matchAt(ws, i, p.tokens, p.wildcard)) spans.push({ finding: p.finding, from: i, to: i + phrase.tokens.length });
      spans.push({ finding: phrase.finding, from: i, to: i + phrase.tokens.length });
      i += phrase.tokens.length;
    } else i++;
  }
  // Coordination that leaves a word out: "hilar or mediastinal lymphadenopathy" (hilar lymphadenopathy),
  // "pleural effusions or thickening" (pleural thickening), "endotracheal and nasogastric tubes".
  const covered = (i: number) => spans.some((s) => i >= s.from && i < s.to);
  for (const m of [...spans]) {
    const head = ws.slice(m.from + 1, m.to).map((w) => w.lower);
    const before = m.from - 2;
    if (before >= 0 && LIST_WORDS.has(ws[m.from - 1]!.lower) && !covered(before) && head.length > 0) {
      const finding = phraseFinding([ws[before]!.lower, ...head]);
      if (finding) spans.push({ finding, from: before, to: before + 1 });
    }
    const after = m.to + 1;
    if (after < ws.length && LIST_WORDS.has(ws[m.to]!.lower) && !covered(after) && m.to - m.from >= 2) {
      const finding = phraseFinding([ws[m.from]!.lower, ws[after]!.lower]);
      if (finding) spans.push({ finding, from: after, to: after + 1 });
    }
  }
  // "Healed fractures of the left fifth and sixth ribs", "fracture of the right clavicle": an unspecified fracture
  // whose own phrase names the bone is that kind.
  for (const m of spans) {
    if (m.finding !== 'fracture') continue;
    for (let j = m.to; j < Math.min(ws.length, m.to + 8); j++) {
      const w = ws[j]!.lower;
      if (TERMINATORS.has(w) || w === ',' || spans.some((o) => o.from === j)) break;
      const kind = /^ribs?$/.test(w) ? 'rib fracture' : /^clavicles?$/.test(w) ? 'clavicle fracture' : null;
      if (kind) {
        m.finding = kind;
        break;
      }
    }
  }
  return spans.sort((a, b) => a.from - b.from);
}

/** Whether a comma at `i` continues a list of findings (so a negation before it still applies after it). */
function listContinues(ws: Word[], i: number, mentions: Span[]): boolean {
  const next = ws[i + 1];
  if (!next) return false;
  if (LIST_WORDS.has(next.lower)) return true;
  const following = mentions.find((m) => m.from > i && m.from <= i + 4);
  if (!following) return false;
  // "…, heart is enlarged" starts a new clause; so does "No pneumothorax, small left pleural effusion": a size or
  // side before the next finding describes a finding that is there, not one more item of the negated list.
  return !ws.slice(i + 1, following.to).some((w) => CLAUSE_VERBS.has(w.lower) || PRESENCE_MODIFIERS.has(w.lower));
}

/** Groups whose findings a slash offers as alternatives. */
const LUNG_OR_PLEURA = new Set(['parenchyma', 'pleura']);
/** Words that offer a finding as one of alternatives, and the words that may stand between them and it. */
const ALTERNATIVE = new Set(['or', 'versus', 'vs']);
const FILLER = new Set(['a', 'an', 'the', 'some', 'small', 'large', 'mild', 'early', 'subtle', 'focal', 'left', 'right', 'basal', 'basilar']);

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
    // "Pneumothorax: none." — a heading and its value.
    if (ws[m.to]?.lower === ':' && /^(?:none|negative|absent|no|nil|not seen|not present|not identified)$/.test(ws.slice(m.to + 1, m.to + 3).map((w) => w.lower).filter((w) => /\w/.test(w)).join(' ')) || ws[m.to]?.lower === ':' && ['none', 'negative', 'absent', 'no', 'nil'].includes(ws[m.to + 1]?.lower ?? '')) {
      result[index] = { status: 'absent', trigger: `: ${ws[m.to + 1]!.lower}` };
      return;
    }
    for (let j = m.to; j < Math.min(ws.length, m.to + 8); j++) {
      const w = ws[j]!.lower;
      if ((TERMINATORS.has(w) || w === ',') && !inMention(j)) break;
      // Another finding's phrase ends this one's reach (unless the list goes on to a shared trigger, handled below).
      if (mentions.some((o) => o.from === j) && !ws.slice(m.to, j).every((x) => LIST_WORDS.has(x.lower))) break;
      // "The tip of the tube is not seen below the diaphragm" is about where the tip is, not whether the tube is.
      if (w === 'tip' || w === 'position') break;
      // "Courses below the diaphragm and out of view" says where it goes, not that it is gone.
      if (longestAt(ws, j, PSEUDO)) break;
      // "Opacity may represent pneumonia", "density may be a healing fracture": the modal hedges what the appearance
      // is, not that it is there.
      if (['may', 'might', 'could', 'possibly'].includes(w) && IDENTITY_VERBS.has(ws[j + 1]?.lower ?? '')) break;
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
  // "Opacity at the left base, atelectasis or effusion", "pneumonia or aspiration", "elevated hemidiaphragm or a
  // subpulmonic effusion": a finding offered as one of alternatives — beside another finding or any other word — is
  // uncertain. Only where no trigger has spoken: in "no effusion or pneumothorax" the "or" lists what is ruled out.
  mentions.forEach((m, k) => {
    if (result[k]!.trigger !== null) return;
    const after = ws[m.to]?.lower;
    let before = m.from - 1;
    while (before >= 0 && FILLER.has(ws[before]!.lower) && m.from - before <= 3) before--;
    const word = after && ALTERNATIVE.has(after) && ws[m.to + 1] && !TERMINATORS.has(ws[m.to + 1]!.lower) ? after : before >= 1 && ALTERNATIVE.has(ws[before]!.lower) ? ws[before]!.lower : null;
    // "LLL collapse/consolidation", "effusion/atelectasis": two lung or pleural findings joined by a slash are the
    // reader's alternatives (a list of devices, "ETT/NGT", is not).
    const slashed = (j: number) => mentions.some((o) => o !== m && (o.from === j || o.to === j) && LUNG_OR_PLEURA.has(findingGroup(o.finding) ?? ''));
    const slash = LUNG_OR_PLEURA.has(findingGroup(m.finding) ?? '') && ((ws[m.to]?.lower === '/' && slashed(m.to + 1)) || (ws[m.from - 1]?.lower === '/' && slashed(m.from - 1)));
    if (word || slash) result[k] = { status: 'uncertain', trigger: word ?? '/' };
  });
  // An appearance put down to technique or a look-alike ("apparent widening is due to rotation", "density from
  // overlying breast tissue", "a skin fold") is not that finding: no key either way.
  mentions.forEach((m, k) => {
    if (result[k]!.status === 'absent' || findingGroup(m.finding) === 'devices') return;
    const [from, to] = clause(ws, m);
    const before = ws.slice(from, m.from).map((w) => w.lower);
    const after = ws.slice(m.to, to).map((w) => w.lower);
    const mimic = after.find((w, j) => MIMICS.has(w) || (w === 'soft' && after[j + 1] === 'tissue') || (w === 'skin' && after[j + 1] === 'fold') || (w === 'fat' && after[j + 1] === 'pad') || (w === 'bone' && after[j + 1] === 'island') || (w === 'end' && after[j + 1] === 'on'));
    const apparent = before.find((w) => w === 'apparent' || w === 'apparently' || w === 'pseudo');
    if (mimic || apparent) result[k] = { status: 'uncertain', trigger: mimic ?? apparent! };
  });
  // "No definite free air, although the supine technique is insensitive for this": a denial the sentence itself
  // doubts is no key.
  if (ws.some((w) => DOUBTED_DENIAL.has(w.lower))) mentions.forEach((_, k) => {
    if (result[k]!.status === 'absent') result[k] = { status: 'uncertain', trigger: 'denial doubted' };
  });
  // An appearance the sentence puts down to another finding ("linear opacities which are likely scarring", "complete
  // opacification ... with a large effusion", "opacity from the effusion") is that finding, not one of its own: no key.
  // Put down to a diagnosis ("opacity consistent with pneumonia") it stays, for the differential question.
  mentions.forEach((m, k) => {
    if (!APPEARANCES.has(m.finding) || result[k]!.status !== 'present') return;
    const sentenceEnd = ws.findIndex((w, i) => i >= m.to && (w.lower === '.' || w.lower === ';'));
    const explainedBy = mentions.find((o) => {
      if (o === m || APPEARANCES.has(o.finding) || findingEntry(o.finding)?.diagnosis || findingGroup(o.finding) === 'devices') return false;
      const opacification = /opacification/.test(ws.slice(m.from, m.to).map((w) => w.lower).join(' ')) && o.finding === 'pleural effusion';
      if (opacification) return true;
      if (o.from < m.to || (sentenceEnd >= 0 && o.from > sentenceEnd)) return false;
      return ws.slice(m.to, o.from).some((w) => ATTRIBUTION.has(w.lower));
    });
    if (explainedBy) result[k] = { status: 'uncertain', trigger: `explained as ${explainedBy.finding}` };
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

/** Regions that imply a side: there is a lingula only on the left and a middle lobe only on the right. */
const REGION_SIDE: Record<string, Side> = { lingula: 'left', 'middle lobe': 'right' };
/** Words that tie a finding to the one before it ("opacity in the lingula, suggestive of pneumonia"): it shares its place. */
const LINKS = new Set(['consistent', 'suggestive', 'compatible', 'likely', 'possibly', 'probably', 'representing', 'represents', 'represent', 'may', 'versus', 'vs', 'related', 'due', 'reflecting', 'reflect', 'indicating', 'indicate', 'concerning', 'suspicious', 'keeping']);

interface Place { sides: Side[]; region: string | null; placeAmbiguous: boolean }

/** Words that open a place phrase after a finding: "opacity at the left base", "fracture of the left clavicle". */
const PLACE_PREPOSITIONS = new Set(['at', 'in', 'on', 'of', 'over', 'within', 'along', 'involving', 'affecting', 'throughout', 'projecting', 'projects', 'under', 'beneath', 'below', 'above', 'behind', 'via', 'occupies', 'occupying']);
/** Words that may stand between a finding and its place phrase: "atelectasis is seen at the left base", "cavitating lesion in". */
const PLACE_BRIDGE = new Set(['is', 'are', 'was', 'were', 'seen', 'noted', 'present', 'identified', 'demonstrated', 'visible', 'again', 'also', 'lesion', 'lesions', 'change', 'changes', 'disease', 'process', 'area', 'areas', 'much', 'now', 'has', 'appeared', 'developed']);
/** Words across which a side or region never passes to a finding: another item of a list, or a clause. */
const BINDING_STOPS = new Set(['and', 'or', 'nor', 'with', 'without', 'plus', 'as', 'than', '/', 'versus', 'vs', 'but', 'w']);
/** Words a premodifier run never crosses backwards: a preposition or verb starts another phrase ("shifted to the left due to right-sided volume loss"). */
const PREMODIFIER_STOPS = new Set([...PLACE_PREPOSITIONS, 'to', 'from', 'by', 'due', 'for', 'is', 'are', 'was', 'were', 'has', 'have', 'shows', 'show', 'seen', 'noted', 'towards', 'toward']);
/** Words that tie a finding to the place of the one before it ("effusion with adjacent atelectasis"). */
const SAME_PLACE = new Set(['adjacent', 'ipsilateral', 'compressive', 'associated', 'parapneumonic', 'underlying', 'subjacent']);

/** The side and region words of ws[i], if any. */
function placeWords(ws: Word[], i: number, inside: boolean): { side: Side | null; region: string | null } {
  const w = ws[i]!.lower;
  const abbreviation = LOBE_ABBREVIATIONS[w];
  // "b/l" is bilateral (split by the segmenter into b, /, l): its "l" is not "left".
  const bilateral = (w === 'b' && ws[i + 1]?.lower === '/' && ws[i + 2]?.lower === 'l') || (w === 'l' && ws[i - 1]?.lower === '/' && ws[i - 2]?.lower === 'b') ? 'bilateral' as const : undefined;
  const letter = (w === 'l' || w === 'r') && !/^\d/.test(ws[i + 1]?.lower ?? '') ? (w === 'l' ? 'left' : 'right') : undefined;
  const side = bilateral ?? SIDE_WORDS[w] ?? abbreviation?.[0] ?? letter ?? null;
  const next = ws[i + 1]?.lower;
  const region = abbreviation ? abbreviation[1]
    : (w === 'upper' || w === 'middle' || w === 'lower' || w === 'mid') && (next === 'lobe' || next === 'lobes' || next === 'zone' || next === 'zones') ? `${w} ${next.startsWith('lobe') ? 'lobe' : 'zone'}`
    : REGION_WORDS[w] && (!inside || ['hilar', 'mediastinal'].includes(w)) ? REGION_WORDS[w]! : null;
  return { side, region };
}

/**
 * The side and region that belong to one finding (issue #23): only words of its own noun phrase — the modifiers
 * right before it ("small left basal effusion", "RLL consolidation"), its own words ("elevated right
 * hemidiaphragm") — and a place phrase after it ("opacity at the left base", "atelectasis is seen at the left
 * base"). A side never crosses "and", "with" or another finding: in "left pleural effusion and atelectasis" the
 * atelectasis has no side the text settles, so no location question is asked about it. A finding without sides or
 * regions gets none.
 */
function sideAndRegion(ws: Word[], m: Span, mentions: Span[]): Place {
  const entry = findingEntry(m.finding);
  const isOther = (i: number) => mentions.some((o) => o !== m && i >= o.from && i < o.to);
  const stops = (i: number) => {
    const w = ws[i]!.lower;
    return TERMINATORS.has(w) || w === ',' || BINDING_STOPS.has(w) || isOther(i);
  };
  const sidesSeen = new Set<Side>();
  const regionsSeen = new Set<string>();
  let side: Side | null = null;
  let region: string | null = null;
  const take = (i: number, inside: boolean) => {
    const found = placeWords(ws, i, inside);
    if (found.side) {
      sidesSeen.add(found.side);
      side ??= found.side;
    }
    if (found.region) {
      regionsSeen.add(found.region);
      region ??= found.region;
    }
  };
  // Its own words, then its premodifiers nearest first, then a place phrase after it.
  for (let i = m.from; i < m.to; i++) take(i, true);
  let from = m.from;
  while (from > 0 && m.from - from < 5 && !stops(from - 1) && !PREMODIFIER_STOPS.has(ws[from - 1]!.lower)) take(--from, false);
  let to = m.to;
  while (to < ws.length && to - m.to < 3 && PLACE_BRIDGE.has(ws[to]!.lower)) to++;
  if (to < ws.length && PLACE_PREPOSITIONS.has(ws[to]!.lower)) {
    to++;
    while (to < ws.length && to - m.to < 9 && !stops(to)) take(to++, false);
    // "Nodules in the left upper zone and right lower zone": a second place joined on — two answers, so none.
    if (to < ws.length && BINDING_STOPS.has(ws[to]!.lower)) {
      for (let j = to + 1; j < ws.length && j < to + 6 && !TERMINATORS.has(ws[j]!.lower) && ws[j]!.lower !== ',' && !mentions.some((o) => o.from === j); j++) {
        const more = placeWords(ws, j, false);
        if (more.side) sidesSeen.add(more.side);
        if (more.region) regionsSeen.add(more.region);
      }
    }
  } else to = m.to;
  const [clauseFrom, clauseTo] = clause(ws, m);
  // "Moderate left effusion with adjacent atelectasis": the tie word gives the place of the finding before.
  const previous = [...mentions].reverse().find((o) => o.to <= m.from && o.from >= clauseFrom);
  const tiedBefore = previous !== undefined && side === null && ws.slice(previous.to, m.from).some((w) => SAME_PLACE.has(w.lower) || (w.lower === 'same' && ws[m.to]?.lower === 'side'));
  const clauseSides = new Set(ws.slice(clauseFrom, clauseTo).map((w, k) => placeWords(ws, clauseFrom + k, false).side).filter((x): x is Side => x !== null));
  const before = ws.slice(clauseFrom, m.from).map((w) => w.lower);
  const bothBefore = before.includes('left') && before.includes('right') && before.includes('and') && !mentions.some((o) => o !== m && o.from >= clauseFrom && o.to <= m.from);
  const clauseWords = ws.slice(clauseFrom, clauseTo).map((w) => w.lower);
  let place: Place;
  // "R > L effusions", "right greater than left": both sides, the first worse.
  if (clauseSides.has('left') && clauseSides.has('right') && (clauseWords.includes('>') || clauseWords.includes('greater') || clauseWords.includes('worse')) && (sidesSeen.size > 0 || clauseWords.includes('>'))) place = { sides: ['bilateral'], region, placeAmbiguous: true };
  // "small left and trace right pleural effusions": one mention per side, when both sides come before the finding joined by "and".
  else if (bothBefore) place = { sides: ['left', 'right'], region, placeAmbiguous: true };
  else if (tiedBefore) return { ...sideAndRegion(ws, previous, mentions), placeAmbiguous: true, ...(entry && hasSide(entry) ? {} : { sides: [], region: null }) };
  else {
    if (side === null && region !== null && REGION_SIDE[region]) side = REGION_SIDE[region]!;
    place = { sides: side === null ? [] : [side], region, placeAmbiguous: sidesSeen.size > 1 || regionsSeen.size > 1 };
  }
  // What the finding can have (the vocabulary says): no side for a midline or whole-lung finding, and only the
  // regions it can occupy — no lobe for the pleura, no lung region for a device or a bone.
  if (!entry || !hasSide(entry)) return { sides: [], region: null, placeAmbiguous: place.placeAmbiguous };
  if (place.region !== null && !entry.regions.includes(place.region)) place.region = null;
  return place;
}

/** Statements about a structure ("the hila are enlarged", "the aorta is calcified, but not tortuous"). */
const PREDICATES: { subject: string; predicates: Record<string, string>; normal?: string }[] = [
  { subject: '(?:heart|cardiac silhouette|cardiac shadow|heart size)', predicates: { enlarged: 'cardiomegaly', big: 'cardiomegaly' } },
  { subject: '(?:hila|hilum|hilar shadows?)', predicates: { enlarged: 'hilar enlargement', prominent: 'hilar enlargement', bulky: 'hilar enlargement' }, normal: 'hilar enlargement' },
  { subject: '(?:superior mediastinum|mediastinum|mediastinal contour|mediastinal silhouette)', predicates: { widened: 'mediastinal widening', wide: 'mediastinal widening' }, normal: 'mediastinal widening' },
  { subject: '(?:thoracic aorta|aortic knob|aortic arch|aorta)', predicates: { calcified: 'aortic calcification', tortuous: 'tortuous aorta', unfolded: 'tortuous aorta', ectatic: 'tortuous aorta' } },
  { subject: '(?:(?:left|right) )?hemidiaphragm', predicates: { elevated: 'elevated hemidiaphragm', raised: 'elevated hemidiaphragm' } },
  { subject: 'lungs', predicates: { hyperinflated: 'hyperinflation', hyperexpanded: 'hyperinflation', overinflated: 'hyperinflation', emphysematous: 'emphysema', congested: 'pulmonary vascular congestion' } },
];
const COPULA = '(?:is|are|appears?|remains?|looks?|seems?|may be|might be|could be|is again|are again)';
const DEGREE = '(?:not|no longer|possibly|probably|likely|mildly|slightly|moderately|markedly|severely|minimally|somewhat|again|still|now|at most|borderline)';

/** The predicate rules with their patterns, compiled once. */
const PREDICATE_PATTERNS = PREDICATES.map((rule) => {
  const words = Object.keys(rule.predicates).join('|');
  return { rule, pattern: new RegExp(`\\b(?:the\\s+)?(${rule.subject})\\s+(${COPULA})\\s+((?:${DEGREE}\\s+)*)(${words}|normal in (?:size|width|calibre|caliber)|of normal (?:size|width))\\b((?:,?\\s+(?:and|but)\\s+(?:not\\s+)?(?:${words}))*)`, 'g') };
});

function predicateMentions(sentence: string): FindingMention[] {
  const lower = sentence.toLowerCase();
  const out: FindingMention[] = [];
  // A cheap test first: most sentences name none of the structures.
  if (!/heart|cardiac|hil|mediastin|aort|hemidiaphragm|lungs/.test(lower)) return out;
  for (const { rule, pattern } of PREDICATE_PATTERNS) {
    for (const m of lower.matchAll(pattern)) {
      const subject = m[1]!;
      const side = subject.startsWith('left') ? 'left' : subject.startsWith('right') ? 'right' : null;
      const hedged = /\b(?:may|might|could|possibly)\b/.test(`${m[2]} ${m[3]}`);
      const negated = /\bnot\b|\bno longer\b/.test(m[3]!);
      const predicate = m[4]!;
      const push = (finding: string, status: AssertionStatus) => out.push({ finding, status, side: side as Side | null, region: null, phrase: sentence.slice(m.index!, m.index! + m[0].length), trigger: status === 'present' ? null : 'predicate', placeAmbiguous: false });
      if (predicate.includes('normal')) {
        if (rule.normal) push(rule.normal, 'absent');
      } else push(rule.predicates[predicate]!, hedged ? 'uncertain' : negated ? 'absent' : 'present');
      for (const more of (m[5] ?? '').matchAll(/(?:and|but)\s+(not\s+)?(\w+)/g)) {
        const finding = rule.predicates[more[2]!];
        if (finding) push(finding, more[1] ? 'absent' : hedged ? 'uncertain' : 'present');
      }
    }
  }
  return out;
}

/**
 * The side and region a short text names — an option such as "Left base", "Right lower lobe", "Both sides" —
 * read with the same words as report sentences; null where it names none.
 */
export function placeOf(text: string): { side: Side | null; region: string | null } {
  const ws = words(text);
  let side: Side | null = null;
  let region: string | null = null;
  for (let i = 0; i < ws.length; i++) {
    const found = placeWords(ws, i, false);
    side ??= found.side;
    region ??= found.region;
  }
  if (side === null && /\bboth sides\b/i.test(text)) side = 'bilateral';
  return { side, region };
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
  const places = mentions.map((m) => sideAndRegion(ws, m, mentions));
  mentions.forEach((m, i) => {
    let { sides, region } = places[i]!;
    const { placeAmbiguous } = places[i]!;
    // A finding named as the explanation of the one before shares its place ("left basilar opacity, likely atelectasis").
    const previous = i > 0 ? mentions[i - 1]! : null;
    if (sides.length === 0 && previous && ws.slice(previous.to, m.from).some((w) => LINKS.has(w.lower))) {
      sides = places[i - 1]!.sides;
      region ??= places[i - 1]!.region;
    }
    // A present finding named in the plural of a paired structure, with no side, is on both sides ("the hila", "effusions").
    const last = ws[m.to - 1]!.lower;
    if (sides.length === 0 && found[i]!.status === 'present' && PAIRED.has(m.finding) && (last === 'hila' || (last.endsWith('s') && !last.endsWith('ss')))) sides = ['bilateral'];
    for (const side of sides.length === 0 ? [null] : sides) {
      const key = `${m.finding}|${side}`;
      if (seen.has(key)) {
        // Named twice in one sentence, denied once and doubted or stated once ("No pneumothorax is seen, although a
        // small one can't be excluded"): the sentence does not rule it out.
        const earlier = out.find((o) => o.finding === m.finding && o.side === side)!;
        if (earlier.status === 'absent' && found[i]!.status !== 'absent') Object.assign(earlier, { status: found[i]!.status === 'present' ? 'uncertain' : found[i]!.status, trigger: found[i]!.trigger ?? 'denied and stated' });
        continue;
      }
      seen.add(key);
      out.push({ finding: m.finding, status: found[i]!.status, side, region, phrase: sentence.slice(ws[m.from]!.start, ws[m.to - 1]!.end), trigger: found[i]!.trigger, placeAmbiguous });
    }
  });
  for (const p of predicateMentions(sentence)) {
    if (out.some((o) => o.finding === p.finding)) continue;
    seen.add(`${p.finding}|${p.side}`);
    out.push(p);
  }
  if (!seen.has('cardiomegaly|null') && NORMAL_HEART.test(sentence.toLowerCase())) {
    out.push({ finding: 'cardiomegaly', status: 'absent', side: null, region: null, phrase: 'normal heart size', trigger: 'normal', placeAmbiguous: false });
  }
  return out;
}
