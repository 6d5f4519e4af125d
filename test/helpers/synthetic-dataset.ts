import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { TASK_NAMES } from '../../src/core/question.js';
import { seededRandom } from '../../src/core/seeded-random.js';

/**
 * Writes a synthetic official-format `<split>_vqa_data.json` shaped like the real one: one object keyed by
 * question, about four questions per study, task shares as in the paper (Table 1), two views per study, report
 * text, and a sprinkle of what real files contain (bare NaN, "None", stringified lists, `A)` prefixes) so the
 * repair paths run at scale too. Deterministic for a given seed. For tests and benchmarks; never committed.
 */
export interface SyntheticOptions {
  records: number;
  /** Approximate size of each record in bytes (report text is padded to reach it). */
  recordBytes?: number;
  seed?: number;
  /** Prefix of study ids, so two generated splits do not share studies. */
  studyPrefix?: string;
}

/** What was written, so a test can check counts exactly. */
export interface SyntheticSummary {
  records: number;
  studies: number;
  byTask: Record<string, number>;
  bareNaN: number;
  bytes: number;
}

// Paper Table 1 shares (train): negation 36.5%, presence 36.1%, differential 20.9%, location 6.1%, geometric 0.4%.
const TASK_WEIGHTS: [string, number][] = [
  [TASK_NAMES[1], 0.365], [TASK_NAMES[0], 0.361], [TASK_NAMES[2], 0.209], [TASK_NAMES[3], 0.061], [TASK_NAMES[4], 0.004],
];
const CATEGORIES = ['Pleural Effusion', 'Heart', 'Lung and Pleural Opacity', 'Tubes and Lines', 'Spine', 'Aorta', 'Infectious Disease', 'Negation', 'Mediastinum', 'Rib'];
const SENTENCES = [
  'The cardiomediastinal silhouette is within normal limits.', 'There is no focal consolidation, pleural effusion or pneumothorax.',
  'Mild degenerative changes of the thoracic spine.', 'Right internal jugular catheter terminates in the mid SVC.',
  'Patchy opacity at the left lung base may represent atelectasis or early pneumonia.', 'Aortic knob calcification is noted.',
  'Lungs are hyperinflated, consistent with emphysema.', 'Stable small right pleural effusion with adjacent atelectasis.',
];

function pickTask(r: number): string {
  let acc = 0;
  for (const [task, weight] of TASK_WEIGHTS) if (r < (acc += weight)) return task;
  return TASK_WEIGHTS[0]![0];
}

/** Streams a synthetic question file to `file`. */
export async function writeSyntheticRexvqa(file: string, options: SyntheticOptions): Promise<SyntheticSummary> {
  const rand = seededRandom(options.seed ?? 1);
  const recordBytes = options.recordBytes ?? 2000;
  const prefix = options.studyPrefix ?? 's';
  const out = createWriteStream(file);
  const summary: SyntheticSummary = { records: 0, studies: 0, byTask: {}, bareNaN: 0, bytes: 0 };
  let buffer = '{\n';
  let study = -1;
  for (let i = 0; i < options.records; i++) {
    if (i % 4 === 0) {
      study++;
      summary.studies++;
    }
    const task = pickTask(rand());
    summary.byTask[task] = (summary.byTask[task] ?? 0) + 1;
    const studyUid = `1.2.840.${prefix}.${study}`;
    const base = `../deid_png/GRDN${study}/ACC${study}/studies/${studyUid}/series/${studyUid}.1/instances/${studyUid}.1.`;
    const quirk = rand();
    const imagePaths = [`${base}1.png`, `${base}2.png`];
    let findings = '';
    while (findings.length < recordBytes - 1100) findings += SENTENCES[Math.floor(rand() * SENTENCES.length)] + ' ';
    const record = {
      question: `Question ${i}: is there evidence of ${CATEGORIES[i % CATEGORIES.length]!.toLowerCase()} abnormality on this study?`,
      options: quirk < 0.02 ? ['A) Yes, mild', 'B) Yes, severe', 'C) No', 'D) Indeterminate'] : ['A. Yes, mild', 'B. Yes, severe', 'C. No', 'D. Indeterminate'],
      correct_answer: 'ABCD'[Math.floor(rand() * 4)],
      correct_answer_explanation: 'The report describes the finding explicitly in the findings section, which supports this option.',
      task_name: task,
      category: CATEGORIES[i % CATEGORIES.length],
      subcategory: `Sub ${i % 7}`,
      study_id: `pGRDN${study}_aACC${study}_s${studyUid}`,
      StudyInstanceUid: studyUid,
      ImagePath: quirk > 0.95 ? `['${imagePaths.join("', '")}']` : imagePaths,
      ImageViewPosition: ['PA', 'LATERAL'],
      ImageModality: 'DX',
      PatientID: `GRDN${study}`,
      PatientAge: `0${40 + (study % 50)}Y`,
      PatientSex: study % 2 ? 'M' : 'F',
      StudyDate: '20200101',
      Indication: quirk > 0.9 && quirk <= 0.95 ? 'None' : 'Shortness of breath. Evaluate for pneumonia.',
      Findings: findings.trim(),
      Impression: 'No acute cardiopulmonary process.',
      class: 'x',
      validation_code: 'v',
    };
    let text = JSON.stringify(record);
    if (quirk >= 0.02 && quirk < 0.03) {
      text = text.replace('"Impression":"No acute cardiopulmonary process."', '"Impression":NaN');
      summary.bareNaN++;
    }
    buffer += `${i === 0 ? '' : ',\n'}  "q${i}": ${text}`;
    summary.records++;
    if (buffer.length > 1 << 20) {
      summary.bytes += Buffer.byteLength(buffer);
      if (!out.write(buffer)) await once(out, 'drain');
      buffer = '';
    }
  }
  buffer += '\n}\n';
  summary.bytes += Buffer.byteLength(buffer);
  out.end(buffer);
  await once(out, 'finish');
  return summary;
}
