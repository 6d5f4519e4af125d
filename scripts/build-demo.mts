/**
 * Builds examples/demo/ — a small ReXVQA-format dataset made from the real chest X-rays and clinical notes of
 * the covid-chestxray-dataset subset in ../shared/data (CC BY-NC-SA). Run once by a developer:
 *
 *   node --import tsx scripts/build-demo.ts [../shared/data/covid-chestxray-dataset]
 *
 * The output is committed; nothing at run time depends on ../shared. Every question below was written by
 * hand from its study's clinical note and is answerable from that note. The correct option is written first
 * here and the options are then shuffled with a fixed seed, so the key is balanced over A–D.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { seededRandom } from '../src/core/seeded-random.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const sourceDir = process.argv[2] ?? join(repoRoot, '..', 'shared', 'data', 'covid-chestxray-dataset');
const outDir = join(repoRoot, 'examples', 'demo');
/** ReXGradient images are 1/4 of the DICOM resolution; ours are capped at this long side to keep the repo small. */
const MAX_SIDE = 512;

type Task = 'Presence Assessment' | 'Negation Assessment' | 'Differential Diagnosis' | 'Location and Distribution Assessment' | 'Geometric Information Assessment';

interface DemoQuestion {
  task: Task;
  category: string;
  subcategory: string;
  question: string;
  /** The correct option first, then three distractors. */
  options: [string, string, string, string];
  explanation: string;
}

interface DemoStudy {
  patient: string;
  split: 'train' | 'valid' | 'test';
  questions: DemoQuestion[];
}

const P: Task = 'Presence Assessment';
const N: Task = 'Negation Assessment';
const D: Task = 'Differential Diagnosis';
const L: Task = 'Location and Distribution Assessment';
const G: Task = 'Geometric Information Assessment';

