import type { Letter } from '../core/question.js';
import {
  APPOSITIVE_BEFORE, commitsAfter, CONTRAST_AFTER, ENDS_STATEMENT, COORDINATION, CUE_WINDOW, cueBefore, DANGLING_CUE, HEDGE_MARKER, NEGATED_CLAUSE, rejectsAfter, rejectsBefore, REVISION_MARKER, tentativeBefore,
  type CueStrength,
} from './cues.js';
import { findMentions, findOutputMentions, type Mention, type Named, type PreparedOptions } from './mentions.js';
import { describedOption } from './paraphrase.js';
import { splitUnits, type Unit } from './units.js';

/** Why an output commits to no single option. */
export type NoAnswerReason = 'empty' | 'refusal' | 'hedge' | 'multiple' | 'invalid-answer' | 'none-of-the-above' | 'unfinished' | 'no-match';

/** What one statement commits to: an option, or no single one (a hedge, several, a non-option). */
export interface Commitment {
  letter: Letter | null;
  reason?: NoAnswerReason;
  strength: CueStrength;
  rule: string;
  span: [number, number];
}

/** The reading of a whole text: the committed option (or why there is none), and the rule and place it rests on. */
export type Reading = { letter: Letter; rule: string; span: [number, number] } | { letter: null; reason: NoAnswerReason; span?: [number, number] };

