import { CxrError } from '../core/errors.js';

/** Parses a `--format` value against the formats a command offers, with an error that lists them. */
export function parseFormat<T extends string>(value: string, allowed: readonly T[], option = '--format'): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new CxrError('bad-option', `${option} ${value}: expected one of ${allowed.join(', ')}`);
}
