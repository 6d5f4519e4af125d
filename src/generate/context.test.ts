import assert from 'node:assert/strict';
import { test } from 'node:test';
import { contextFindings } from './context.js';
import { reportEvidence, reportStatus } from './offline-generator.js';

const sections = (indication: string | null, findings = 'Lungs are clear.') => ({ indication, comparison: null, findings, impression: null });

test('a request that implies a device or an operation makes that finding uncertain: never the key, never a wrong option', () => {
  assert.deepEqual(contextFindings({ sections: sections('Post op day 1, cardiac surgery.') }), ['sternotomy wires']);
  assert.deepEqual(contextFindings({ sections: sections('Post CABG.') }), ['sternotomy wires', 'surgical clips']);
  assert.deepEqual(contextFindings({ sections: sections('PICC placement.') }), ['central venous catheter']);
  assert.deepEqual(contextFindings({ sections: sections('NG tube position?') }), ['nasogastric tube']);
  assert.deepEqual(contextFindings({ sections: sections('Intubated patient, hypoxia.') }), ['endotracheal tube']);
  // Whole words only, and nothing from an ordinary request.
  assert.deepEqual(contextFindings({ sections: sections('Cough and fever for 2 weeks.') }), []);
  assert.deepEqual(contextFindings({ sections: sections('Chest pain; favour pericarditis.') }), []);
  assert.deepEqual(contextFindings({ sections: sections(null) }), []);
});

test("on a newborn's or infant's film the findings of adult life are no plausible option", () => {
  for (const request of ['2-year-old with fever.', '14-year-old, chest pain.', 'Paediatric ward, cough.', '3-month-old with cough.', 'Neonatal, tachypnoea, 2 hours old.', 'Newborn with grunting.', 'Ex-28-weeker on CPAP.', '3 weeks old, poor feeding.', 'NICU admission, respiratory distress.', 'Preterm infant, day 2 of life.']) {
    assert.deepEqual(contextFindings({ sections: sections(request) }).sort(), ['aortic calcification', 'bronchiectasis', 'degenerative changes', 'emphysema', 'granuloma', 'pleural plaque', 'tortuous aorta', 'vertebral compression fracture'], request);
  }
  assert.deepEqual(contextFindings({ sections: sections('Fever for 3 weeks, 45 year old.') }), []);
  assert.deepEqual(contextFindings({ sections: sections('72-year-old with cough for 2 years.') }), []);
});

test('what the report states wins over its context; a one-word finding sentence still counts for the status', () => {
  const report = { id: 'r', patientId: null, sections: { indication: 'Known COPD. Post CABG.', comparison: null, findings: 'Hyperinflation. No sternotomy wires are seen; clips only.', impression: null }, images: [], source: { file: 'f', record: '1' } };
  const evidence = reportEvidence(report);
  const status = reportStatus(evidence, report);
  assert.equal(status.get('hyperinflation'), 'present');
  assert.equal(evidence.find((e) => e.finding === 'hyperinflation')!.quotable, false, 'a one-word sentence is never quoted (it may be a signature)');
  assert.equal(status.get('sternotomy wires'), 'absent');
  assert.equal(status.get('surgical clips'), 'present');
  assert.equal(reportStatus(evidence).get('sternotomy wires'), 'absent');
});

test('a phrase that carries a finding\'s name without being it keeps the finding off the wrong options: subcutaneous emphysema, the pleural cavity', () => {
  assert.deepEqual(contextFindings({ sections: sections(null, 'Extensive subcutaneous emphysema in the left chest wall.') }), ['emphysema']);
  assert.deepEqual(contextFindings({ sections: sections('Pleural tap.', 'No fluid in the pleural cavity.') }), ['cavitation']);
  assert.deepEqual(contextFindings({ sections: sections(null, 'Hyperinflated lungs; emphysema.') }), []);
});