const STUDIES: DemoStudy[] = [
  { patient: '21', split: 'train', questions: [
    { task: L, category: 'Lung and Pleural Opacity', subcategory: 'Nodular Opacity', question: 'Where is the discrete rounded opacity located?',
      options: ['Right lower zone', 'Left upper zone', 'Left lower zone', 'Right upper zone'],
      explanation: 'The report describes a discrete rounded opacity in the right lower zone.' },
    { task: P, category: 'Lung and Pleural Opacity', subcategory: 'Airspace Opacity', question: 'Are there patchy opacities in both lungs?',
      options: ['Yes, multiple small bilateral areas of patchy confluent opacification', 'No, the lungs are clear', 'Only a unilateral pleural effusion', 'Only a pneumothorax'],
      explanation: 'Multiple small bilateral areas of patchy confluent opacification are reported.' },
  ] },
  { patient: '22', split: 'train', questions: [
    { task: L, category: 'Lung and Pleural Opacity', subcategory: 'Consolidation', question: 'Where is the air space consolidation located?',
      options: ['Along the left costal margin', 'Along the right costal margin', 'In the right upper lobe', 'Around the left hilum'],
      explanation: 'The note describes vertical air space consolidation along the left costal margin.' },
    { task: G, category: 'Lung and Pleural Opacity', subcategory: 'Consolidation', question: 'What is the orientation of the consolidation?',
      options: ['Vertical', 'Horizontal', 'Rounded', 'Oblique'],
      explanation: 'The consolidation is described as vertical, running along the left costal margin.' },
  ] },
  { patient: '25', split: 'train', questions: [
    { task: L, category: 'Tubes and Lines', subcategory: 'Central Venous Catheter', question: 'Where does the tip of the right jugular central venous line project?',
      options: ['At the SVC/right atrial junction', 'In the right ventricle', 'In the left subclavian vein', 'In the inferior vena cava'],
      explanation: 'The right jugular CVL tip is projected at the SVC/RA junction.' },
    { task: P, category: 'Tubes and Lines', subcategory: 'Nasogastric Tube', question: 'Which tube is present in addition to the endotracheal tube?',
      options: ['Nasogastric tube', 'Intercostal chest drain', 'Tracheostomy tube', 'Pacemaker lead'],
      explanation: 'The ETT tip is above the carina and an NGT is in situ.' },
    { task: G, category: 'Heart', subcategory: 'Cardiomegaly', question: 'How is the heart size described?',
      options: ['Mildly enlarged', 'Normal', 'Severely enlarged', 'Small'],
      explanation: 'The heart is described as mildly enlarged, with the caveat of a supine projection.' },
    { task: D, category: 'Other Pulmonary Diagnosis', subcategory: 'Acute Respiratory Distress Syndrome', question: 'Diffuse bilateral symmetric coalescent air space opacities in this intubated patient are most consistent with which diagnosis?',
      options: ['Acute respiratory distress syndrome', 'Tension pneumothorax', 'Solitary pulmonary nodule', 'Rib fracture'],
      explanation: 'Diffuse, bilateral, symmetric coalescent air space opacities in a ventilated patient are the picture of ARDS.' },
  ] },
  { patient: '26', split: 'train', questions: [
    { task: L, category: 'Lung and Pleural Opacity', subcategory: 'Airspace Opacity', question: 'What is the predominant distribution of the air-space opacities?',
      options: ['Perihilar and lower zones', 'Apical', 'Peripheral upper zones', 'Confined to the left upper lobe'],
      explanation: 'Multifocal bilateral air-space opacities are predominantly perihilar and in the lower zones.' },
    { task: D, category: 'Other Pulmonary Diagnosis', subcategory: 'Acute Respiratory Distress Syndrome', question: 'In a ventilated patient with septic shock and multifocal bilateral air-space opacities, what is the most likely diagnosis?',
      options: ['Acute respiratory distress syndrome', 'Lobar collapse', 'Tension pneumothorax', 'Primary lung neoplasm'],
      explanation: 'Septic shock with progressive respiratory failure and bilateral air-space opacities indicates ARDS.' },
  ] },
  { patient: '28', split: 'test', questions: [
    { task: N, category: 'Pleural Effusion', subcategory: 'Effusion', question: 'Is there a pleural effusion?',
      options: ['No pleural effusion', 'Yes, a large right effusion', 'Yes, small bilateral effusions', 'Yes, a loculated left effusion'],
      explanation: 'The report explicitly states that there is no pleural effusion.' },
    { task: G, category: 'Lung and Pleural Lucency', subcategory: 'Cyst', question: 'What is the largest size of the cysts (pneumatocoeles)?',
      options: ['About 1 cm', 'About 3 cm', 'About 5 cm', 'About 8 cm'],
      explanation: 'A few discrete cysts (pneumatocoeles) measuring up to 1 cm are seen.' },
    { task: L, category: 'Lung and Pleural Opacity', subcategory: 'Ground-Glass Opacity', question: 'Where is the hazy opacification predominantly located?',
      options: ['Perihilar mid and upper zones', 'Lung bases only', 'Left costophrenic angle', 'Right apex only'],
      explanation: 'There is hazy, predominantly perihilar mid and upper zone opacification.' },
  ] },
  { patient: '29', split: 'train', questions: [
    { task: L, category: 'Lung and Pleural Opacity', subcategory: 'Consolidation', question: 'Which lobes contain the large consolidations?',
      options: ['Right upper and right lower lobes', 'Left upper and left lower lobes', 'Right middle lobe only', 'Lingula only'],
      explanation: 'Large consolidations are reported in the right upper lobe and the right lower lobe.' },
    { task: P, category: 'Lung Volume', subcategory: 'Fissure Displacement', question: 'Is there bulging of the horizontal fissure?',
      options: ['Yes, the horizontal fissure bulges', 'No, the fissures are normal', 'The horizontal fissure cannot be assessed', 'Only the left oblique fissure is displaced'],
      explanation: 'The right upper lobe consolidation is accompanied by a bulging horizontal fissure.' },
  ] },
  { patient: '30', split: 'train', questions: [
    { task: D, category: 'Infectious Disease', subcategory: 'Pneumonia', question: 'Extensive consolidation with air bronchograms and loss of the right hemidiaphragm outline is most consistent with what?',
      options: ['Right lower lobe pneumonia', 'Right pneumothorax', 'Right middle lobe mass', 'Pericardial effusion'],
      explanation: 'The findings are in keeping with right lower lobe pneumonia.' },
    { task: P, category: 'Lung and Pleural Opacity', subcategory: 'Air Bronchogram', question: 'Are air bronchograms present?',
      options: ['Yes, within the consolidation', 'No', 'Only in the left lung', 'Cannot be assessed'],
      explanation: 'Extensive consolidation with air bronchograms is described.' },
  ] },
  { patient: '89', split: 'train', questions: [
    { task: P, category: 'Pleural Effusion', subcategory: 'Effusion', question: 'Is there a pleural effusion?',
      options: ['A small right-sided effusion', 'No effusion', 'A large left-sided effusion', 'Large bilateral effusions'],
      explanation: 'The report notes a small right sided pleural effusion.' },
    { task: L, category: 'Lung and Pleural Opacity', subcategory: 'Consolidation', question: 'In which lobe is the consolidation?',
      options: ['Right upper lobe', 'Right lower lobe', 'Left upper lobe', 'Left lower lobe'],
      explanation: 'There is peripheral right upper lobe consolidation, confined by the horizontal fissure.' },
    { task: G, category: 'Lung Volume', subcategory: 'Fissure Displacement', question: 'In which direction is the horizontal fissure displaced?',
      options: ['Superiorly', 'Inferiorly', 'It is not displaced', 'Medially'],
      explanation: 'The horizontal fissure is displaced superiorly, outlining the fissure.' },
    { task: D, category: 'Infectious Disease', subcategory: 'Bacterial Pneumonia', question: 'Which organism most typically causes a lobar pneumonia like this one?',
      options: ['Streptococcus pneumoniae', 'Pneumocystis jirovecii', 'Aspergillus fumigatus', 'Cytomegalovirus'],
      explanation: 'Lobar pneumonia is usually caused by typical organisms such as Streptococcus pneumoniae.' },
  ] },
  { patient: '92', split: 'train', questions: [
    { task: P, category: 'Pulmonary Neoplasm', subcategory: 'Mass', question: 'Which finding is seen in the right upper lobe?',
      options: ['A large cavitating mass', 'A small calcified granuloma', 'A pleural plaque', 'A pneumothorax'],
      explanation: 'There is a large cavitating right upper lobe mass.' },
    { task: N, category: 'Negation', subcategory: 'Normal Lung', question: 'What is the state of the left lung?',
      options: ['Clear', 'Consolidated', 'Collapsed', 'Contains a cavity'],
      explanation: 'The report states that the left lung is clear.' },
    { task: N, category: 'Mediastinum', subcategory: 'Cardiomediastinal Contour', question: 'Is the cardiomediastinal contour abnormal?',
      options: ['No, it is normal', 'Yes, the mediastinum is widened', 'Yes, the heart is enlarged', 'Yes, there is hilar adenopathy'],
      explanation: 'A normal cardiomediastinal contour is reported.' },
  ] },
  { patient: '93', split: 'train', questions: [
    { task: L, category: 'Lung and Pleural Opacity', subcategory: 'Ground-Glass Opacity', question: 'Where are the opacities mostly distributed?',
      options: ['Peripheral mid to lower zones', 'Central upper zones', 'Left apex only', 'Right hilum only'],
      explanation: 'Patchy peripheral opacities are mostly in the mid to lower zones of both lungs.' },
    { task: P, category: 'Lung and Pleural Opacity', subcategory: 'Ground-Glass Opacity', question: 'Which pattern of opacity is present?',
      options: ['Ground-glass and consolidative opacities', 'Miliary nodules', 'Kerley B lines only', 'None; the lungs are clear'],
      explanation: 'Bilateral multi-lobar peripheral ground-glass and consolidative opacities are seen.' },
    { task: D, category: 'Infectious Disease', subcategory: 'Viral Pneumonia', question: 'Bilateral multilobar peripheral ground-glass and consolidative opacities in a patient with fever and cough most suggest what?',
      options: ['Viral (COVID-19) pneumonia', 'Cardiogenic pulmonary edema', 'Bronchogenic carcinoma', 'Sarcoidosis'],
      explanation: 'Peripheral bilateral ground-glass and consolidative opacities with fever and cough suggest COVID-19 pneumonia.' },
  ] },
  { patient: '100', split: 'train', questions: [
    { task: L, category: 'Lung and Pleural Opacity', subcategory: 'Consolidation', question: 'Where is the extensive consolidation?',
      options: ['Right upper lobe', 'Left lower lobe', 'Right middle lobe', 'Left upper lobe'],
      explanation: 'Extensive right upper lobe consolidation is reported.' },
    { task: G, category: 'Lung Volume', subcategory: 'Fissure Displacement', question: 'How does the horizontal fissure appear?',
      options: ['Bulging', 'Elevated by volume loss', 'Not visible', 'Normal in position'],
      explanation: 'The right upper lobe consolidation causes bulging of the horizontal fissure.' },
  ] },
  { patient: '107', split: 'train', questions: [
    { task: N, category: 'Lung and Pleural Lucency', subcategory: 'Pneumothorax', question: 'Is a pneumothorax evident?',
      options: ['No pneumothorax is evident', 'Yes, on the right', 'Yes, on the left', 'Yes, on both sides'],
      explanation: 'The report states that no pneumothorax is evident.' },
    { task: D, category: 'Infectious Disease', subcategory: 'Pneumocystis Pneumonia', question: 'In a patient with AIDS, what does bilateral perihilar airspace opacity most suggest?',
      options: ['Pneumocystis pneumonia', 'Lobar pneumococcal pneumonia', 'Pulmonary embolism', 'Bronchogenic carcinoma'],
      explanation: 'In the clinical context of AIDS, bilateral perihilar opacity is highly suggestive of pneumocystis pneumonia.' },
  ] },
  { patient: '110', split: 'train', questions: [
    { task: P, category: 'Tubes and Lines', subcategory: 'Central Venous Catheter', question: 'Which line is present?',
      options: ['A right internal jugular central venous line', 'A left-sided PICC line', 'A pacemaker', 'No line'],
      explanation: 'A right internal jugular central venous line is described.' },
    { task: L, category: 'Lung and Pleural Opacity', subcategory: 'Consolidation', question: 'Where is the dense consolidation?',
      options: ['Left lower lobe', 'Right upper lobe', 'Left upper lobe', 'Right apex'],
      explanation: 'Dense left lower lobe consolidation is reported, with patchy right middle and lower lobe consolidation.' },
    { task: P, category: 'Diaphragm', subcategory: 'Silhouette Sign', question: 'Which silhouette is obscured by the consolidation?',
      options: ['The left hemidiaphragm', 'The right heart border', 'The aortic knob', 'The left heart border'],
      explanation: 'The left lower lobe consolidation obscures the left hemidiaphragm silhouette.' },
  ] },
  { patient: '111', split: 'valid', questions: [
    { task: P, category: 'Pleural Effusion', subcategory: 'Effusion', question: 'Is there a pleural effusion?',
      options: ['Yes, a basal right effusion', 'No', 'Yes, a large left effusion', 'Yes, large bilateral effusions'],
      explanation: 'There is also a basal right pleural effusion.' },
    { task: N, category: 'Heart', subcategory: 'Cardiac Size', question: 'How is the cardiac profile described?',
      options: ['Normal', 'Enlarged', 'Globular, suggesting pericardial effusion', 'Displaced to the right'],
      explanation: 'The report describes a normal cardiac profile.' },
    { task: P, category: 'Lung and Pleural Opacity', subcategory: 'Airspace Opacity', question: 'What kind of airspace opacities are present?',
      options: ['Multiple bilateral airspace opacities', 'A single right apical nodule', 'None', 'Complete whiteout of one lung'],
      explanation: 'The chest radiograph shows multiple bilateral airspace opacities.' },
    { task: D, category: 'Infectious Disease', subcategory: 'Bacterial Pneumonia', question: 'A positive urinary antigen test gave the diagnosis. What is it?',
      options: ['Legionella pneumonia', 'Pneumocystis pneumonia', 'Pulmonary tuberculosis', 'Cardiogenic pulmonary edema'],
      explanation: 'The positive urinary Legionella antigen test permitted a rapid diagnosis of Legionella pneumonia.' },
  ] },
  { patient: '142', split: 'valid', questions: [
    { task: P, category: 'Mediastinum', subcategory: 'Pneumomediastinum', question: 'Which of these findings is present?',
      options: ['Pneumomediastinum', 'Pneumoperitoneum', 'Rib fracture', 'Hiatus hernia'],
      explanation: 'Pneumomediastinum is reported along with bilateral small pneumothorax.' },
    { task: L, category: 'Lung and Pleural Lucency', subcategory: 'Pneumothorax', question: 'On which side are the pneumothoraces?',
      options: ['Both sides', 'Right only', 'Left only', 'There is no pneumothorax'],
      explanation: 'There is a bilateral small pneumothorax.' },
    { task: P, category: 'Tubes and Lines', subcategory: 'Chest Tube', question: 'Which device is present on the right side?',
      options: ['An intercostal drain', 'A pacemaker', 'A breast implant', 'A port catheter'],
      explanation: 'A right-sided intercostal drain is in place.' },
    { task: G, category: 'Lung and Pleural Lucency', subcategory: 'Pneumothorax', question: 'How large are the pneumothoraces?',
      options: ['Small', 'Large, under tension', 'Complete lung collapse', 'Moderate on the left only'],
      explanation: 'The pneumothoraces are described as small and bilateral.' },
    { task: D, category: 'Infectious Disease', subcategory: 'Viral Pneumonia', question: 'The diffuse air space opacity in both lungs is described as typical for which disease?',
      options: ['COVID-19', 'Lobar pneumococcal pneumonia', 'Lung cancer', 'Pulmonary embolism'],
      explanation: 'The diffuse air space opacity in both lungs is described as typical for COVID.' },
  ] },
  { patient: '163', split: 'valid', questions: [
    { task: L, category: 'Lung and Pleural Opacity', subcategory: 'Ground-Glass Opacity', question: 'What is the distribution of the subtle ground-glass pattern?',
      options: ['Peripheral, in both lungs', 'Central, right lung only', 'Left apex only', 'Left base only'],
      explanation: 'In retrospect, a subtle ground-glass pattern can be seen in both lungs with peripheral distribution.' },
    { task: N, category: 'Negation', subcategory: 'No Finding', question: 'What did the initial report of this study say?',
      options: ['No significant findings', 'A large pleural effusion', 'A lobar pneumonia', 'A pneumothorax'],
      explanation: 'No significant findings were reported; the ground-glass pattern was only seen in retrospect.' },
  ] },
  { patient: '211', split: 'valid', questions: [
    { task: N, category: 'Negation', subcategory: 'Normal', question: 'Which abnormality is present on this chest radiograph?',
      options: ['None; the radiograph is normal', 'Pleural effusion', 'Pneumothorax', 'Lobar consolidation'],
      explanation: 'The chest radiograph is reported as normal.' },
  ] },
  { patient: '169', split: 'test', questions: [
    { task: L, category: 'Lung and Pleural Opacity', subcategory: 'Airspace Opacity', question: 'Where does the subtle air space opacification predominate?',
      options: ['The right upper and both mid zones', 'Both lung bases', 'The left apex', 'The right lower lobe only'],
      explanation: 'Subtle bilateral peripheral opacification is predominantly in the right upper and both mid zones.' },
    { task: N, category: 'Pleural Effusion', subcategory: 'Effusion', question: 'Are pleural effusions present?',
      options: ['No pleural effusions', 'A small right effusion', 'Large bilateral effusions', 'A loculated left effusion'],
      explanation: 'The report states that there are no pleural effusions.' },
    { task: P, category: 'Abdomen', subcategory: 'Hiatal Hernia', question: 'Which additional finding is present?',
      options: ['Hiatus hernia', 'Pneumoperitoneum', 'Cardiomegaly', 'Rib fracture'],
      explanation: 'A hiatus hernia is reported in addition to the lung findings.' },
  ] },
  { patient: '214', split: 'test', questions: [
    { task: N, category: 'Negation', subcategory: 'Normal', question: 'What does this chest radiograph show?',
      options: ['A normal chest', 'A right pneumothorax', 'Left lower lobe consolidation', 'Cardiomegaly'],
      explanation: 'The chest radiograph is reported as normal.' },
  ] },
  { patient: '278', split: 'test', questions: [
    { task: L, category: 'Lung and Pleural Opacity', subcategory: 'Airspace Opacity', question: 'Where is the opacity with indistinct borders?',
      options: ['In the right hilar region', 'At the left base', 'At the left apex', 'Behind the heart'],
      explanation: 'The frontal and lateral projections show a right hilar opacity with indistinct borders.' },
    { task: D, category: 'Infectious Disease', subcategory: 'Pneumonia', question: 'With high fever and right-sided chest pain, what was the right hilar opacity diagnosed as?',
      options: ['Right upper lobe pneumonia', 'Lung carcinoma', 'Aortic aneurysm', 'Pulmonary infarct'],
      explanation: 'The right hilar opacity was diagnosed as pneumonia of the right upper lobe.' },
  ] },
  { patient: '329', split: 'test', questions: [
    { task: L, category: 'Lung and Pleural Opacity', subcategory: 'Ground-Glass Opacity', question: 'Where are the peripheral ground-glass opacities?',
      options: ['In the mid and lower thirds of the thorax', 'In the upper third only', 'Centrally, around the hila', 'At the left apex only'],
      explanation: 'Peripheral ground-glass opacities are seen in the mid- and lower-third of the thorax.' },
  ] },
  { patient: '102', split: 'test', questions: [
    { task: P, category: 'Lung and Pleural Opacity', subcategory: 'Interstitial Opacity', question: 'Which pattern is seen in the lungs?',
      options: ['Reticular interstitial markings in all lung fields', 'Lobar consolidation', 'A pleural effusion', 'Normal lungs'],
      explanation: 'The radiograph shows reticular interstitial markings in all lung fields.' },
    { task: D, category: 'Infectious Disease', subcategory: 'Pneumocystis Pneumonia', question: 'What caused the reticular interstitial markings in this patient?',
      options: ['Pneumocystis jirovecii pneumonia', 'Cardiogenic pulmonary edema', 'Asbestosis', 'Sarcoidosis'],
      explanation: 'This is a case of pneumocystis jiroveci pneumonia with reticular interstitial markings.' },
  ] },
  { patient: '5', split: 'test', questions: [
    { task: P, category: 'Tubes and Lines', subcategory: 'Orogastric Tube', question: 'Which tube is in place besides the endotracheal tube?',
      options: ['An orogastric tube', 'A chest drain', 'A tracheostomy tube', 'None'],
      explanation: 'The patient is intubated with an OG (orogastric) tube in place.' },
    { task: D, category: 'Other Pulmonary Diagnosis', subcategory: 'Acute Respiratory Distress Syndrome', question: 'What is the diagnosis in this intubated patient?',
      options: ['Severe acute respiratory distress syndrome', 'A normal chest', 'A simple pneumothorax', 'Lobar collapse'],
      explanation: 'The image is labelled as severe ARDS in an intubated patient.' },
  ] },
];

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
      const order = [0, 1, 2, 3];
      for (let i = order.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [order[i], order[j]] = [order[j]!, order[i]!];
      }
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
