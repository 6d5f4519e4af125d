/** The V8 flags cxrbench runs eval and generate with. */
export declare const GC_FLAGS: string[];
/** The V8 flags of `data download`. */
export declare const STREAMING_GC_FLAGS: string[];
/** The commands that run with GC_FLAGS. */
export declare const GC_COMMANDS: Set<string>;
/** The flags a command line runs with (its first words after `cxrbench`), or none. */
export declare function gcFlagsFor(args: readonly string[]): string[];
