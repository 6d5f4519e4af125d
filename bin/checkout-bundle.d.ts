/** The URL of a bundle of `src/<entry>.ts` made from the sources as they are now (made first if needed), or null. */
export function checkoutBundle(entry: string, where?: { root?: string; cacheDir?: string }): Promise<URL | null>;
/** The bundle last kept under `name` in `cacheDir` if every file it was made from is unchanged, or null. */
export function cachedBundle(cacheDir: string, name: string, root: string): string | null;
/** Writes a bundle named by its content hash and the index `cachedBundle` checks; returns the bundle's path. */
export function keepBundle(made: { cacheDir: string; name: string; ext: string; root: string; code: string; map?: Uint8Array; inputs: string[]; started: number }): string;
