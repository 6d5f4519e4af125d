import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { CxrError } from '../core/errors.js';
import { referenceText, TRACKS, type Track } from '../rrg/report-pairs.js';
import { loadRrgBenchmark, type Benchmark, type NewBenchmark } from '../store/benchmarks.js';
import type { Store } from '../store/connect.js';

/** The fields of a ReXrank RRG record a participant may download: the study's inputs. An allow-list. */
export const PUBLIC_RRG_FIELDS = ['image_path', 'key_image_path', 'frontal_lateral', 'context'] as const;

/**
 * Loads a report-generation test set (ReXrank's RRG JSON, keyed by study, with the reference sections) as a hidden
 * benchmark of one track. The set must be whole: a study without reference text for the track refuses the load,
 * naming the first ones; nothing is stored.
 */
export async function loadRrgBenchmarkFromFile(store: Store, actor: string, file: string, track: string, meta: Omit<NewBenchmark, 'contentSha256'>): Promise<Benchmark> {
  if (!(TRACKS as readonly string[]).includes(track)) throw new CxrError('bad-option', `--track ${track}: expected ${TRACKS.join(' or ')}`);
  let content: string;
  try {
    content = readFileSync(file, 'utf8');
  } catch (error) {
    throw new CxrError('unreadable-file', `${file}: cannot read the file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  let data: unknown;
  try {
    data = JSON.parse(content.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new CxrError('unreadable-file', `${file}: not JSON (${(error as Error).message.slice(0, 120)}); expected ReXrank's RRG JSON keyed by study`);
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) throw new CxrError('unreadable-file', `${file}: expected a JSON object keyed by study id`);
  const problems: string[] = [];
  const references: { studyId: string; reference: string; publicRecord: Record<string, unknown> }[] = [];
  for (const [studyId, record] of Object.entries(data as Record<string, unknown>)) {
    if (!record || typeof record !== 'object' || Array.isArray(record)) {
      problems.push(`study ${studyId}: not an object`);
      continue;
    }
    const reference = referenceText(record as Record<string, unknown>, track as Track);
    if (reference === null) {
      problems.push(`study ${studyId}: no reference text for the ${track} track (section_findings${track === 'findings' ? '' : ' and section_impression'} None or missing)`);
      continue;
    }
    const publicRecord: Record<string, unknown> = {};
    for (const field of PUBLIC_RRG_FIELDS) if ((record as Record<string, unknown>)[field] !== undefined) publicRecord[field] = (record as Record<string, unknown>)[field];
    references.push({ studyId, reference, publicRecord });
  }
  if (problems.length > 0) throw new CxrError('unreadable-file', `${file}: ${problems.length} problem(s) — a hidden test set must load whole. First: ${problems.slice(0, 5).join('; ')}`);
  return loadRrgBenchmark(store, actor, { ...meta, track, contentSha256: createHash('sha256').update(content).digest('hex') }, references);
}
