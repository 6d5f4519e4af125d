/** The URL of a bundle of `src/<entry>.ts` made from the sources as they are now (made first if needed), or null. */
export function checkoutBundle(entry: string, where?: { root?: string; cacheDir?: string }): Promise<URL | null>;
