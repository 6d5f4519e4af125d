/**
 * The finding lexicon of the offline (template-based) generator: each chest X-ray finding with the phrases a
 * report uses for it, the ReXVQA category and subcategory it belongs to, and its group — findings of one group
 * are plausible distractors for each other ("which of these is present?" offers other pleural findings, not a
 * fracture). Canonical names match the labelled corpus in test/fixtures/assertion-corpus.
 */
export interface FindingEntry {
  /** Canonical name, as questions and options say it. */
  name: string;
  /** Lower-case phrases that name it in a report (whole words; a trailing `*` matches any word ending). */
  phrases: string[];
  category: string;
  subcategory: string;
  group: 'pleura' | 'parenchyma' | 'heart-vessels' | 'mediastinum' | 'devices' | 'bones' | 'abdomen' | 'airways';
  /** Whether a side (left/right/bilateral) is meaningful for it. */
  lateral: boolean;
  /** A diagnosis rather than an appearance: differential questions are asked about these. */
  diagnosis?: boolean;
  /** How an option names it when the canonical name reads badly in a question. */
  label?: string;
}

/** The words an option uses for a finding. */
export const optionLabel = (e: FindingEntry) => e.label ?? e.name.charAt(0).toUpperCase() + e.name.slice(1);

const entry = (name: string, phrases: string[], category: string, subcategory: string, group: FindingEntry['group'], lateral: boolean, diagnosis = false): FindingEntry => ({ name, phrases, category, subcategory, group, lateral, ...(diagnosis ? { diagnosis } : {}) });