/** Statements naming more options than this are lists or loops, not answers. */
const MAX_MENTIONS_PER_UNIT = 40;
/** A statement that is only an option letter ("B", "**(C)**", "d."), or a label with nothing after it. */
const LONE_LETTER = /^[\s*_#>(\["'“`]*(?:option\s+|choice\s+)?[(\[]?([A-Da-d])[)\]]?[\s*_)\]"'”`.:!。！：]*$/i;
/** After a leading letter: it labels the answer ("B.", "B)", "B:", "B -", "B\n", "B 👍"), rather than starting a word or sentence. */
const LABEL_END = /^(?:[)\].:,!。、，：！]|\s*[-–—]|\s*\*\*|\s*$|\s+[^\p{L}\p{N}\s]|\s+\d+\s*%|\s+(?:because|bc|since|as|is|it|i|fits|best|lol|tbh|imo|ngl|for\s+sure|def|definitely|obviously|easy|duh|100)\b)/iu;
/** Words that may open an answer-first output before its option ("Option B. …", "Alternativa B — …"). */
const LEADING_WORDS = /^[\s*_#>(\["'“`]*(?:(?:option|choice|alternativ[ae]|opci[oó]n|op[cç][aã]o|variant[e]?|вариант|选项|選択肢|answer|ans|letter)\b[\s:：.]*)?[\s*_#>(\["'“`]*$/iu;
/** A line that starts with an option label ("A. …", "**(B)** …", "- C) …"): three or more make a list of the options. */
const OPTION_LABEL_LINE = /^[ \t>*_#-]*[(\[]?([A-Da-d])[).:\]]/gm;
const STARTS_WITH_LABEL = /^[ \t>*_#-]*[(\[]?\**[A-Da-d]\**[).:\]]/;
/** Words that turn the second of two conflicting statements into a correction of the first. */
const CONTRAST = /\b(?:but|however|though|although|actually|wait|instead|rather|no[,.])\b/i;

function toCommitment(named: Named, strength: CueStrength, rule: string, span: [number, number]): Commitment {
  if (named === 'invalid') return { letter: null, reason: 'invalid-answer', strength, rule, span };
  if (named === 'none' || named === 'all') return { letter: null, reason: named === 'none' ? 'none-of-the-above' : 'multiple', strength, rule, span };
  return { letter: named, strength, rule, span };
}

interface Stance {
  positive: boolean;
  /** Only wondered about ("could it be C", "if B"): neither an answer nor set aside. */
  tentative?: boolean;
  /** Set aside by a negation ("not A", "B is unlikely"); a mention only wondered about is neither positive nor rejected. */
  rejected: boolean;
  strength: CueStrength;
  rule: string;
}

const NEUTRAL: Stance = { positive: false, rejected: false, strength: 'evaluative', rule: '' };

function stanceOf(unit: string, m: Mention): Stance {
  const before = unit.slice(Math.max(0, m.start - CUE_WINDOW), m.start);
  const after = unit.slice(m.end, m.end + 160);
  if (rejectsBefore(before, m.kind === 'text')) return { positive: false, rejected: true, strength: 'evaluative', rule: '' };
  if (tentativeBefore(before)) return { positive: false, rejected: false, tentative: true, strength: 'evaluative', rule: '' };
  const cue = cueBefore(before);
  const committed = commitsAfter(after) || CONTRAST_AFTER.test(after);
  // An everyday word ("No", "Small") names its option only as the whole object of a cue: "Answer: No."
  if (m.weak && m.kind === 'text' && !/^[\s*_)\]"'”’]*(?:[.,;:!—–\n-]|$)/.test(after)) return { positive: false, rejected: false, strength: 'evaluative', rule: '' };
  if (m.kind === 'none-or-all') return { positive: true, rejected: false, strength: cue?.strength ?? 'evaluative', rule: cue?.rule ?? 'none-of-the-above' };
  if (committed) return { positive: true, rejected: false, strength: cue?.strength ?? 'evaluative', rule: cue?.rule ?? 'evaluation' };
  if (rejectsAfter(after)) return { positive: false, rejected: true, strength: 'evaluative', rule: '' };
  if (cue && !(cue.rule === 'evidence' && NEGATED_CLAUSE.test(clauseBefore(before)))) return { positive: true, rejected: false, strength: cue.strength, rule: cue.rule };
  if (APPOSITIVE_BEFORE.test(before) && ENDS_STATEMENT.test(after) && before.trim() !== '') return { positive: true, rejected: false, strength: 'evaluative', rule: 'conclusion' };
  return { positive: false, rejected: false, strength: 'evaluative', rule: '' };
}

/** The text of the current clause before a mention (since the last comma, semicolon or dash). */
function clauseBefore(before: string): string {
  const cut = Math.max(before.lastIndexOf(','), before.lastIndexOf(';'), before.lastIndexOf(' — '), before.lastIndexOf(' - '));
  return cut === -1 ? before : before.slice(cut + 1);
}

/** The mentions of one statement, given the option texts found in the whole output. */
function mentionsOf(text: string, unit: Unit, options: PreparedOptions, texts: TextsOfOutput): Mention[] {
  const lineStart = unit.start === 0 || /\n[ \t]*$/.test(text.slice(Math.max(0, unit.start - 40), unit.start));
  return findMentions(unit.text, options, lineStart, { all: texts.mentions, offset: unit.start });
}

/** What is found once per output and shared by its statements. */
interface TextsOfOutput {
  mentions: readonly Mention[];
}

/** A run of mentions joined by "or" / "and" ("B or C", "A, C and D"), read as one statement about them. */
interface Group {
  members: Mention[];
  conjunction: 'or' | 'and' | null;
}

function groupMentions(unit: string, mentions: Mention[]): Group[] {
  const groups: Group[] = [];
  for (const m of mentions) {
    const last = groups.at(-1);
    const prev = last?.members.at(-1);
    const joint = prev ? COORDINATION.exec(unit.slice(prev.end, m.start)) : null;
    if (last && joint && m.start - prev!.end <= 24) {
      last.members.push(m);
      const type = joint[1] ? 'or' : 'and';
      last.conjunction = last.conjunction === 'or' || type === 'or' ? 'or' : 'and';
    } else groups.push({ members: [m], conjunction: null });
  }
  return groups;
}

/** What one statement commits to, if anything. */
function commitmentsOfUnit(text: string, unit: Unit, options: PreparedOptions, first: boolean, optionList: boolean, nextIsLabel: boolean, texts: TextsOfOutput): { commitments: Commitment[]; lone: boolean } {
  const mentions = mentionsOf(text, unit, options, texts);
  if (mentions.length === 0 || mentions.length > MAX_MENTIONS_PER_UNIT) return { commitments: [], lone: false };
  const at = (m: Mention): [number, number] => [unit.start + m.start, unit.start + m.end];
  const lone = LONE_LETTER.exec(unit.text);
  if (lone && mentions.length === 1) return { commitments: [toCommitment(mentions[0]!.named, 'explicit', 'letter-line', at(mentions[0]!))], lone: true };

  // Letters written with their own option texts, in order ("A. No B. Yes, small C. …"), echo the options: labels.
  const withText = mentions.filter((m) => m.kind === 'letter' && m.end - m.start > 2);
  if (withText.length >= 3 && withText.every((m, i) => i === 0 || m.named > withText[i - 1]!.named)) for (const m of withText) m.label = true;
  const inlineList = withText.length >= 3 && withText.every((m) => m.label);
  // In a list of the options ("A. …\nB. …"), a label names an option; it answers only with a verdict after it ("✓").
  const stances = new Map(mentions.map((m) => [m, m.label && (optionList || inlineList) && !commitsAfter(unit.text.slice(m.end, m.end + 160)) ? NEUTRAL : stanceOf(unit.text, m)]));
  const lead = mentions[0]!;
  const wholeUnit = lead.kind === 'text' && /^[\s*_#>(\["'“`]*$/.test(unit.text.slice(0, lead.start)) && /^[\s*_)\]"'”`.!]*$/.test(unit.text.slice(lead.end));
  if (first && LEADING_WORDS.test(unit.text.slice(0, lead.start)) && !stances.get(lead)!.rejected && (lead.kind !== 'text' || !lead.weak || wholeUnit)) {
    // The output opens with an option: "B. …", "(C) …", "b! …", "The last one — …", "Right-sided arch." — the answer-first format.
    const rest = unit.text.slice(lead.end);
    // A label that starts a list of the options ("A. …\nB. …") is not an answer; one followed by prose is ("D. Old fractures\n\nThere is …").
    const listing = lead.label && (nextIsLabel || mentions.filter((m) => m.label).length >= 2);
    if (!listing && (LABEL_END.test(rest) || lead.kind === 'ordinal')) {
      const s = stances.get(lead)!;
      stances.set(lead, { positive: true, rejected: false, strength: 'explicit', rule: s.positive && s.strength === 'explicit' ? s.rule : lead.kind === 'text' ? 'option-text' : lead.kind === 'ordinal' ? 'ordinal' : 'leading-letter' });
    }
  }

  const commitments: Commitment[] = [];
  const positives: { m: Mention; s: Stance }[] = [];
  for (const group of groupMentions(unit.text, mentions)) {
    const named = new Set(group.members.map((m) => m.named));
    const memberStances = group.members.map((m) => stances.get(m)!);
    if (named.size < 2) {
      group.members.forEach((m, i) => {
        const s = memberStances[i]!;
        if (s.positive && !(m.weak && m.kind === 'letter' && !s.rule)) positives.push({ m, s });
      });
      continue;
    }
    const firstMember = group.members[0]!;
    const lastMember = group.members.at(-1)!;
    const before = unit.text.slice(Math.max(0, firstMember.start - CUE_WINDOW), firstMember.start);
    const after = unit.text.slice(lastMember.end, lastMember.end + 160);
    const cue = rejectsBefore(before) ? null : cueBefore(before);
    // "B or C" said on its own (a whole statement, or the opening of the output) is an answer that hedges.
    // "B or C" said on its own, after "either", or as what something "could be": an answer that hedges.
    const alone = (/^[\s*_#>(\["'“`]*$/.test(unit.text.slice(0, firstMember.start)) && (/^[\s*_)\]"'”`.!]*$/.test(after) || first)) || /\b(?:either|entweder|soit|o\s+bien|ou\s+bien)\s+(?:[\p{L}-]+\s+){0,6}$/iu.test(before) || (group.conjunction === 'or' && tentativeBefore(before));
    const positive = memberStances.some((s) => s.positive) || cue !== null || commitsAfter(after) || alone;
    if (!positive || rejectsAfter(after) || memberStances.every((s) => s.rejected)) continue;
    const strength = cue?.strength ?? memberStances.find((s) => s.positive)?.strength ?? 'evaluative';
    commitments.push({ letter: null, reason: group.conjunction === 'or' ? 'hedge' : 'multiple', strength, rule: cue?.rule ?? 'group', span: [unit.start + firstMember.start, unit.start + lastMember.end] });
  }

  const distinct = [...new Set(positives.map((p) => p.m.named))];
  const mentioned = new Set(mentions.filter((m) => !stances.get(m)!.rejected && !(m.weak && !stances.get(m)!.positive)).map((m) => m.named));
  if (mentioned.size >= 2 && HEDGE_MARKER.test(unit.text)) {
    const strength = positives.some((p) => p.s.strength === 'explicit') ? 'explicit' : 'evaluative';
    return { commitments: [{ letter: null, reason: 'hedge', strength, rule: 'hedge', span: [unit.start, unit.end] }], lone: false };
  }
  if (distinct.length === 0 && commitments.length === 0) {
    // No cue, but the statement names one option deliberately ("The opacity is in the lingula (C).", "… at the cavoatrial junction (A).").
    // Deliberate: a bracketed letter ("(C)"), a letter with its text ("lingula (C)", "C. Lingula"), or "C." — not an article.
    const deliberate = mentions.filter((m) => {
      if (m.kind !== 'letter' || m.label || /^[\s*_)\]]*[:\-–—]/.test(unit.text.slice(m.end))) return false;
      return m.end - m.start > 1 ? /[(\[][A-Da-d][)\]]|^[A-Da-d][.)\]:]/.test(unit.text.slice(m.start, m.end).replace(/^.*?(?=[(\[][A-Da-d][)\]]|$)/s, (x) => (/^[A-Da-d][.)\]:]/.test(unit.text.slice(m.start, m.end)) ? '' : x))) : /^[.)\]:]/.test(unit.text.slice(m.end)) || (/[(\[]\s*$/.test(unit.text.slice(0, m.start)) && /^\s*[)\]]/.test(unit.text.slice(m.end)));
    });
    const others = mentions.filter((m) => !deliberate.includes(m) && !stances.get(m)!.rejected && !m.weak);
    const only = new Set(deliberate.map((m) => m.named));
    const s = deliberate[0] && stances.get(deliberate[0]);
    if (only.size === 1 && others.every((m) => m.named === deliberate[0]!.named) && s && !s.rejected && !s.tentative) {
      commitments.push(toCommitment(deliberate[0]!.named, 'statement', 'statement', at(deliberate[0]!)));
    }
  }
  if (distinct.length === 1) {
    const strongest = positives.find((p) => p.s.strength === 'explicit') ?? positives.at(-1)!;
    commitments.push(toCommitment(strongest.m.named, strongest.s.strength, strongest.s.rule, at(strongest.m)));
  } else if (distinct.length >= 2) {
    // Two options committed to in one statement: a correction ("A — no wait, C"; "not A but C") keeps the last; else several answers.
    const lastP = positives.at(-1)!;
    const prev = [...positives].reverse().find((p) => p.m.named !== lastP.m.named)!;
    if (CONTRAST.test(unit.text.slice(prev.m.end, lastP.m.start))) commitments.push(toCommitment(lastP.m.named, lastP.s.strength, lastP.s.rule, at(lastP.m)));
    else commitments.push({ letter: null, reason: 'multiple', strength: positives.some((p) => p.s.strength === 'explicit') ? 'explicit' : 'evaluative', rule: 'multiple', span: [unit.start, unit.end] });
  }
  commitments.sort((a, b) => a.span[0] - b.span[0]);
  return { commitments, lone: false };
}

