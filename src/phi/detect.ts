/**
 * Rule-based screening for the HIPAA Safe Harbor identifiers (45 CFR 164.514(b)(2)) in report text: names
 * (after a title or a role word, or in a "Name:"/"Patient:" field), dates more specific than a year, ages over
 * 89, phone and fax numbers, e-mail addresses, medical record / accession / account numbers, SSNs, street
 * addresses and ZIP codes, URLs, IP addresses, device serial and licence numbers. Measured against the labelled
 * corpus in test/fixtures/phi-corpus (test/phi-corpus.test.ts prints recall and precision per kind).
 */
export type PhiKind = 'name' | 'date' | 'age_over_89' | 'phone' | 'fax' | 'email' | 'mrn' | 'accession' | 'account' | 'ssn' | 'address' | 'url' | 'ip' | 'device_id' | 'license' | 'other_id';

/** One identifier found: its kind and where it stands. */
export interface PhiSpan { kind: PhiKind; start: number; end: number }

const MONTHS = '(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|jun(?:e)?|jul(?:y)?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)';
const WEEKDAYS = '(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?';
const TIME = '(?:[ ,]+(?:at )?\\d{1,2}:\\d{2}(?::\\d{2})?(?:\\s?[ap]\\.?m\\.?)?(?:\\s?h(?:rs|ours)?)?)?';
const ORDINAL = '\\d{1,2}(?:st|nd|rd|th)?';
const WORD_NUMBER = '(?:ninety|one hundred)(?:[- ](?:one|two|three|four|five|six|seven|eight|nine))?';
/** Words that are never a person's name, though they follow a title or are capitalised (eponyms are handled by the title rule). */
const NAME_STOPWORDS = /^(?:the|a|an|and|or|of|on|at|in|by|to|with|for|is|was|were|are|has|had|reported|report|called|discussed|notified|findings|impression|radiology|team|service|on-call|resident|attending|nurse|physician)$/i;

interface Rule { kind: PhiKind; pattern: RegExp; group?: number }

