import { z } from 'zod';

/**
 * One report of a corpus, normalised: what `cxrbench corpus import` writes (one JSON line each) and what
 * `cxrbench generate` reads. Sections are null when the source has none; `source` says where it came from, so
 * every question and every rejection can be traced back to a file and record.
 */
export const CorpusReport = z.object({
  id: z.string().min(1),
  patientId: z.string().nullable(),
  sections: z.object({
    indication: z.string().nullable(),
    comparison: z.string().nullable(),
    findings: z.string().nullable(),
    impression: z.string().nullable(),
  }),
  images: z.array(z.object({ path: z.string(), view: z.string().nullable() })),
  source: z.object({ file: z.string(), record: z.string() }),
});
export type CorpusReport = z.infer<typeof CorpusReport>;

/** A source record that did not become a report, and why (kept so every record is accounted for). */
export const CorpusRejection = z.object({
  source: z.object({ file: z.string(), record: z.string() }),
  reason: z.string(),
});
export type CorpusRejection = z.infer<typeof CorpusRejection>;

/** The report sections, in the order a radiologist reads them. */
export const SECTION_NAMES = ['indication', 'comparison', 'findings', 'impression'] as const;
export type SectionName = (typeof SECTION_NAMES)[number];

/** Reports longer than this (characters, all sections) are rejected: no chest X-ray report is 200 KB long. */
export const MAX_REPORT_CHARS = 200_000;
