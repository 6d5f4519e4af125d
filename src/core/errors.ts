/**
 * User-facing failures of a command, as a catalogue: a stable code, an exit code and a message that says
 * what was wrong, where, and what to do. Anything else that escapes is a bug and exits with 70.
 */

/** Exit codes of the `cxrbench` command. */
export const EXIT = {
  ok: 0,
  /** The command ran and found errors in the input (e.g. `data validate` found an error). */
  findings: 1,
  /** The input could not be used: wrong layout, unreadable file, bad option. */
  badInput: 2,
  /** The run stopped before every question was answered (budget or signal): rerun to resume. */
  incomplete: 3,
  /** A service the command needs is unavailable or not set up (database unreachable or not migrated). */
  unavailable: 4,
  /** The run asked every question, but some ended in error after their retries: rerun with --retry-errors. */
  withErrors: 5,
  /** A bug in cxrbench. */
  internal: 70,
} as const;

const CATALOGUE = {
  'layout-unrecognised': EXIT.badInput,
  'path-not-found': EXIT.badInput,
  'folder-empty': EXIT.badInput,
  'bad-option': EXIT.badInput,
  'unreadable-file': EXIT.badInput,
  'output-exists': EXIT.badInput,
  'resume-conflict': EXIT.badInput,
  'model-config': EXIT.badInput,
  'db-unreachable': EXIT.unavailable,
  'db-unmigrated': EXIT.unavailable,
  'db-migration': EXIT.unavailable,
  'not-found': EXIT.badInput,
  'conflict': EXIT.badInput,
  // `data download` (docs/data.md): gated access and unsafe archives are the user's to fix; the rest resume on a rerun
  'hub-access': EXIT.badInput,
  'archive-unsafe': EXIT.badInput,
  'hub-unreachable': EXIT.unavailable,
  'download-incomplete': EXIT.incomplete,
  'download-corrupt': EXIT.incomplete,
  'disk-full': EXIT.incomplete,
} as const;

/** A code from the command error catalogue. */
export type CxrErrorCode = keyof typeof CATALOGUE;

/** An error meant for the user: its message is printed as is, and the process exits with its code. */
export class CxrError extends Error {
  readonly code: CxrErrorCode;
  readonly exitCode: number;
  constructor(code: CxrErrorCode, message: string) {
    super(message);
    this.name = 'CxrError';
    this.code = code;
    this.exitCode = CATALOGUE[code];
  }
}
