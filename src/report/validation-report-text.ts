import { ISSUE_KINDS, type DatasetIssue } from '../core/dataset-issue.js';
import type { ValidationReport } from '../core/validation-report.js';
import { inPaperOrder } from '../core/question.js';

/** The JSON form of a validation report, as documented in docs/data-validation.md (severity is implied by the list). */
export function validationReportJson(report: ValidationReport): string {
  const strip = ({ file, key, field, code, message }: DatasetIssue) => ({ file, key, field, code, message });
  return JSON.stringify({ ...report, errors: report.errors.map(strip), warnings: report.warnings.map(strip) }, null, 2) + '\n';
}

function issueLine(found: DatasetIssue): string {
  const where = [found.file, found.key !== null ? `key ${JSON.stringify(found.key)}` : null, found.field !== null ? `field ${found.field}` : null]
    .filter(Boolean)
    .join(' · ');
  return `  ${found.severity === 'error' ? 'error  ' : 'warning'} [${found.code}] ${where}\n           ${found.message} — ${ISSUE_KINDS[found.code].hint}`;
}

/** A human-readable validation report: every error and warning with its place and what to do, repairs by kind, and totals. */
export function validationReportText(report: ValidationReport): string {
  const out: string[] = [];
  const c = report.counts;
  if (report.errors.length > 0) out.push(`Errors (${report.errors.length}):`, ...report.errors.map(issueLine), '');
  if (report.warnings.length > 0) out.push(`Warnings (${report.warnings.length}):`, ...report.warnings.map(issueLine), '');
  if (report.repaired.length > 0) {
    out.push(`Repaired on read (${c.repaired} in ${report.repaired.length} kinds):`);
    for (const r of report.repaired) {
      const example = r.examples[0] ? ` — e.g. ${r.examples[0].file} key ${JSON.stringify(r.examples[0].key)}` : '';
      out.push(`  ${String(r.count).padStart(8)} × [${r.code}]${r.field ? ` ${r.field}` : ''}: ${ISSUE_KINDS[r.code].hint}${example}`);
    }
    out.push('');
  }
  const splits = Object.entries(c.bySplit).map(([s, n]) => `${s} ${n}`).join(', ');
  const tasks = Object.entries(c.byTask).filter(([, t]) => Object.keys(t).length > 0).map(([split, t]) => {
    return `  ${split}: ${inPaperOrder(Object.keys(t)).map((task) => `${task} ${t[task]}`).join(', ')}`;
  });
  out.push(
    `${c.files} file(s), ${c.records} record(s): ${c.questions} usable question(s) (${splits}), ${c.excluded} left out (records with an error; see docs/data-validation.md, "usable").`,
    ...(tasks.length > 0 ? ['Usable questions per task:', ...tasks] : []),
    `${c.errors} error(s), ${c.warnings} warning(s), ${c.repaired} repair(s). ${c.errors === 0 ? 'VALID' : 'INVALID'}`,
  );
  return out.join('\n') + '\n';
}