const RULES: Rule[] = [
  { kind: 'email', pattern: /\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b/g },
  { kind: 'url', pattern: /\b(?:https?:\/\/|www\.)[^\s<>"')\]]+[^\s<>"')\].,;:]/gi },
  { kind: 'ip', pattern: /\b(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)\b/g },
  { kind: 'ssn', pattern: /\b(?:ssn|social security(?: number| no\.?)?)[:#\s]*(\d{3}-?\d{2}-?\d{4})\b/gi, group: 1 },
  { kind: 'ssn', pattern: /\b\d{3}-\d{2}-\d{4}\b/g },
  { kind: 'fax', pattern: /\bfax(?: number| no\.?)?[:#\s]*((?:\+\d{1,3}[\s.-]?)?\(?\d{3}\)?[\s.-]?\d{3}[\s.-]?\d{4})/gi, group: 1 },
  { kind: 'phone', pattern: /(?:\+\d{1,3}[\s.-]?)?\(?\b\d{3}\)?[\s.-]\d{3}[\s.-]\d{4}\b(?:\s*(?:ext\.?|x)\s*\d{1,6})?/gi },
  { kind: 'phone', pattern: /\+\d{1,3}(?:[\s.-]?\(?\d{1,5}\)?){2,5}\d/g },
  { kind: 'phone', pattern: /\b(?:ext(?:ension)?|pager|bleep|tel(?:ephone)?|phone|cell|mobile)\.?[:#\s]+(\d[\d\s.-]{2,14}\d)\b/gi, group: 1 },
  { kind: 'mrn', pattern: /\b(?:mrn|medical record(?: number| no\.?| #)?|mr#|mr no\.?|hospital number|patient id|pt id|nhs(?: number| no\.?)?|unit number)[:#\s]*([a-z]{0,4}[-\d][\w-]{3,})/gi, group: 1 },
  { kind: 'accession', pattern: /\b(?:accession(?: number| no\.?| #)?|acc(?:\.|ession)?(?: no\.?| #)?|exam(?:ination)? (?:number|no\.?|#|id)|study (?:number|no\.?|#|id)|order (?:number|no\.?|#))[:#\s]*([a-z]{0,4}[-\d][\w-]{3,})/gi, group: 1 },
  { kind: 'account', pattern: /\b(?:account(?: number| no\.?| #)?|acct\.?(?: no\.?| #)?|encounter(?: number| no\.?| #| id)?|visit(?: number| no\.?| #| id)|billing(?: number| no\.?| #)?|fin|csn|har|member id|policy(?: number| no\.?)?|insurance(?: id| number| no\.?)?|health plan(?: id| number)?|medicaid(?: id| number)?|medicare(?: id| number)?)[:#\s]*([a-z]{0,4}[-\d][\w-]{3,})/gi, group: 1 },
  { kind: 'license', pattern: /\b(?:npi|dea(?: number| no\.?| #)?|licen[cs]e(?: number| no\.?| #)?|certificate(?: number| no\.?| #)?|gmc(?: number| no\.?)?)[:#\s]*([a-z]{0,3}\d[\w-]{4,})/gi, group: 1 },
  { kind: 'device_id', pattern: /\b(?:serial(?: number| no\.?| #)?|s\/n|sn|device id|udi|lot(?: number| no\.?)?)[:#\s]*([a-z0-9][\w-]{4,})/gi, group: 1 },
  { kind: 'date', pattern: new RegExp(`\\b(?:${WEEKDAYS},?\\s+)?(?:${MONTHS}\\.?\\s+${ORDINAL}(?:,?\\s+\\d{4})?|${ORDINAL}\\s+(?:of\\s+)?${MONTHS}\\.?(?:,?\\s+\\d{4})?|the\\s+${ORDINAL}\\s+of\\s+${MONTHS}(?:,?\\s+\\d{4})?)${TIME}\\b`, 'gi') },
  { kind: 'date', pattern: new RegExp(`\\b\\d{1,2}[/.-]\\d{1,2}[/.-]\\d{2,4}${TIME}|\\b\\d{4}-\\d{2}-\\d{2}(?:[T ]\\d{2}:\\d{2}(?::\\d{2})?)?|\\b\\d{1,2}-${MONTHS}-\\d{2,4}${TIME}|\\b\\d{1,2}/\\d{1,2}(?!/|\\d)(?=\\b)`, 'gi') },
  { kind: 'date', pattern: new RegExp(`\\b${MONTHS}\\.?\\s+\\d{4}\\b`, 'gi') },
  { kind: 'date', pattern: /\b(?:dob|d\.o\.b\.?|date of birth|born)[:\s]*(\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}|\d{4}-\d{2}-\d{2})/gi, group: 1 },
  { kind: 'age_over_89', pattern: /\b(9\d|1[0-1]\d)(?=(?:\s|-)*(?:years?|yrs?|y\.?o\.?\b|yo\b|-year|year-old))/gi, group: 1 },
  { kind: 'age_over_89', pattern: /\b(?:aged?|age:)\s*(9\d|1[0-1]\d)\b/gi },
  { kind: 'age_over_89', pattern: new RegExp(`\\b(${WORD_NUMBER})(?=[- ]years?|[- ]year-old)`, 'gi'), group: 1 },
  { kind: 'address', pattern: /\b\d{1,6}\s+(?:[A-Z][a-z]+\.?\s){1,4}(?:street|st|avenue|ave|road|rd|boulevard|blvd|lane|ln|drive|dr|court|ct|way|place|pl|terrace|close|crescent|parkway|pkwy|highway|hwy)\b\.?(?:,?\s+(?:apt|suite|unit|#)\s*\w+)?/gi },
  { kind: 'address', pattern: /\b\d{5}(?:-\d{4})\b|\b(?:[A-Z]{2}\s)\d{5}\b/g },
  { kind: 'address', pattern: /\b[A-Z]{1,2}\d[A-Z\d]?\s\d[A-Z]{2}\b/g },
  { kind: 'address', pattern: /\b(?:zip(?: code)?|postcode|post code)[:\s]*(\d{5}(?:-\d{4})?|[A-Z]{1,2}\d[A-Z\d]?\s?\d[A-Z]{2})\b/gi, group: 1 },
  { kind: 'name', pattern: /\b(?:dr|mr|mrs|ms|miss|mx|prof|rn|np|pa|sister|nurse)\.?\s+((?:[A-Z][\p{L}'’-]+|[A-Z]\.)(?:\s+(?:[A-Z][\p{L}'’-]+|[A-Z]\.)){0,2})/gu, group: 1 },
  { kind: 'name', pattern: /\b(?:patient(?: name)?|name|pt|referring(?: physician| doctor| clinician)?|ordering(?: physician| provider| clinician)?|attending|dictated by|signed by|read by|reported by|verified by|electronically signed by|cc|technologist|radiographer|resident|fellow|consultant|discussed with|called to|communicated to|informed|d\/w)[:\s]+((?:[A-Z][\p{L}'’-]+,?\s*|[A-Z]\.\s*){1,3})/gu, group: 1 },
];

/** Trims a name match to its name words (drops trailing stop words and punctuation). */
function trimName(text: string, start: number): { start: number; end: number } | null {
  const parts = [...text.matchAll(/[\p{L}'’.-]+/gu)];
  while (parts.length > 0 && NAME_STOPWORDS.test(parts.at(-1)![0].replace(/[.,]$/, ''))) parts.pop();
  while (parts.length > 0 && NAME_STOPWORDS.test(parts[0]![0])) parts.shift();
  if (parts.length === 0) return null;
  const first = parts[0]!;
  const last = parts.at(-1)!;
  const end = last.index! + last[0].replace(/[,]$/, '').length;
  return { start: start + first.index!, end: start + end };
}

/** Every identifier the rules find in a text, longest first where two overlap. */
export function detectPhi(text: string): PhiSpan[] {
  const found: PhiSpan[] = [];
  for (const rule of RULES) {
    rule.pattern.lastIndex = 0;
    for (const m of text.matchAll(rule.pattern)) {
      const value = rule.group !== undefined ? m[rule.group] : m[0];
      if (value === undefined || value === '') continue;
      let start = m.index! + (rule.group !== undefined ? m[0].indexOf(value) : 0);
      let end = start + value.length;
      if (rule.kind === 'name') {
        const trimmed = trimName(value, start);
        if (!trimmed) continue;
        ({ start, end } = trimmed);
      }
      found.push({ kind: rule.kind, start, end });
    }
  }
  found.sort((a, b) => a.start - b.start || b.end - b.start - (a.end - a.start));
  const out: PhiSpan[] = [];
  for (const span of found) {
    const last = out.at(-1);
    if (last && span.start < last.end) {
      if (span.end > last.end && span.end - span.start > last.end - last.start) out[out.length - 1] = span;
      continue;
    }
    out.push(span);
  }
  return out;
}

/** The text with every identifier replaced by `[REDACTED:<kind>]`, and the kinds replaced. */
export function redactPhi(text: string): { text: string; kinds: PhiKind[] } {
  const spans = detectPhi(text);
  let out = '';
  let at = 0;
  for (const s of spans) {
    out += `${text.slice(at, s.start)}[REDACTED:${s.kind}]`;
    at = s.end;
  }
  return { text: out + text.slice(at), kinds: [...new Set(spans.map((s) => s.kind))] };
}
