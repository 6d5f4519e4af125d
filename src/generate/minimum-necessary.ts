import { sentences } from './words.js';

/**
 * Words that mark a sentence as being about people, contact or record-keeping rather than the image: such a
 * sentence never reaches the output, whether or not the PHI rules found an identifier in it (rules miss some
 * names; a sentence about who was called adds nothing to a question about the film).
 */
const ABOUT_PEOPLE = /\b(?:dr|mr|mrs|ms|miss|prof|rn|np|md|do|pa-c|discussed|called|notified|communicated|conveyed|relayed|informed|phoned|paged|telephone|telephoned|spoke|spoken|message|signed|dictated|transcribed|reviewed by|read by|reported by|requested by|ordered by|referring|referred|attending|resident|consultant|registrar|nurse|technologist|radiographer|daughter|son|wife|husband|mother|father|family|guardian|patient name|name|mrn|dob|d\.o\.b|born|accession|acc|account|visit|tel|fax|phone|pager|ext|email|e-mail|address|street|road|avenue|lane|hospital no|nhs|ssn|social security|serial|redacted)\b|@|https?:|www\./i;
/** Two capitalised words in a row inside a sentence (not at its start): a name or a place more often than not. */
const PROPER_NAME = /(?<=\S\s+)\p{Lu}\p{Ll}+[ -]\p{Lu}\p{Ll}+/u;

/** A capitalised word after a preposition inside a sentence ("a recent stay in Kisumu"): a place, unless it is an eponym. */
const PLACE = /(?<=\S\s+)(?:in|near|from|at|to|on)\s+(\p{Lu}\p{Ll}{2,})/gu;
const EPONYMS = new Set(['Kerley', 'Swan', 'Hampton', 'Westermark', 'Fleischner', 'Morgagni', 'Bochdalek', 'Chilaiditi', 'Pancoast', 'Luftsichel', 'Dobbhoff', 'Dobhoff', 'Heimlich', 'Port', 'Foley', 'Golden', 'Kartagener', 'Poland', 'Hickman', 'Groshong', 'Mediport', 'Impella', 'Fontan', 'Blalock', 'Glenn', 'Nissen', 'Ivor', 'Lady', 'Mounier', 'Williams', 'Marfan', 'Wegener', 'Caplan', 'Loeffler', 'Löffler', 'Macleod', 'Swyer', 'Boerhaave', 'Mallory', 'Zenker', 'Klebsiella', 'Legionella', 'Pneumocystis', 'Streptococcus', 'Staphylococcus', 'Mycoplasma', 'Aspergillus', 'Comparison', 'Findings', 'Impression']);
const namesPlace = (s: string) => [...s.matchAll(PLACE)].some((m) => !EPONYMS.has(m[1]!));

/** The sentences of a report section that are about the image alone; null when none is. */
export function imageOnlySentences(text: string | null): string | null {
  if (text === null) return null;
  const kept = sentences(text).map((s) => s.text).filter(quotable);
  return kept.length === 0 ? null : kept.join(' ');
}

/** A capitalised word inside a sentence (after its first word, not after a colon): a name or a place, unless an eponym. */
const TITLE_WORD = /(?<!:\s*)(?<=\S\s+)(\p{Lu}\p{Ll}+)\b/gu;
const titleWordInside = (s: string) => [...s.matchAll(TITLE_WORD)].some((m) => !EPONYMS.has(m[1]!));
/**
 * Numbers shaped like dates, times of a day, phone numbers or record numbers ("12/25", "2021.03.04", "Mar-3",
 * "555-0101", "x4455", "12345678"); measurements ("5 mm", "2.5 cm", "T7") are not.
 */
const ID_LIKE_NUMBER = /\b\d{1,2}\/\d{1,2}\b|\b\d{4}[./-]\d{1,2}[./-]\d{1,2}\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?[\s-]*\d|\b\d{3}[-.\s]\d{4}\b|\bx\d{3,}\b|\b\d{5,}\b/i;
/** Lower-case names after "per" or "pt" ("per jones", "pt garcia"). */
const LOWERCASE_PERSON = /\bper\s+(?!cent\b|se\b|the\b|report\b|protocol\b|request\b|hour\b|day\b|minute\b)[a-z]+|\bpt\b/i;

/** A sentence of capitalised words only ("Nowak.", "J. Nowak."), or an initial inside one ("…, J."): a signature. */
const NAME_ONLY = /^\s*(?:\p{Lu}[\p{L}'’-]*\.?,?\s*){1,3}$/u;
const INITIAL = /(?<=\S\s+)\p{Lu}\.(?=\s|$)/u;

/** Whether one sentence is about the image alone, so it may be written to the output or quoted in an explanation. */
export function quotable(sentence: string): boolean {
  return !NAME_ONLY.test(sentence) && !INITIAL.test(sentence) && !ABOUT_PEOPLE.test(sentence) && !PROPER_NAME.test(sentence) && !namesPlace(sentence) && !titleWordInside(sentence) && !ID_LIKE_NUMBER.test(sentence) && !LOWERCASE_PERSON.test(sentence) && !sentence.includes('[REDACTED');
}
