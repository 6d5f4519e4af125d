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
const WEEKDAY = '(?:(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?\\.?,?\\s+)?';
const TIME = '(?:[ ,]+(?:at )?\\d{1,2}:?\\d{2}(?::\\d{2})?(?:\\s?[ap]\\.?m\\.?)?(?:\\s?h(?:rs|ours)?)?)?';
const ORDINAL = '\\d{1,2}(?:st|nd|rd|th)?';
const WORD_NUMBER = '(?:ninety|one hundred)(?:[- ](?:one|two|three|four|five|six|seven|eight|nine))?';
/** A capitalised name word (any script): "O'Neill", "Smith-Jones", "Zoë", or an initial "J.". */
const NAME_WORD = "(?:\\p{Lu}[\\p{L}'’-]+|\\p{Lu}\\.)";
const NAME = `${NAME_WORD}(?:,?\\s+${NAME_WORD}){0,3}`;
/** Words that are never a person's name, though they follow a title or are capitalised (eponyms are handled by the title rule). */
const NAME_STOPWORDS = /^(?:the|a|an|and|or|of|on|at|in|by|to|with|for|is|was|were|are|has|had|reported|report|called|discussed|notified|findings|impression|radiology|team|service|on-call|resident|attending|nurse|physician|patient|clinic|ward|department|icu|ed|er|pacs|ct|mri?|cxr|xr|gp|md|do|np|rn|pa|left|right|chest|normal|unit|please|see|per|this|that|dated|date|sex|dob|age|mrn|acc|tel|phone|fax|ext|re|cc|amended|addendum|final|preliminary|results|result|exam|study|time|no|none|yes|x+|n\/a|unknown|anonymous|redacted|id|rt|tech)$/i;
const TITLES = /^(?:dr|mr|mrs|ms|miss|mx|prof|sister|herr|frau|sr|sra)\.?$/i;
/** Words before a place name that make it the patient's or the films' place (travel, transfer, outside imaging, home). */
const PLACE_CONTEXT = '(?:stay|stayed|staying|near|collision|accident|crash|worked|works|work|recd|received|returning|returned|travel(?:l?ed|l?ing)?|holiday|trip|transferred|transported|transfer|outside|performed|obtained|received|imported|lives|living|resident|home|visiting|visit|moved|emigrated|arrived|flown|sent|hospital|clinic|infirmary|centre|center|imaging|done)';
const NOT_PLACES = /^(?:January|February|March|April|May|June|July|August|September|October|November|December|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|Left|Right|The|A|An|ICU|ED|ER|CT|MRI|PACS|Radiology|Emergency|Department|Clinic|Hospital|Outside|Our|This|That|Accident|General|Medical|Center|Centre|Imaging|University|Community|Regional|Memorial|St|Saint|Mercy|Children|Unit|Ward|Theatre|Surgery|No|Normal)$/;

interface Rule { kind: PhiKind; pattern: RegExp; group?: number }

/**
 * Rewrites `(?i:…)` groups into `(?:…)` with each letter as a two-case class (`[dD][rR]`): the same meaning as
 * the regexp modifier, which V8 mishandles in some alternations (a later alternative with a space stops earlier
 * ones from matching). Escapes (`\s`, `\p{Lu}`) are copied as they are.
 */
function caseless(source: string): string {
  let out = '';
  for (let i = 0; i < source.length; ) {
    if (!source.startsWith('(?i:', i)) {
      out += source[i++];
      continue;
    }
    out += '(?:';
    i += 4;
    for (let depth = 1; i < source.length && depth > 0; ) {
      const c = source[i]!;
      if (c === '\\') {
        const brace = source[i + 1] === 'p' && source[i + 2] === '{' ? source.indexOf('}', i) + 1 : i + 2;
        out += source.slice(i, brace);
        i = brace;
        continue;
      }
      if (c === '(') depth++;
      if (c === ')') depth--;
      out += /[a-z]/i.test(c) ? `[${c.toLowerCase()}${c.toUpperCase()}]` : c;
      i++;
    }
  }
  return out;
}
const rx = (source: string, flags: string) => new RegExp(caseless(source), flags);

const ID_VALUE = '([A-Za-z]{0,4}[-\\d][\\w-]{3,}(?:\\s?-\\s?\\d+)?)';
const label = (words: string) => `\\b(?i:${words})\\.?\\s*(?:number|no\\.?|#|id)?[:#\\s]*`;