/**
 * Reads a text as a careful reader does: every statement that commits to an option (or to no single one),
 * then the committed answer — the last explicit answer ("the answer is", "I choose", a leading "B."), unless
 * the model revised it afterwards ("wait", "actually") and concluded again; without an explicit answer, the
 * last conclusion. Discussion of the options ("A would show…", "not C") commits to nothing.
 */
export function readCommitments(text: string, options: PreparedOptions): Reading {
  const units = splitUnits(text);
  const labels = new Set([...text.matchAll(OPTION_LABEL_LINE)].map((m) => m[1]!.toUpperCase()));
  const texts: TextsOfOutput = { mentions: findOutputMentions(text, options) };
  const optionList = labels.size >= 3;
  // Letters alone on their lines that change from line to line are a list ("A.\nB.\nC.") or a loop, not answers.
  const lone = units.flatMap((u, i) => {
    const m = LONE_LETTER.exec(u.text);
    return m ? [{ i, letter: m[1]!.toUpperCase() }] : [];
  });
  const listed = lone.some((c, k) => k > 0 && lone[k - 1]!.i === c.i - 1 && lone[k - 1]!.letter !== c.letter) || (lone.length >= 3 && new Set(lone.map((c) => c.letter)).size >= 2);
  // Read from the end: the last explicit answer wins, so statements before it need not be weighed.
  const commitments: Commitment[] = [];
  for (let i = units.length - 1; i >= 0; i--) {
    const next = units[i + 1];
    const found = commitmentsOfUnit(text, units[i]!, options, i === 0, optionList, next !== undefined && STARTS_WITH_LABEL.test(next.text), texts);
    if (found.lone && listed) continue;
    commitments.unshift(...found.commitments);
    if (found.commitments.some((c) => c.strength === 'explicit')) break;
  }
  if (commitments.length === 0) return fallback(text, units, options, listed || optionList, texts);
  const explicit = commitments.filter((c) => c.strength === 'explicit');
  const evaluative = commitments.filter((c) => c.strength !== 'statement');
  let chosen = explicit.length > 0 ? explicit.at(-1)! : evaluative.length > 0 ? evaluative.at(-1)! : statementAnswer(commitments, text);
  if (!chosen) return fallback(text, units, options, listed || optionList, texts);
  if (explicit.length > 0) {
    // A revision after the last explicit answer, followed by a new conclusion, replaces it.
    const later = evaluative.filter((c) => c.span[0] > chosen!.span[1]);
    if (later.length > 0) {
      const revision = text.slice(chosen.span[1]).search(REVISION_MARKER);
      if (revision !== -1 && chosen.span[1] + revision < later.at(-1)!.span[0]) chosen = later.at(-1)!;
    }
  }
  return chosen.letter !== null ? { letter: chosen.letter, rule: chosen.rule, span: chosen.span } : { letter: null, reason: chosen.reason ?? 'hedge', span: chosen.span };
}

