import { parse as parseCsv } from 'csv-parse';
import { CxrError } from '../core/errors.js';
import { openForReading } from './read-sources.js';

/**
 * Reads a CSV that lists a corpus's images, one row per image (e.g. the IU X-ray `indiana_projections.csv`:
 * uid, filename, projection): report id → [{path, view}], in file order. Columns are found like the report
 * columns (id/uid, images/filename/path, views/projection), or named with `--map`.
 */
export async function readImagesCsv(file: string, map: { id?: string; images?: string; views?: string } = {}): Promise<Map<string, { path: string; view: string | null }[]>> {
  const byReport = new Map<string, { path: string; view: string | null }[]>();
  const stream = await openForReading(file, 'the image list');
  let columns: { id?: string; images?: string; views?: string } | null = null;
  const rows = stream.pipe(parseCsv({ columns: true, bom: true, skip_empty_lines: true, relax_column_count: true })) as AsyncIterable<Record<string, string>>;
  try {
    for await (const row of rows) addRow(row);
  } catch (error) {
    if (error instanceof CxrError) throw error;
    throw new CxrError('unreadable-file', `${file}: not a readable CSV image list: ${(error as Error).message}`);
  }
  return byReport;
  function addRow(row: Record<string, string>): void {
    if (columns === null) {
      const header = Object.keys(row);
      const lower = new Map(header.map((h) => [h.toLowerCase(), h]));
      const pick = (given: string | undefined, names: string[]) => (given && header.includes(given) ? given : names.map((n) => lower.get(n)).find((c) => c !== undefined));
      columns = { id: pick(map.id, ['id', 'uid', 'study_id', 'report_id']), images: pick(map.images, ['filename', 'path', 'image', 'image_path', 'imagepath']), views: pick(map.views, ['projection', 'view', 'view_position', 'viewposition']) };
      if (!columns.id || !columns.images) throw new CxrError('bad-option', `${file}: the image list needs a report id column (id/uid) and an image column (filename/path); its columns are ${header.join(', ')}`);
    }
    const id = row[columns.id!]?.trim();
    const path = row[columns.images!]?.trim();
    if (!id || !path) return;
    const list = byReport.get(id) ?? [];
    list.push({ path, view: (columns.views && row[columns.views]?.trim()) || null });
    byReport.set(id, list);
  }
}
