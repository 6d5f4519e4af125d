import { readFileSync } from 'node:fs';
import { z } from 'zod';

/**
 * The finding vocabulary of the offline (template-based) generator, loaded from `vocabulary/findings.json`: the
 * clinical knowledge is data with its provenance, not code. Each finding carries the phrases a report uses for it,
 * the ReXVQA category and subcategory, its group (findings of one group are plausible distractors for each other),
 * where it can be (laterality class, regions), the grade scale it takes, and the findings it overlaps or implies.
 * Canonical names match the labelled corpora in test/fixtures.
 */
const Finding = z.object({
  /** Canonical name, as questions and options say it. */
  name: z.string().min(1),
  /** Lower-case phrases that name it in a report (whole words; a trailing `*` matches any word ending). */
  phrases: z.array(z.string().min(1)).min(1),
  category: z.string().min(1),
  subcategory: z.string().min(1),
  group: z.enum(['pleura', 'parenchyma', 'heart-vessels', 'mediastinum', 'devices', 'bones', 'abdomen', 'airways']),
  /** lateral: one side or both, never the midline; midline: no side; either: a side or the midline; whole: the lungs as a whole. */
  laterality: z.enum(['lateral', 'midline', 'either', 'whole']),
  /** The grade words it can take: size (small / moderate / large) or severity (mild / moderate / severe); null: none. */
  scale: z.enum(['size', 'severity']).nullable(),
  /** The regions it can occupy (a location question offers only these). */
  regions: z.array(z.string()),
  /** Findings it overlaps or implies: never distractors beside it (oedema implies vascular congestion). */
  overlaps: z.array(z.string()),
  /** A diagnosis rather than an appearance: differential questions are asked about these. */
  diagnosis: z.boolean().optional(),
  /** How an option names it when the canonical name reads badly in a question. */
  label: z.string().optional(),
  /** A countable finding's name on both sides ("pleural effusions"): "Bilateral pleural effusions", not "effusion". */
  pluralLabel: z.string().optional(),
  /** The name is a count noun: it takes an article in running text ("regarding a chest tube"; not "a pneumonia"). */
  countable: z.boolean().optional(),
  /** The name is plural ("degenerative changes"): "are", not "is". */
  plural: z.boolean(),
  /** Whether questions are asked about it (an unspecified "fracture" is read, never keyed). */
  ask: z.boolean(),
  /**
   * Phrases of a request (indication) that imply it is on the film though the report may not say so ("cardiac
   * surgery" → sternotomy wires, "line placement" → a central venous catheter): never offered as a wrong option there.
   */
  impliedBy: z.array(z.string().min(1)).optional(),
  /**
   * Phrases that are not the finding but carry its name ("subcutaneous emphysema", "pleural cavity", "mass effect"):
   * where a report has one, the finding is never a wrong option — a reader would take it as stated.
   */
  nameAlikes: z.array(z.string().min(1)).optional(),
  /** A finding of adult life (aortic calcification, pleural plaque): never a wrong option on a newborn's or infant's film. */
  adultOnly: z.boolean().optional(),
  /** The CheXpert observation it falls under (provenance), or null. */
  chexpert: z.string().nullable(),
}).strict();
export type FindingEntry = z.infer<typeof Finding>;

const Vocabulary = z.object({ $comment: z.string(), provenance: z.record(z.string(), z.string()), findings: z.array(Finding) }).strict().superRefine((v, ctx) => {
  const names = new Set(v.findings.map((f) => f.name));
  if (names.size !== v.findings.length) ctx.addIssue({ code: 'custom', message: 'two findings share a name' });
  for (const f of v.findings) for (const o of f.overlaps) if (!names.has(o)) ctx.addIssue({ code: 'custom', path: ['findings', f.name, 'overlaps'], message: `unknown finding "${o}"` });
  // A phrase is matched word by word: a character the word splitter drops ("rib #") would leave "rib" alone.
  for (const f of v.findings) for (const p of f.phrases) if (!/^[\p{L}\p{N}' *\-/]+$/u.test(p)) ctx.addIssue({ code: 'custom', path: ['findings', f.name, 'phrases'], message: `"${p}": letters, digits, spaces, hyphens and a trailing * only` });
});

const VOCABULARY_FILE = new URL('./vocabulary/findings.json', import.meta.url);

/** Reads and checks the vocabulary; a broken file names its problem at start-up rather than making bad questions. */
function loadVocabulary(): FindingEntry[] {
  const parsed = Vocabulary.safeParse(JSON.parse(readFileSync(VOCABULARY_FILE, 'utf8')));
  if (!parsed.success) throw new Error(`${VOCABULARY_FILE.pathname}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return parsed.data.findings;
}

export const LEXICON: readonly FindingEntry[] = loadVocabulary();
const BY_NAME = new Map(LEXICON.map((e) => [e.name, e]));

/** The words an option uses for a finding. */
export const optionLabel = (e: FindingEntry) => e.label ?? e.name.charAt(0).toUpperCase() + e.name.slice(1);

/** The entry of a canonical finding name. */
export function findingEntry(name: string): FindingEntry | undefined {
  return BY_NAME.get(name);
}

/** Whether a side (left / right / both) is meaningful for the finding. */
export const hasSide = (e: FindingEntry) => e.laterality === 'lateral' || e.laterality === 'either';

/** Whether two findings overlap or one implies the other (either direction). */
export function overlapping(a: string, b: string): boolean {
  return a === b || (BY_NAME.get(a)?.overlaps.includes(b) ?? false) || (BY_NAME.get(b)?.overlaps.includes(a) ?? false);
}
