import type { IssueCode } from '../core/dataset-issue.js';
import { parseStringifiedList } from '../core/python-literal.js';

/** How field readers report a problem or a repair of the record they are reading. */
export type ReportIssue = (code: IssueCode, field: string | null, message: string) => void;

/** Describes a value's type for messages ("a list", "an object", "a number", "null"). */
export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * Reads a list field that may arrive as a stringified JSON/Python list (a repair, counted). Returns null for null
 * and for a value that is not a list (reported as `wrong-type`).
 */
export function readListValue(value: unknown, field: string, report: ReportIssue): unknown[] | null {
  if (Array.isArray(value)) return value;
  if (typeof value === 'string') {
    const parsed = parseStringifiedList(value);
    if (parsed !== null) {
      report('stringified-list', field, `${field} is a list written as a string; parsed into ${parsed.length} item(s)`);
      return parsed;
    }
  }
  if (value === null) return null;
  report('wrong-type', field, `${field} is ${describeType(value)}${typeof value === 'string' ? ` ("${value.slice(0, 60)}")` : ''}, expected a list`);
  return null;
}

/** Trims an image path and strips leading slashes (MIMIC-style `/files/…`), counting the repair. */
export function cleanImagePath(path: string, report: ReportIssue): string {
  const trimmed = path.trim();
  if (!trimmed.startsWith('/')) return trimmed;
  report('path-leading-slash', 'ImagePath', `leading "/" stripped from "${path.slice(0, 60)}"`);
  return trimmed.replace(/^\/+/, '');
}
