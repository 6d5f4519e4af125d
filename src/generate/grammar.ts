import type { Side } from './assertion.js';
import type { FindingEntry } from './lexicon.js';

/**
 * The template layer's grammar (issue #23 item 5): number agreement, articles and plural forms of the vocabulary's
 * findings, so that every stem and option the templates write reads as English ("How severe are the degenerative
 * changes", "regarding a chest tube", "Bilateral pleural effusions"). Tested over the whole vocabulary.
 */

/** A finding's name as running text ("pleural effusion", "degenerative changes"). */
export const nameOf = (entry: FindingEntry) => entry.label?.toLowerCase() ?? entry.name;

/** "is" or "are", by the finding's number ("the degenerative changes are"). */
export const be = (entry: FindingEntry) => (entry.plural ? 'are' : 'is');

/**
 * The name as the object of "regarding": a countable finding takes its article ("a chest tube", "an endotracheal
 * tube", "a nodule"); a mass noun or a plural name stands alone ("pneumothorax", "degenerative changes").
 */
export function regardingName(entry: FindingEntry): string {
  const name = nameOf(entry);
  if (entry.plural || !entry.countable) return name;
  return `${/^[aeiou]/.test(name) ? 'an' : 'a'} ${name}`;
}

/** A side form of a finding, as an option says it ("Left-sided pleural effusion", "Bilateral pleural effusions"). */
export function sidedName(side: Side, entry: FindingEntry): string {
  const name = nameOf(entry);
  return side === 'left' ? `Left-sided ${name}` : side === 'right' ? `Right-sided ${name}` : `Bilateral ${entry.pluralLabel ?? name}`;
}

/** The denial of a finding, as an option says it ("No pleural effusion", "No degenerative changes"). */
export const denialOf = (entry: FindingEntry) => `No ${nameOf(entry)}`;

/** The grade question's "not there" option, agreeing with the name ("Not present", "None are present"). */
export const absentGradeOf = (entry: FindingEntry) => (entry.plural ? 'None are present' : 'Not present');
