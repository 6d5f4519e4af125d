import { ISSUE_KINDS } from '../../core/dataset-issue.js';
import { normalizeRecord } from '../../dataset/normalize.js';

/**
 * The paper's structural validators v1–v4 (schema, types, format, completeness) on one generated record: the
 * same rules `data validate` applies. Returns the failures as `[validator, reason]`; empty when it passes.
 */
export function structuralFailures(record: Record<string, unknown>, key: string): [string, string][] {
  const { issues } = normalizeRecord(record, { file: 'generated', key, split: 'generated' });
  return issues
    .filter((i) => i.code !== 'optional-field-missing' && (i.severity === 'error' || i.severity === 'warning'))
    .map((i) => {
      const group = ISSUE_KINDS[i.code].group;
      return [group.startsWith('v') ? group.slice(0, 2) : group, `${i.code}: ${i.message}`];
    });
}