export const LEXICON: readonly FindingEntry[] = [
  entry('pleural effusion', ['pleural effusion*', 'effusion*', 'pleural fluid', 'hydrothorax', 'haemothorax', 'hemothorax', 'fluid in the costophrenic', 'fluid in the right costophrenic', 'fluid in the left costophrenic', 'hydropneumothorax', 'blunting of the costophrenic angle*', 'costophrenic angle blunting', 'costophrenic blunting', 'eff'], 'Pleural Effusion', 'Effusion', 'pleura', true),
  entry('pneumothorax', ['pneumothorax', 'pneumothoraces', 'ptx', 'hydropneumothorax', 'pneumothoraxes'], 'Lung and Pleural Lucency', 'Pneumothorax', 'pleura', true),
  entry('pleural thickening', ['pleural thickening', 'thickened pleura', 'pleural scarring', 'apical cap*', 'apical pleural thickening', 'pleural cap*'], 'Pleural Effusion', 'Pleural Thickening', 'pleura', true),
  entry('pleural plaque', ['pleural plaque*', 'calcified pleural plaque*'], 'Pleural Effusion', 'Pleural Plaque', 'pleura', true),
  entry('consolidation', ['consolidation*', 'consolidative opacit*', 'airspace consolidation*', 'air space consolidation*', 'consol', 'consolidated'], 'Lung and Pleural Opacity', 'Consolidation', 'parenchyma', true),
  entry('atelectasis', ['atelectasis', 'atelectases', 'atelectatic', 'subsegmental atelectasis', 'volume loss', 'collapse', 'collapsed', 'atx'], 'Lung Volume', 'Atelectasis', 'parenchyma', true),
  entry('airspace opacity', ['airspace opacit*', 'air space opacit*', 'airspace disease', 'air space disease', 'opacity', 'opacities', 'opacification', 'patchy opacit*', 'ground-glass opacit*', 'ground glass opacit*', 'ground-glass', 'ground glass', 'hazy opacit*', 'infiltrate*', 'haziness', 'density', 'densities', 'shadowing', 'airspace shadowing'], 'Lung and Pleural Opacity', 'Airspace Opacity', 'parenchyma', true),
  entry('interstitial opacity', ['interstitial opacit*', 'interstitial marking*', 'interstitial prominence', 'reticular opacit*', 'reticulonodular opacit*', 'interstitial pattern', 'fibrosis', 'fibrotic change*', 'interstitial lung disease', 'interstitial thickening', 'reticulation', 'reticular pattern'], 'Lung and Pleural Opacity', 'Interstitial Opacity', 'parenchyma', true),
  entry('nodule', ['nodule*', 'nodular opacit*', 'nodular density', 'nodular densities'], 'Lung and Pleural Opacity', 'Nodular Opacity', 'parenchyma', true),
  entry('mass', ['mass', 'masses', 'mass lesion*'], 'Pulmonary Neoplasm', 'Mass', 'parenchyma', true),
  entry('granuloma', ['granuloma*', 'calcified granuloma*', 'granulomatous disease', 'calcified nodule*'], 'Lung and Pleural Opacity', 'Granuloma', 'parenchyma', true),
  entry('scarring', ['scarring', 'scar', 'scars', 'parenchymal scarring', 'fibrotic scarring', 'cicatrix'], 'Lung and Pleural Opacity', 'Scarring', 'parenchyma', true),
  entry('cavitation', ['cavitation', 'cavity', 'cavities', 'cavitary lesion*', 'cavitating'], 'Lung and Pleural Lucency', 'Cavity', 'parenchyma', true),
  entry('emphysema', ['emphysema', 'emphysematous change*', 'emphysematous', 'bullous emphysema', 'bullae', 'bulla'], 'Lung and Pleural Lucency', 'Emphysema', 'parenchyma', true),
  entry('hyperinflation', ['hyperinflation', 'hyperinflated', 'hyperexpansion', 'hyperexpanded', 'overinflation', 'overinflated'], 'Lung Volume', 'Hyperinflation', 'parenchyma', false),
  entry('bronchiectasis', ['bronchiectasis', 'bronchiectatic'], 'Airway', 'Bronchiectasis', 'airways', true),
  entry('pulmonary edema', ['pulmonary edema', 'pulmonary oedema', 'edema', 'oedema', 'interstitial edema', 'interstitial oedema', 'alveolar edema', 'alveolar oedema', 'chf', 'congestive heart failure'], 'Other Pulmonary Diagnosis', 'Pulmonary Edema', 'heart-vessels', false, true),
  entry('pulmonary vascular congestion', ['pulmonary vascular congestion', 'vascular congestion', 'pulmonary venous congestion', 'venous congestion', 'pulmonary venous hypertension', 'cephalization', 'vascular redistribution', 'vasc congestion', 'vascular engorgement'], 'Heart', 'Vascular Congestion', 'heart-vessels', false),
  entry('pneumonia', ['pneumonia*', 'pneumonitis', 'infectious process', 'infection', 'pna'], 'Infectious Disease', 'Pneumonia', 'parenchyma', true, true),
  entry('cardiomegaly', ['cardiomegaly', 'enlarged cardiac silhouette', 'cardiac enlargement', 'enlarged heart', 'heart is enlarged', 'heart size is enlarged', 'enlargement of the cardiac silhouette', 'cardiac silhouette is enlarged', 'enlarged cardiac shadow'], 'Heart', 'Cardiomegaly', 'heart-vessels', false),
  entry('tortuous aorta', ['tortuous aorta', 'tortuosity of the aorta', 'aortic tortuosity', 'tortuous thoracic aorta', 'unfolded aorta', 'unfolding of the aorta', 'unfolding of the thoracic aorta', 'ectatic aorta', 'aortic unfolding'], 'Mediastinum', 'Aorta', 'heart-vessels', false),
  entry('aortic calcification', ['aortic calcification*', 'calcified aorta', 'aortic atherosclerosis', 'atherosclerotic calcification*', 'calcification of the aortic', 'aortic knob calcification', 'calcified aortic', 'calcified aortic knob', 'calcified aortic arch'], 'Mediastinum', 'Aortic Calcification', 'heart-vessels', false),
  entry('hilar enlargement', ['hilar enlargement', 'hilar lymphadenopathy', 'hilar adenopathy', 'enlarged hila', 'enlarged hilum', 'prominent hila', 'hilar prominence', 'prominence of the hila', 'bulky hila', 'hilar enlargement*'], 'Mediastinum', 'Hilar Enlargement', 'mediastinum', true),
  entry('mediastinal widening', ['mediastinal widening', 'widened mediastinum', 'widening of the mediastinum', 'mediastinum is widened', 'widening of the superior mediastinum', 'mediastinal widening*'], 'Mediastinum', 'Mediastinal Widening', 'mediastinum', false),
  entry('lymphadenopathy', ['lymphadenopathy', 'adenopathy', 'nodal enlargement', 'enlarged lymph node*', 'enlarged node*'], 'Mediastinum', 'Lymphadenopathy', 'mediastinum', true),
  entry('hiatal hernia', ['hiatal hernia', 'hiatus hernia', 'hiatal hernias'], 'Abdomen', 'Hiatal Hernia', 'abdomen', false),
  entry('pneumoperitoneum', ['pneumoperitoneum', 'free air', 'free intraperitoneal air', 'free subdiaphragmatic air', 'subdiaphragmatic free air', 'free gas', 'free subdiaphragmatic gas', 'free intraperitoneal gas', 'subdiaphragmatic gas'], 'Abdomen', 'Pneumoperitoneum', 'abdomen', false),
  entry('elevated hemidiaphragm', ['elevated hemidiaphragm', 'elevation of the hemidiaphragm', 'elevation of the left hemidiaphragm', 'elevation of the right hemidiaphragm', 'hemidiaphragm is elevated', 'raised hemidiaphragm', 'eventration', 'elevated left hemidiaphragm', 'elevated right hemidiaphragm', 'raised left hemidiaphragm', 'raised right hemidiaphragm'], 'Diaphragm', 'Elevated Hemidiaphragm', 'abdomen', true),
  entry('rib fracture', ['rib fracture*', 'fractured rib*', 'fracture of the rib*', 'rib fx', 'rib #', 'rib #s', 'rib deformit*'], 'Bone', 'Rib Fracture', 'bones', true),
  { ...entry('other fracture', ['compression fracture*', 'clavicle fracture*', 'clavicular fracture*', 'vertebral fracture*', 'fracture of the clavicle', 'humeral fracture*', 'fracture*'], 'Bone', 'Fracture', 'bones', true), label: 'Clavicle or vertebral fracture' },
  entry('degenerative changes', ['degenerative change*', 'degenerative disease', 'spondylosis', 'osteophyte*', 'degenerative disc disease', 'spondylotic change*', 'arthritic change*'], 'Bone', 'Degenerative Changes', 'bones', false),
  entry('scoliosis', ['scoliosis', 'scoliotic curvature', 'scoliotic'], 'Bone', 'Scoliosis', 'bones', false),
  entry('sternotomy wires', ['sternotomy wire*', 'median sternotomy', 'sternotomy', 'sternal wire*', 'sternal suture*'], 'Tubes and Lines', 'Sternotomy', 'devices', false),
  entry('pacemaker', ['pacemaker*', 'pacer', 'icd', 'defibrillator', 'cardiac device', 'pacing lead*', 'pacer lead*', 'aicd'], 'Tubes and Lines', 'Pacemaker', 'devices', true),
  entry('central venous catheter', ['central venous catheter*', 'central line*', 'central venous line*', 'picc', 'picc line', 'port-a-cath', 'port', 'portacath', 'ij line', 'internal jugular catheter', 'internal jugular line', 'cvc', 'dialysis catheter', 'swan-ganz catheter', 'subclavian line', 'subclavian catheter', 'jugular line'], 'Tubes and Lines', 'Central Venous Catheter', 'devices', true),
  entry('endotracheal tube', ['endotracheal tube*', 'ett', 'et tube', 'ett tip', 'intubated', 'endotracheal'], 'Tubes and Lines', 'Endotracheal Tube', 'devices', false),
  entry('nasogastric tube', ['nasogastric tube', 'ng tube', 'ngt', 'enteric tube', 'feeding tube', 'orogastric tube', 'og tube', 'dobhoff', 'dobbhoff', 'dobhoff tube', 'dobbhoff tube'], 'Tubes and Lines', 'Nasogastric Tube', 'devices', false),
  entry('chest tube', ['chest tube*', 'chest drain*', 'intercostal drain*', 'thoracostomy tube*', 'pleural drain*', 'pigtail catheter*', 'pigtail pleural catheter*', 'pleural catheter*'], 'Tubes and Lines', 'Chest Tube', 'devices', true),
  entry('surgical clips', ['surgical clip*', 'clips', 'surgical staple*', 'cholecystectomy clip*', 'vascular clip*'], 'Tubes and Lines', 'Surgical Clips', 'devices', false),
];

/** The entry of a canonical finding name. */
export function findingEntry(name: string): FindingEntry | undefined {
  return LEXICON.find((e) => e.name === name);
}
