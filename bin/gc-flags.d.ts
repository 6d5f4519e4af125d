/** The V8 flags cxrbench runs its data-heavy commands with. */
export declare const GC_FLAGS: string[];
/** The commands that run with them. */
export declare const GC_COMMANDS: Set<string>;
