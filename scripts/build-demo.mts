/**
 * Builds examples/demo/ — a small ReXVQA-format dataset made from the real chest X-rays and clinical notes of
 * the covid-chestxray-dataset subset in ../shared/data (CC BY-NC-SA). Run once by a developer:
 *
 *   node --import tsx scripts/build-demo.ts [../shared/data/covid-chestxray-dataset]
 *
 * The output is committed; nothing at run time depends on ../shared. The questions (scripts/demo-questions.mts)
 * were written by hand from each study's clinical note and are answerable from that note. The correct option is
 * written first there; here each split's key is dealt from shuffled blocks of A–D (so every letter is the answer
 * equally often, ±1) and the distractors fill the other places in a seeded random order.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { seededRandom } from '../src/core/seeded-random.js';
import { STUDIES } from './demo-questions.mjs';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const sourceDir = process.argv[2] ?? join(repoRoot, '..', 'shared', 'data', 'covid-chestxray-dataset');
const outDir = join(repoRoot, 'examples', 'demo');
/** ReXGradient images are 1/4 of the DICOM resolution; ours are capped at this long side to keep the repo small. */
const MAX_SIDE = 512;

interface ManifestRow {
  filename: string;
  sha256: string;
  patientid: string;
  offset: string;
  sex: string;
  age: string;
  view: string;
  finding: string;
  license: string;
  url: string;
  doi: string;
  credit: string;
  clinical_notes: string;
}

const VIEW_NAMES: Record<string, string> = { PA: 'PA', AP: 'AP', L: 'LATERAL' };
const shortId = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 12);

async function main(): Promise<void> {
  const manifest = readFileSync(join(sourceDir, 'manifest.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as ManifestRow);
  rmSync(join(outDir, 'deid_png'), { recursive: true, force: true });
  rmSync(join(outDir, 'metadata'), { recursive: true, force: true });
  mkdirSync(join(outDir, 'metadata'), { recursive: true });
  const random = seededRandom(20250604);
  const splits: Record<string, Record<string, unknown>> = { train: {}, valid: {}, test: {} };
  const credits: string[] = [];
  let questionNumber = 0;
  const shuffled = <T,>(items: T[]): T[] => {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  };
  // Each split deals the answer's place from shuffled blocks of [A, B, C, D]: balanced without a pattern.
  const blocks: Record<string, number[]> = { train: [], valid: [], test: [] };
  const dealAnswerPlace = (split: string): number => {
    if (blocks[split]!.length === 0) blocks[split] = shuffled([0, 1, 2, 3]);
    return blocks[split]!.shift()!;
  };

  for (const study of STUDIES) {
    const rows = manifest.filter((r) => r.patientid === study.patient);
    if (rows.length === 0) throw new Error(`no images for patient ${study.patient}`);
    rows.sort((a, b) => (a.view === 'L' ? 1 : 0) - (b.view === 'L' ? 1 : 0)); // frontal first
    const first = rows[0]!;
    const patientId = `CXRDEMO${study.patient.padStart(4, '0')}`;
    const accession = `DEMOACC${study.patient.padStart(4, '0')}`;
    const studyUid = `demo.study.${study.patient}`;
    const seriesUid = `demo.series.${study.patient}`;
    const imagePaths: string[] = [];
    for (const row of rows) {
      const sopUid = `demo.image.${shortId(row.sha256)}`;
      const relative = `deid_png/${patientId}/${accession}/studies/${studyUid}/series/${seriesUid}/instances/${sopUid}.png`;
      mkdirSync(dirname(join(outDir, relative)), { recursive: true });
      await sharp(join(sourceDir, 'images', row.filename))
        .resize({ width: MAX_SIDE, height: MAX_SIDE, fit: 'inside', withoutEnlargement: true })
        .grayscale()
        .png({ compressionLevel: 9 })
        .toFile(join(outDir, relative));
      imagePaths.push(`../${relative}`);
      credits.push(`| \`${relative}\` | \`${row.filename}\` (sha256 \`${row.sha256.slice(0, 16)}…\`) | ${row.license} | ${row.url || row.doi} | ${row.credit || '—'} |`);
    }
    const studyId = `p${patientId}_a${accession}_s${studyUid}`;
    for (const q of study.questions) {
      questionNumber++;
      // order[i] = which written option goes to letter i; the written option 0 is the answer.
      const answerAt = dealAnswerPlace(study.split);
      const distractors = shuffled([1, 2, 3]);
      const order = [0, 1, 2, 3].map((place) => (place === answerAt ? 0 : distractors.shift()!));
      const letters = ['A', 'B', 'C', 'D'];
      const key = `demo_${study.split}_${String(questionNumber).padStart(3, '0')}`;
      splits[study.split]![key] = {
        question: q.question,
        options: order.map((o, i) => `${letters[i]}. ${q.options[o]}`),
        correct_answer: letters[order.indexOf(0)],
        correct_answer_explanation: q.explanation,
        task_name: q.task,
        category: q.category,
        subcategory: q.subcategory,
        study_id: studyId,
        StudyInstanceUid: studyUid,
        ImagePath: imagePaths,
        ImageViewPosition: rows.map((r) => VIEW_NAMES[r.view] ?? r.view),
        ImageModality: 'CR',
        PatientID: patientId,
        PatientAge: first.age || null,
        PatientSex: first.sex || null,
        StudyDate: null,
        Indication: null,
        Findings: first.clinical_notes.trim(),
        Impression: first.finding,
        class: null,
        validation_code: null,
      };
    }
  }
  for (const [split, records] of Object.entries(splits)) {
    writeFileSync(join(outDir, 'metadata', `${split}_vqa_data.json`), JSON.stringify(records, null, 2) + '\n');
  }
  writeFileSync(
    join(outDir, 'CREDITS.md'),
    `# Image credits (attribution required)\n\nEach demo image is a grayscale PNG downscaled (long side ≤ ${MAX_SIDE} px) from the upstream file named here.\n\n` +
      `| demo image | upstream file | licence | source | credit |\n|---|---|---|---|---|\n${credits.join('\n')}\n`,
  );
  process.stdout.write(`wrote ${questionNumber} questions over ${STUDIES.length} studies to ${outDir}\n`);
}

await main();
