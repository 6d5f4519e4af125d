import type { CorpusReport } from '../corpus/corpus-report.js';
import { SECTION_NAMES } from '../corpus/corpus-report.js';
import { redactPhi, type PhiKind } from '../phi/detect.js';

/** A report with every identifier in its sections replaced by `[REDACTED:<kind>]`, and the kinds found (never the values). */
export function screenReport(report: CorpusReport): { report: CorpusReport; kinds: PhiKind[] } {
  const kinds = new Set<PhiKind>();
  const sections = { ...report.sections };
  for (const name of SECTION_NAMES) {
    const text = sections[name];
    if (text === null) continue;
    const redacted = redactPhi(text);
    sections[name] = redacted.text;
    for (const k of redacted.kinds) kinds.add(k);
  }
  // The patient id is an identifier too: the output keys questions by a hash of it, never the id itself.
  return { report: { ...report, sections }, kinds: [...kinds] };
}
