// In a source checkout the command runs the TypeScript sources. Loading them module by module through tsx's loader
// cost ~0.15 s of every command's start (0.43 s against 0.27 s for `--version`), so the sources are bundled by
// esbuild (the compiler tsx itself uses, a development dependency) into one ES module, kept in the checkout's
// node_modules/.cache and made again only when a source file it came from changes: each run checks the inputs'
// sizes and modification times against the index written beside the bundle (a few milliseconds). Packages stay
// outside the bundle, loaded from node_modules as usual, and each module keeps its own `import.meta.url` (its source
// file's), so paths found from it (templates, examples, worker threads) are those of the checkout.
// Anything in the way (no esbuild, a read-only checkout, CXRBENCH_BUNDLE=0) and the caller loads through tsx.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const checkout = fileURLToPath(new URL('..', import.meta.url));

/**
 * The URL of a bundle of `src/<entry>.ts` made from the sources as they are now, made first if needed; null when
 * none can be had (the caller then loads the sources through tsx).
 * @param {string} entry e.g. `cli/main`
 * @param {{ root?: string, cacheDir?: string }} [where] the checkout and the cache folder (tests point them elsewhere)
 * @returns {Promise<URL | null>}
 */
export async function checkoutBundle(entry, where = {}) {
  if (process.env.CXRBENCH_BUNDLE === '0') return null;
  const root = where.root ?? checkout;
  const cacheDir = where.cacheDir ?? join(root, 'node_modules', '.cache', 'cxrbench-cli');
  const name = entry.replace(/[^a-z0-9]+/gi, '-');
  const cached = cachedBundle(cacheDir, name, root);
  if (cached) return pathToFileURL(cached);
  try {
    return pathToFileURL(await build(root, cacheDir, entry, name));
  } catch {
    return null;
  }
}

/**
 * The bundle `keepBundle` last kept under `name` in `cacheDir`, if every file it was made from is as it was then
 * (size and modification time; paths relative to `root`); null otherwise.
 * @param {string} cacheDir
 * @param {string} name
 * @param {string} root
 * @returns {string | null}
 */
function cachedBundle(cacheDir, name, root) {
  try {
    const index = JSON.parse(readFileSync(join(cacheDir, `${name}.json`), 'utf8'));
    for (const [file, [mtimeMs, size]] of Object.entries(index.inputs)) {
      const s = statSync(join(root, file), { throwIfNoEntry: false });
      if (!s || s.mtimeMs !== mtimeMs || s.size !== size) return null;
    }
    const bundle = join(cacheDir, index.bundle);
    return statSync(bundle, { throwIfNoEntry: false }) ? bundle : null;
  } catch {
    return null; // no index yet, or an unreadable one
  }
}

/**
 * Writes a bundle named by its content hash (`<name>-<hash><ext>`, and its source map beside it when given), and
 * the index `cachedBundle` checks, listing the inputs (esbuild's metafile keys, relative to `root`) with their
 * sizes and times. Atomic: two runs may bundle at once. Returns the bundle's path.
 * @param {{ cacheDir: string, name: string, ext: string, root: string, code: string, map?: Uint8Array, inputs: string[], started: number }} made
 * @returns {string}
 */
function keepBundle({ cacheDir, name, ext, root, code, map, inputs, started }) {
  const bundle = `${name}-${createHash('sha256').update(code).digest('hex').slice(0, 16)}${ext}`;
  mkdirSync(cacheDir, { recursive: true });
  if (map) writeAtomically(join(cacheDir, `${bundle}.map`), map);
  writeAtomically(join(cacheDir, bundle), map ? code.replace(`//# sourceMappingURL=${name}${ext}.map`, `//# sourceMappingURL=${bundle}.map`) : code);
  const stats = {};
  let editedWhileBuilding = false;
  // also what esbuild reads besides the sources: the TypeScript settings, and esbuild itself
  for (const file of [...inputs, 'tsconfig.json', 'package.json', 'node_modules/esbuild/package.json']) {
    const s = statSync(join(root, file), { throwIfNoEntry: false });
    if (!s) continue;
    stats[file] = [s.mtimeMs, s.size];
    // the file system's clock is coarser than Date.now() (an edit just after `started` can read a few ms earlier)
    if (s.mtimeMs >= started - 2000) editedWhileBuilding = true;
  }
  // a file changed while esbuild read the sources (or just before) may be in the bundle as it was before: the
  // bundle is used this once, and not kept for the next run
  if (!editedWhileBuilding) writeAtomically(join(cacheDir, `${name}.json`), JSON.stringify({ bundle, inputs: stats }));
  prune(cacheDir, name, bundle);
  return join(cacheDir, bundle);
}

/** Gives every module of src/ its own file's URL for `import.meta.url`, as when it is loaded on its own. */
function sourceUrls(root) {
  const own = [join(root, 'src') + sep];
  return {
    name: 'source-urls',
    setup(build) {
      build.onLoad({ filter: /\.[jt]s$/ }, (args) => {
        if (!own.some((dir) => args.path.startsWith(dir))) return undefined;
        const text = readFileSync(args.path, 'utf8');
        return { contents: text.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)), loader: args.path.endsWith('.ts') ? 'ts' : 'js' };
      });
    },
  };
}

function writeAtomically(path, contents) {
  const partial = `${path}.${process.pid}.tmp`;
  writeFileSync(partial, contents);
  renameSync(partial, path);
}

async function build(root, cacheDir, entry, name) {
  const { build: esbuild } = await import('esbuild');
  const started = Date.now();
  const result = await esbuild({
    entryPoints: [join(root, 'src', `${entry}.ts`)],
    absWorkingDir: root,
    outfile: join(cacheDir, `${name}.mjs`),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    packages: 'external',
    // a map beside the bundle: `node --enable-source-maps` then reports errors at their line in src/
    sourcemap: 'linked',
    metafile: true,
    write: false,
    logLevel: 'silent',
    plugins: [sourceUrls(root)],
  });
  const code = result.outputFiles.find((f) => f.path.endsWith('.mjs')).text;
  const map = result.outputFiles.find((f) => f.path.endsWith('.map')).contents;
  return keepBundle({ cacheDir, name, ext: '.mjs', root, code, map, inputs: Object.keys(result.metafile.inputs), started });
}

/** Removes bundles of earlier sources an hour old or more (not one a command still starting may be about to load). */
function prune(cacheDir, name, current) {
  for (const file of readdirSync(cacheDir)) {
    if (!file.startsWith(`${name}-`) || file === current || file === `${current}.map`) continue;
    const path = join(cacheDir, file);
    try {
      if (Date.now() - statSync(path).mtimeMs > 3_600_000) rmSync(path, { force: true });
    } catch {
      // gone already: another run pruned it
    }
  }
}
