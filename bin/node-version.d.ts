/** The oldest Node.js cxrbench runs on (package.json's engines field says the same). */
export declare const REQUIRED_NODE: string;
/** Why this Node.js cannot run cxrbench, with the fix, or null when it can. */
export declare function nodeVersionProblem(version: string, execPath: string): string | null;
