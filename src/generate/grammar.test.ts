import assert from 'node:assert/strict';
import { test } from 'node:test';
import { absentGradeOf, be, denialOf, regardingName, sidedName } from './grammar.js';
import { LEXICON, findingEntry } from './lexicon.js';

const entry = (name: string) => findingEntry(name)!;

test('agreement: plural names take "are" and "None are present", singular ones "is" and "Not present" — over the whole vocabulary', () => {
  for (const e of LEXICON) {
    const plural = / (?:changes|wires|clips)$/.test(e.name);
    assert.equal(e.plural, plural, `${e.name}: the vocabulary's plural flag`);
    assert.equal(be(e), plural ? 'are' : 'is', e.name);
    assert.equal(absentGradeOf(e), plural ? 'None are present' : 'Not present', e.name);
    assert.equal(denialOf(e), `No ${e.name}`, e.name);
  }
});

test('articles: count nouns take "a" or "an" after "regarding", mass nouns and plurals stand alone', () => {
  assert.equal(regardingName(entry('chest tube')), 'a chest tube');
  assert.equal(regardingName(entry('endotracheal tube')), 'an endotracheal tube');
  assert.equal(regardingName(entry('elevated hemidiaphragm')), 'an elevated hemidiaphragm');
  assert.equal(regardingName(entry('pneumonia')), 'pneumonia');
  assert.equal(regardingName(entry('lymphadenopathy')), 'lymphadenopathy');
  assert.equal(regardingName(entry('cavitation')), 'cavitation');
  assert.equal(regardingName(entry('degenerative changes')), 'degenerative changes');
  for (const e of LEXICON) assert.match(regardingName(e), e.countable && !e.plural ? /^an? [a-z]/ : /^[a-z]/, e.name);
});

test('sides: "Bilateral" takes the plural of a count noun, never "Bilateral rib fracture"; a finding asked about by side has a plural or is a mass noun', () => {
  assert.equal(sidedName('left', entry('pleural effusion')), 'Left-sided pleural effusion');
  assert.equal(sidedName('bilateral', entry('pleural effusion')), 'Bilateral pleural effusions');
  assert.equal(sidedName('bilateral', entry('rib fracture')), 'Bilateral rib fractures');
  assert.equal(sidedName('bilateral', entry('atelectasis')), 'Bilateral atelectasis');
  for (const e of LEXICON) if (e.laterality === 'lateral' && e.countable) assert.ok(e.pluralLabel, `${e.name}: a lateral count noun needs its plural for "Bilateral …"`);
});
