import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { writeFileAtomically } from '../dataset/sources/atomic-write.js';
import type { ColumnMap } from './column-map.js';
import { readImagesCsv } from './images-csv.js';
import type { CorpusRejection } from './corpus-report.js';
import { readCorpusSource, type CorpusFormat } from './read-sources.js';

/** What an import did: every source record is either a report or a rejection. */
export interface ImportSummary {
  reports: number;
  rejected: number;
  byReason: Record<string, number>;
  out: string;
  rejectionsFile: string;
}

/** The rejections of a corpus file sit next to it: `<out>.rejected.jsonl`. */
export const rejectionsFileOf = (out: string) => `${out.replace(/\.jsonl$/, '')}.rejected.jsonl`;

/** Reason kinds are the text before the first colon, so counts group "not JSON: …" lines together. */
const reasonKind = (reason: string) => reason.split(':')[0]!;

/**
 * Imports a report corpus into normalised JSONL (one {@link CorpusReport} per line), written atomically, with the
 * records it could not use in `<out>.rejected.jsonl`. A repeated report id is a rejection, not an overwrite.
 */
export async function importCorpus(path: string, format: CorpusFormat, map: ColumnMap, out: string, imagesCsv?: string): Promise<ImportSummary> {
  const images = imagesCsv ? await readImagesCsv(imagesCsv, { ...(map.id ? { id: map.id } : {}), ...(map.images ? { images: map.images } : {}), ...(map.views ? { views: map.views } : {}) }) : null;
  mkdirSync(dirname(resolve(out)), { recursive: true });
  const rejections: CorpusRejection[] = [];
  const seen = new Set<string>();
  let reports = 0;
  await writeFileAtomically(out, async function* () {
    for await (const result of readCorpusSource(path, format, map)) {
      if ('rejection' in result) {
        rejections.push(result.rejection);
        continue;
      }
      const report = images && result.report.images.length === 0 ? { ...result.report, images: images.get(result.report.id) ?? [] } : result.report;
      if (seen.has(report.id)) {
        rejections.push({ source: report.source, reason: `duplicate report id: "${report.id.slice(0, 80)}" was already imported` });
        continue;
      }
      seen.add(report.id);
      reports++;
      yield `${JSON.stringify(report)}\n`;
    }
  });
  const rejectionsFile = rejectionsFileOf(out);
  await writeFileAtomically(rejectionsFile, async function* () {
    for (const r of rejections) yield `${JSON.stringify(r)}\n`;
  });
  const byReason: Record<string, number> = {};
  for (const r of rejections) byReason[reasonKind(r.reason)] = (byReason[reasonKind(r.reason)] ?? 0) + 1;
  return { reports, rejected: rejections.length, byReason, out, rejectionsFile };
}