/** Statements that only name an option count when they all name the same one — or the last, once the model revised the others. */
function statementAnswer(commitments: Commitment[], text: string): Commitment | undefined {
  const letters = new Set(commitments.map((c) => c.letter));
  if (letters.size === 1) return commitments[0];
  const last = commitments.at(-1)!;
  const lastOther = [...commitments].reverse().find((c) => c.letter !== last.letter)!;
  const between = text.slice(lastOther.span[1], last.span[0]);
  return REVISION_MARKER.test(between) ? last : undefined;
}

/** Without any commitment: the output's final word if it is an option letter, or the one option a complete output names. */
function fallback(text: string, units: Unit[], options: PreparedOptions, listed: boolean, texts: TextsOfOutput): Reading {
  if (DANGLING_CUE.test(text)) return { letter: null, reason: 'unfinished' };
  const last = units.at(-1);
  if (!last || listed) return { letter: null, reason: 'no-match' };
  const lastMentions = mentionsOf(text, last, options, texts);
  const final = lastMentions.at(-1);
  const distinctLetters = new Set(lastMentions.filter((m) => m.kind === 'letter').map((m) => m.named));
  if (final && distinctLetters.size === 1 && !final.label && final.kind === 'letter' && !final.weak && /^[\s*_)\]"'”’.!]*$|^[\s*_)\]"'”’.!]*[^\p{L}\p{N}\s]+\s*$/u.test(last.text.slice(final.end)) && !stanceOf(last.text, final).rejected && final.named !== 'invalid') {
    if (final.named !== 'none' && final.named !== 'all') return { letter: final.named, rule: 'bare-letter', span: [last.start + final.start, last.start + final.end] };
  }
  // The one option a finished output names and never sets aside, named by its text (or a bracketed letter).
  if (!/[.!?。！？)\]*_"'”]\s*$/.test(text)) return { letter: null, reason: 'no-match' };
  const named = new Map<Named, Mention & { unit: Unit }>();
  const mentioned = new Set<Named>();
  let rejectedAny = false;
  let lettersNamed = false;
  for (const unit of units) {
    const mentions = mentionsOf(text, unit, options, texts);
    if (mentions.length > MAX_MENTIONS_PER_UNIT) return { letter: null, reason: 'no-match' };
    for (const m of mentions) {
      if (m.weak) continue;
      mentioned.add(m.named);
      if (m.kind === 'letter') lettersNamed = true;
      if (m.label) continue;
      if (stanceOf(unit.text, m).rejected) {
        rejectedAny = true;
        continue;
      }
      if (m.kind === 'text' || (m.kind === 'letter' && /[(\[]\s*$/.test(unit.text.slice(0, m.start)))) named.set(m.named, { ...m, unit });
    }
  }
  if (named.size === 1 && mentioned.size === 1 && !rejectedAny) {
    const [n, m] = [...named.entries()][0]!;
    if (n !== 'invalid' && n !== 'none' && n !== 'all') return { letter: n, rule: m.kind === 'text' ? 'option-text' : 'bare-letter', span: [m.unit.start + m.start, m.unit.start + m.end] };
  }
  // Words that describe one option answer only an output that names no option by letter (else it discusses them).
  const described = lettersNamed ? null : describedOption(text, options.raw);
  return described ? { letter: described, rule: 'paraphrase', span: [0, text.length] } : { letter: null, reason: 'no-match' };
}