const RULES: Rule[] = [
  { kind: 'email', pattern: /\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b/g },
  { kind: 'url', pattern: /\b(?:https?:\/\/|www\.)[^\s<>"')\]]+[^\s<>"')\].,;:]/gi },
  { kind: 'ip', pattern: /(?<!\b(?:version|ver|v|firmware|software)\.?\s?)\b(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)\b(?!\.\d)/g },
  { kind: 'other_id', pattern: /\b[12](?:\.\d+){5,}\b/g },
  { kind: 'ssn', pattern: /\b(?:ssn|ss#|social security(?: number| no\.?)?)(?:\s+on\s+\w+)?[:#\s]*([\d*xX]{3}[\s-]?[\d*xX]{2}[\s-]?\d{4})\b/gi, group: 1 },
  { kind: 'ssn', pattern: /\b\d{3}-\d{2}-\d{4}\b/g },
  { kind: 'fax', pattern: /\bfax(?: number| no\.?)?[:#.\s]*((?:\+\d{1,3}[\s.-]?)?\(?\d{2,5}\)?(?:[\s.-]?\d{2,4}){2,3})/gi, group: 1 },
  { kind: 'phone', pattern: /(?:\+\d{1,3}[\s.-]?|\b1[\s.-])?\(?\b\d{3}\)?[\s.-]\d{3}[\s.-]\d{4}\b(?:\s*(?:ext\.?|x)\s*[\d-]{1,8})?/gi },
  { kind: 'phone', pattern: /\+\d{1,3}(?:[\s.-]?\(?\d{1,5}\)?){2,5}\d/g },
  { kind: 'phone', pattern: /\b0\d{2,4}[\s-]?\d{3,4}[\s-]?\d{3,4}\b/g },
  { kind: 'phone', pattern: /\b(?:ext(?:ension)?|pager|bleep|tel(?:ephone)?|phone|cell|mobile|line)\.?[:#\s]+(\+?\d[\d\s.-]{2,16}\d)\b/gi, group: 1 },
  { kind: 'mrn', pattern: rx(`${label('mrn|mr#|mr no|medical record|hospital number|hosp(?:ital)? no|patient id|pt id|nhs|unit number|chi|urn')}${ID_VALUE}`, 'g'), group: 1 },
  { kind: 'mrn', pattern: /\b(?:nhs(?: number| no\.?)?)[:#\s]*(\d{3}\s?\d{3}\s?\d{4})\b/gi, group: 1 },
  { kind: 'accession', pattern: rx(`${label('accession|acc|exam(?:ination)?|study|order|ref|réf|requisition')}${ID_VALUE}`, 'g'), group: 1 },
  { kind: 'account', pattern: rx(`${label('account|acct|encounter|visit|billing|fin|csn|har|member|policy|insurance|health plan|medicaid|medicare|health card|subscriber')}${ID_VALUE}`, 'g'), group: 1 },
  { kind: 'license', pattern: rx(`${label('npi|dea|licen[cs]e|certificate|gmc|registration')}([A-Za-z]{0,3}\\d[\\w-]{4,})`, 'g'), group: 1 },
  { kind: 'device_id', pattern: rx(`${label('serial|s/n|sn|device id|device serial|udi|lot')}((?=[\\w -]*\\d)[A-Za-z0-9][\\w-]{2,}(?: [A-Z0-9]{1,8}){0,2})`, 'g'), group: 1 },
  { kind: 'other_id', pattern: rx(`${label('badge|uid|employee|vehicle|plate|biometric')}([A-Za-z0-9][\\w.-]{3,}[A-Za-z0-9])`, 'g'), group: 1 },
  // An unlabelled code that mixes letters and at least four digits (e.g. an outside study number): an identifier.
  { kind: 'other_id', pattern: /\b(?=[A-Z0-9-]*\d{4})(?=[A-Z0-9-]*[A-Z])[A-Z0-9]{2,}(?:-[A-Z0-9]+)+\b|\b[A-Z]{1,4}\d{5,}[A-Z]?\b/g },
  { kind: 'date', pattern: new RegExp(`\\b${WEEKDAY}(?:${MONTHS}\\.?\\s+${ORDINAL}(?:,?\\s+\\d{4})?|${ORDINAL}\\s+(?:of\\s+)?${MONTHS}\\.?(?:,?\\s+\\d{4})?|the\\s+${ORDINAL}\\s+of\\s+${MONTHS}(?:,?\\s+\\d{4})?)${TIME}\\b`, 'gi') },
  { kind: 'date', pattern: new RegExp(`\\b${WEEKDAY}\\d{1,2}[/.-]\\d{1,2}[/.-]\\d{2,4}${TIME}|\\b\\d{4}-\\d{2}-\\d{2}(?:[T ]\\d{2}:\\d{2}(?::\\d{2})?)?|\\b\\d{1,2}-${MONTHS}-\\d{2,4}${TIME}|\\b${MONTHS}-\\d{1,2}-\\d{2,4}${TIME}`, 'gi') },
  // A bare month/day ("3/14") only where a date is expected: after "on", "dated", "since", a comparison or a study.
  { kind: 'date', pattern: /\b(?:on|dated|since|from|of|comparison|compared with|prior|study|cxr|film|exam|performed)\s+(\d{1,2}\/\d{1,2})(?![/\d])\b/gi, group: 1 },
  { kind: 'date', pattern: new RegExp(`\\b${MONTHS}\\.?\\s+\\d{4}\\b|\\b(?:0?[1-9]|1[0-2])/(?:19|20)\\d{2}\\b|\\b(?:19|20)\\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\\d|3[01])\\b`, 'gi') },
  { kind: 'date', pattern: /\b(?:the|on the|of the|since the)\s+(\d{1,2}(?:st|nd|rd|th))\b/gi, group: 1 },
  { kind: 'date', pattern: /\b(?:dob|d\.o\.b\.?|date of birth|born)[:\s]*(\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}|\d{4}-\d{2}-\d{2})/gi, group: 1 },
  { kind: 'age_over_89', pattern: /\b(9\d|1[0-1]\d)(?=(?:\s|-)*(?:years?|yrs?|y\/o|y\.?o\.?\b|yo\b|-year|year-old|y\b|[mf]\b))/gi, group: 1 },
  { kind: 'age_over_89', pattern: /\b(?:aged?|age:)\s*(9\d|1[0-1]\d)(?:\s*(?:y|yrs?|years?)\b)?/gi, group: 1 },
  { kind: 'age_over_89', pattern: /\b(?:early|mid|late)?[- ]?(90s|nineties|100s)\b|\b(nonagenarian|centenarian)\b/gi },
  { kind: 'age_over_89', pattern: new RegExp(`\\b(${WORD_NUMBER})(?=[- ](?:years?|year-old|y\\/o|yo)\\b)`, 'gi'), group: 1 },
  { kind: 'age_over_89', pattern: new RegExp(`\\baged?\\s+(${WORD_NUMBER})\\b`, 'gi'), group: 1 },
  { kind: 'address', pattern: rx("\\b\\d{1,6}\\s+(?:\\p{Lu}[\\p{L}'’-]*\\.?\\s){1,4}(?i:street|st|avenue|ave|road|rd|boulevard|blvd|lane|ln|drive|dr|court|ct|way|place|pl|terrace|close|crescent|parkway|pkwy|highway|hwy|square|row|gardens)\\b\\.?(?:,?\\s+(?i:apt|suite|unit|flat|#)\\s*\\w+)?(?:,\\s*\\p{Lu}[\\p{L}'’-]+(?:\\s\\p{Lu}[\\p{L}'’-]+)?){0,2}", 'gu') },
  { kind: 'address', pattern: /\b\d{5}(?:-\d{4})\b|\b(?:[A-Z]{2}\s)\d{5}\b/g },
  { kind: 'address', pattern: /\b[A-Z]{1,2}\d[A-Z\d]?\s\d[A-Z]{2}\b|\b[AC-FHKNPRTV-Y]\d{2}\s?[AC-FHKNPRTV-Y0-9]{4}\b|\b[A-Z]\d[A-Z]\s?\d[A-Z]\d\b/g },
  { kind: 'address', pattern: /\b(?:zip(?: code)?|postcode|post code)[:\s]*(\d{5}(?:-\d{4})?|[A-Z]{1,2}\d[A-Z\d]?\s?\d[A-Z]{2})\b/gi, group: 1 },
  { kind: 'address', pattern: rx(`\\b(?i:${PLACE_CONTEXT})\\b(?:\\s+[\\p{L}.-]+){0,4}?\\s+(?i:from|in|at|to|near)\\s+(?:a\\s+\\w+\\s+in\\s+)?((?:\\p{Lu}[\\p{L}'’-]+|\\p{Ll}[\\p{L}'’-]+\\s\\p{Ll}+(?=,))(?:[ -]\\p{Lu}[\\p{L}'’-]+){0,2})`, 'gu'), group: 1 },
  { kind: 'name', pattern: rx(`\\b((?i:dr|mr|mrs|ms|miss|mx|prof|sister|herr|frau|sr|sra)\\.?\\s+${NAME})`, 'gu'), group: 1 },
  { kind: 'name', pattern: rx(`\\b(?i:rn|np|nurse)\\s+(${NAME})`, 'gu'), group: 1 },
  { kind: 'name', pattern: rx("\\b((?i:dr|prof|herr|frau)\\.?\\s+\\p{L}\\.?\\s?\\p{Ll}[\\p{L}'’-]+)", 'gu'), group: 1 },
  { kind: 'name', pattern: rx(`\\b(?i:patient(?: name)?|name|pt|patient|referring(?: physician| doctor| clinician)?|ordering(?: physician| provider| clinician)?|ref\\.? physician|attending|dictated by|signed by|read by|reported by|verified by|electronically signed by|requested by|cc|tech(?:nologist)?|radiographer|resident|fellow|consultant|emergency contact|next of kin|contact|guardian|spouse|wife|husband|mother|father|daughter|son)\\s*[:\\-]\\s*(${NAME})`, 'gu'), group: 1 },
  { kind: 'name', pattern: rx(`\\b(?i:clinical history|history|indication|clinical details|clinical information|reason for exam)\\s*:\\s*(${NAME_WORD}\\s+${NAME_WORD}(?:\\s+${NAME_WORD})?)(?=,)`, 'gu'), group: 1 },
  { kind: 'name', pattern: rx(`\\b(?i:practitioner|director|daughter|son|wife|husband|mother|father|brother|sister|partner|carer|caregiver|guardian|nok)(?:'s)?\\s*[,(:]?\\s*(${NAME})`, 'gu'), group: 1 },
  { kind: 'name', pattern: rx(`\\b(?i:patient|pt)\\s+(${NAME_WORD},?\\s+${NAME_WORD}(?:\\s+${NAME_WORD})?)`, 'gu'), group: 1 },
  { kind: 'name', pattern: rx(`\\b(?i:(?:ordered|reviewed|read|dictated|signed|reported|verified|amended|imported|requested|referred|seen|examined|performed|interpreted|approved|copied|conveyed|relayed|communicated|discussed|called|phoned|paged|notified|informed|sent|faxed|emailed|e-mailed|given|handed|left message|spoke|spoken|telephoned|rang|updated)(?:\\s+[\\w:/.]+){0,4}?\\s+(?:by|to|with|for))\\s+((?:(?i:dr|mr|mrs|ms|prof)\\.?\\s+)?${NAME})`, 'gu'), group: 1 },
];
/** Trims a name match to its name words (drops trailing stop words and punctuation). */
function trimName(text: string, start: number): { start: number; end: number } | null {
  const parts = [...text.matchAll(/[\p{L}'’.-]+/gu)];
  while (parts.length > 0 && NAME_STOPWORDS.test(parts.at(-1)![0].replace(/[.,]$/, ''))) parts.pop();
  while (parts.length > 0 && NAME_STOPWORDS.test(parts[0]![0])) parts.shift();
  if (parts.length === 0 || parts.every((p) => TITLES.test(p[0]))) return null;
  const first = parts[0]!;
  const last = parts.at(-1)!;
  const end = last.index! + last[0].replace(/[,]$/, '').length;
  return { start: start + first.index!, end: start + end };
}

/** Every identifier the rules find in a text, longest first where two overlap. */
export function detectPhi(text: string): PhiSpan[] {
  const found: PhiSpan[] = [];
  for (const rule of RULES) {
    // exec with lastIndex, not matchAll: matchAll clones the pattern on every call, which costs more than the search.
    const pattern = rule.pattern;
    pattern.lastIndex = 0;
    for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
      if (m[0] === '') pattern.lastIndex++;
      const value = rule.group !== undefined ? m[rule.group] : m[0];
      if (value === undefined || value === '') continue;
      let start = m.index! + (rule.group !== undefined ? m[0].indexOf(value) : 0);
      let end = start + value.length;
      if (rule.kind === 'name') {
        const trimmed = trimName(value, start);
        if (!trimmed) continue;
        ({ start, end } = trimmed);
      }
      if (rule.kind === 'address' && rule.group !== undefined && NOT_PLACES.test(value.split(/[ -]/)[0]!)) continue;
      found.push({ kind: rule.kind, start, end });
    }
  }
  found.sort((a, b) => a.start - b.start || b.end - b.start - (a.end - a.start));
  const out: PhiSpan[] = [];
  for (const span of found) {
    const last = out.at(-1);
    if (last && span.start < last.end) {
      // Overlapping finds are merged, so nothing of either is left unredacted; the longer one names the kind.
      if (span.end > last.end) out[out.length - 1] = { kind: span.end - span.start > last.end - last.start ? span.kind : last.kind, start: last.start, end: span.end };
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
