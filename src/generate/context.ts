import type { CorpusReport } from '../corpus/corpus-report.js';
import { LEXICON } from './lexicon.js';

/**
 * A child's film — a newborn's or infant's ("neonate", "2 hours old", "ex-28-weeker", "NICU") or an older child's
 * ("7-year-old", "paediatric") — by what the request says: the vocabulary's adult-only findings are then no plausible
 * wrong option.
 */
const INFANT = /\b(?:neonat\w*|newborn|new-born|infant|premature|prematurity|preterm|nicu|scbu|\d+[\s-]*(?:hours?|hrs?|days?|weeks?|wks?|months?|mo)[\s-]*old|(?:day|hour)\s+(?:of\s+)?life|\d+\s*(?:\+\s*\d+\s*)?weeks?\s+(?:of\s+)?gestation|\d+\s*-?\s*weeker|ex-?\s*\d+\s*-?\s*weeks?|(?:1[0-7]|[1-9])[\s-]*(?:years?|yrs?)[\s-]*old|(?:1[0-7]|[1-9])\s*(?:yo|y\/o)|child|toddler|paediatric|pediatric)\b/i;

/** A list of phrases as one whole-word, case-blind pattern. */
const phrasePattern = (phrases: readonly string[]) => new RegExp(`\\b(?:${phrases.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ /g, '\\s+')).join('|')})\\b`, 'i');
/** Each finding's request phrases, and the phrases that carry its name without being it, built once. */
const IMPLIED = LEXICON.filter((e) => e.impliedBy?.length).map((e) => ({ name: e.name, pattern: phrasePattern(e.impliedBy!) }));
const NAME_ALIKES = LEXICON.filter((e) => e.nameAlikes?.length).map((e) => ({ name: e.name, pattern: phrasePattern(e.nameAlikes!) }));

/**
 * Findings the report's context speaks for though its findings and impression may not name them (issue #23, judged
 * items): a phrase that carries a finding's name without being it ("subcutaneous emphysema"), a device or operation the request implies ("post op day 1, cardiac surgery" → sternotomy wires; "line
 * placement" → a central venous catheter), and on an infant's film the findings of adult life. The generator and
 * the checks treat them as uncertain: never the key, never a wrong option — a radiologist would not accept "no
 * sternotomy wires" the day after a sternotomy, nor "aortic calcification" as a plausible option on a neonate.
 */
export function contextFindings(report: Pick<CorpusReport, 'sections'>): string[] {
  const request = [report.sections.indication, report.sections.comparison].filter((s): s is string => s !== null).join(' ');
  const body = [report.sections.findings, report.sections.impression].filter((s): s is string => s !== null).join(' ');
  const out = request === '' ? [] : IMPLIED.filter((i) => i.pattern.test(request)).map((i) => i.name);
  if (request !== '' && INFANT.test(request)) for (const e of LEXICON) if (e.adultOnly && !out.includes(e.name)) out.push(e.name);
  // "Subcutaneous emphysema", "the pleural cavity": not the finding, but a reader would take "Emphysema" as stated.
  for (const a of NAME_ALIKES) if (!out.includes(a.name) && a.pattern.test(body)) out.push(a.name);
  return out;
}
