import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { convertImages } from '../../images/convert-images.js';
import { manifestEntrySchema, type ManifestEntry } from '../../images/manifest.js';

/** The bundled DICOM study: one NIH ChestX-ray14 film as DICOM (examples/nih-dicom-sample/LICENSE.md). */
export const DEMO_DICOM = fileURLToPath(new URL('../../../examples/nih-dicom-sample', import.meta.url));

function describeVoi(voi: ManifestEntry['transform']['voi']): string {
  if (voi.kind === 'range') return `no window, the full modality range ${voi.low}…${voi.high}`;
  if (voi.kind === 'lut') return `the file's VOI LUT ${voi.index}${voi.explanation ? ` (${voi.explanation})` : ''}, ${voi.entries} entries of ${voi.bits} bits from ${voi.firstMapped}`;
  const from = voi.source === 'file' ? "the file's first window" : voi.source === 'min-max' ? 'a window over the pixel min/max (the file has none)' : 'the window given';
  return `${from}, centre ${voi.center} width ${voi.width} (${voi.function})`;
}

function describeModality(modality: ManifestEntry['transform']['modality']): string {
  const lut = modality.lut;
  return lut ? `Modality LUT${lut.explanation ? ` (${lut.explanation})` : ''}, ${lut.entries} entries of ${lut.bits} bits from ${lut.firstMapped}` : `rescale ×${modality.slope} + ${modality.intercept}`;
}

/**
 * The demo's study that starts as DICOM: the bundled film converted the way ReXGradient's images were made (¼
 * resolution, 8-bit, anti-aliased), into the ReXGradient layout with identifiers replaced by keyed hashes and
 * the study metadata the dataset tools read — through the same converter as `cxrbench images convert`.
 */
export async function demoFromDicom(out: string): Promise<void> {
  const metadata = join(out, 'metadata.json');
  const failures: string[] = [];
  const summary = await convertImages([DEMO_DICOM], { out, scale: 0.25, bits: 8, window: { kind: 'auto' }, layout: 'rexgradient', deid: true, threads: 1, metadata }, (f) => failures.push(`${f.file}: ${f.reason}`));
  if (failures.length > 0) throw new Error(`the bundled DICOM study did not convert: ${failures.join('; ')}`);
  const entries = readFileSync(summary.manifest, 'utf8').trim().split('\n').map((line) => manifestEntrySchema.parse(JSON.parse(line)));
  process.stdout.write('\n== From DICOM (the bundled NIH film, examples/nih-dicom-sample) ==\n');
  for (const e of entries) {
    process.stdout.write(
      `${e.before.columns}×${e.before.rows} → ${e.after.columns}×${e.after.rows}, ${e.transform.bits}-bit PNG (${e.transform.kernel ?? 'no'} resize); VOI: ${describeVoi(e.transform.voi)}; ` +
        `${describeModality(e.transform.modality)}; ${e.transform.inverted ? 'inverted (MONOCHROME1 or INVERSE)' : 'not inverted (MONOCHROME2)'}\n` +
        `  ${join(out, e.output)}\n  view ${e.viewPosition ?? 'unknown'}, sha256 ${e.sha256.slice(0, 16)}…; identifiers in the path (patient id, accession when present) are keyed hashes (key: ${summary.deidKeyFile})\n`,
    );
  }
  process.stdout.write(`Study metadata (ReXGradient style, ImagePath and ImageViewPosition): ${metadata}; manifest: ${summary.manifest}\n`);
  process.stdout.write('Convert your own: ./run cxrbench images convert <DICOM folder> --out <dir> --scale 0.25 --deid --metadata <dir>/metadata.json\n');
}
