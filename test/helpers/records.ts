import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A canonical official ReXVQA record (every field present, nothing to repair); override fields per test. */
export function officialRecord(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    question: 'Is there a right pleural effusion?',
    options: ['A. Yes, small', 'B. Yes, large', 'C. No effusion', 'D. Cannot be determined'],
    correct_answer: 'C',
    correct_answer_explanation: 'The findings state that there is no pleural effusion.',
    task_name: 'Negation Assessment',
    category: 'Pleural Effusion',
    subcategory: 'Effusion',
    study_id: 'pP1_aA1_sS1',
    StudyInstanceUid: 'S1',
    ImagePath: ['../deid_png/P1/A1/studies/S1/series/R1/instances/I1.png', '../deid_png/P1/A1/studies/S1/series/R1/instances/I2.png'],
    ImageViewPosition: ['PA', 'LATERAL'],
    ImageModality: 'CR',
    PatientID: 'P1',
    PatientAge: '063Y',
    PatientSex: 'M',
    StudyDate: '20200101',
    Indication: 'Cough.',
    Findings: 'No pleural effusion. Heart size normal.',
    Impression: 'No acute disease.',
    class: 'negation',
    validation_code: 'ok',
    ...overrides,
  };
}

const made: string[] = [];
let cleanupRegistered = false;

/** A fresh temporary folder, removed (with everything in it) when the test process exits. */
export function tempDir(prefix = 'cxrbench-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  if (!cleanupRegistered) {
    cleanupRegistered = true;
    process.on('exit', () => {
      for (const d of made) rmSync(d, { recursive: true, force: true });
    });
  }
  return dir;
}

/**
 * Writes an official-layout dataset: `<root>/metadata/<split>_vqa_data.json` for each split. A split given as a
 * string is written verbatim (for malformed-file tests). Returns the root folder.
 */
export function writeOfficialDataset(splits: Record<string, Record<string, unknown> | string>, root = tempDir()): string {
  mkdirSync(join(root, 'metadata'), { recursive: true });
  for (const [split, content] of Object.entries(splits)) {
    const text = typeof content === 'string' ? content : JSON.stringify(content, null, 2);
    writeFileSync(join(root, 'metadata', `${split}_vqa_data.json`), text);
  }
  return root;
}
