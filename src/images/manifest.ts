import { appendFile, readFile } from 'node:fs/promises';
import { z } from 'zod';

const voiSchema = z.union([
  z.object({ kind: z.literal('window'), source: z.enum(['file', 'min-max', 'given']), center: z.number(), width: z.number(), function: z.enum(['LINEAR', 'LINEAR_EXACT', 'SIGMOID']) }),
  z.object({ kind: z.literal('range'), low: z.number(), high: z.number() }),
  z.object({ kind: z.literal('lut'), index: z.number().int(), firstMapped: z.number().int(), entries: z.number().int(), bits: z.number().int(), explanation: z.string().nullable() }),
]);

/** One line of manifest.jsonl: a converted image, where it came from and what was done to it. */
export const manifestEntrySchema = z.object({
  source: z.string(),
  output: z.string(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  sopInstanceUid: z.string(),
  studyInstanceUid: z.string(),
  seriesInstanceUid: z.string(),
  patientId: z.string(),
  accession: z.string(),
  deidentified: z.boolean(),
  viewPosition: z.string().nullable(),
  transferSyntaxUid: z.string(),
  before: z.object({ rows: z.number().int(), columns: z.number().int() }),
  after: z.object({ rows: z.number().int(), columns: z.number().int() }),
  transform: z.object({
    modality: z.object({ slope: z.number(), intercept: z.number(), lut: z.object({ firstMapped: z.number().int(), entries: z.number().int(), bits: z.number().int(), explanation: z.string().nullable() }).optional() }),
    voi: voiSchema,
    inverted: z.boolean(),
    bits: z.union([z.literal(8), z.literal(16)]),
    scale: z.number(),
    kernel: z.string().nullable(),
  }),
  /** The run's options as given: a later run with other options must not take this line as its own (see convertImages). */
  options: z.object({ scale: z.number(), bits: z.union([z.literal(8), z.literal(16)]), window: z.string(), layout: z.string(), deid: z.boolean() }),
  toolVersion: z.string(),
});
/** A parsed manifest line. */
export type ManifestEntry = z.infer<typeof manifestEntrySchema>;

/** The manifest's file name under --out. */
export const MANIFEST_FILE = 'manifest.jsonl';

/**
 * The entries already in a manifest (none if it does not exist yet). A line that does not parse — the last
 * one, cut short by a crash mid-append — is ignored: its image is simply converted again. The torn line is
 * ended with a newline so that the next append starts a line of its own.
 */
export async function openManifest(file: string): Promise<ManifestEntry[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  if (text !== '' && !text.endsWith('\n')) await appendFile(file, '\n');
  const entries: ManifestEntry[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const parsed = manifestEntrySchema.safeParse(JSON.parse(line));
      if (parsed.success) entries.push(parsed.data);
    } catch {
      // a torn last line: see above
    }
  }
  return entries;
}

/** Appends one entry; a lone short line is written in one call, and a torn one is ignored on reading. */
export async function appendManifest(file: string, entry: ManifestEntry): Promise<void> {
  await appendFile(file, `${JSON.stringify(entry)}\n`);
}
