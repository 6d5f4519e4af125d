import { CxrError } from '../core/errors.js';

/** A commander parser for a whole number of at least `min`; anything else is a bad option named by its flag. */
export function wholeNumber(option: string, min = 0, max = Number.MAX_SAFE_INTEGER) {
  return (value: string) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) throw new CxrError('bad-option', `${option} ${value}: expected a whole number ≥ ${min}${max < Number.MAX_SAFE_INTEGER ? ` and ≤ ${max}` : ''}`);
    return n;
  };
}

/** A commander parser for a share in (0, 1]. */
export function ratio(option: string) {
  return (value: string) => {
    const x = Number(value);
    if (!Number.isFinite(x) || x <= 0 || x > 1) throw new CxrError('bad-option', `${option} ${value}: expected a number in (0, 1]`);
    return x;
  };
}

/** A commander parser for seconds: above 0, or 0 too when `allowZero` (a poll that does not wait). */
export function seconds(option: string, allowZero = false) {
  return (value: string) => {
    const x = Number(value);
    if (!Number.isFinite(x) || x < 0 || (!allowZero && x === 0)) throw new CxrError('bad-option', `${option} ${value}: expected seconds`);
    return x;
  };
}

/**
 * A commander parser for an http(s) address, returned without trailing slashes: links the CLI prints must open
 * in a browser, so javascript:, data:, file: or a bare host:port are refused.
 */
export function httpUrl(option: string) {
  return (value: string) => {
    let url: URL | null = null;
    try {
      url = new URL(value);
    } catch {
      url = null;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname || /\s/.test(value)) {
      throw new CxrError('bad-option', `${option} ${value}: expected an http(s) address such as https://board.example.org`);
    }
    return value.replace(/\/+$/, '');
  };
}

/** A commander parser for a name or title people will see: trimmed, and refused when empty or only spaces. */
export function nonBlank(option: string) {
  return (value: string) => {
    const trimmed = value.trim();
    if (!trimmed) throw new CxrError('bad-option', `${option} "${value}": empty; give the text results and pages should show`);
    return trimmed;
  };
}
