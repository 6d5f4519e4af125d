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
import { join } from 'node:path';
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
  const indexPath = join(cacheDir, `${name}.json`);
  try {
    const index = JSON.parse(readFileSync(indexPath, 'utf8'));
    if (isFresh(root, cacheDir, index)) return pathToFileURL(join(cacheDir, index.bundle));
  } catch {
    // no index yet, or an unreadable one: make the bundle
  }
  try {
    return await build(root, cacheDir, entry, name, indexPath);
  } catch {
    return null;
  }
}

/** Whether every input is as it was when the bundle was made, and the bundle is there. */
function isFresh(root, cacheDir, index) {
  for (const [file, [mtimeMs, size]] of Object.entries(index.inputs)) {
    const s = statSync(join(root, file), { throwIfNoEntry: false });
    if (!s || s.mtimeMs !== mtimeMs || s.size !== size) return false;
  }
  return statSync(join(cacheDir, index.bundle), { throwIfNoEntry: false }) !== undefined;
}

/** Gives every source module its own file's URL for `import.meta.url`, as when it is loaded on its own. */
function sourceUrls(root) {
  const sources = join(root, 'src');
  return {
    name: 'source-urls',
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, (args) => {
        if (!args.path.startsWith(sources)) return undefined;
        const text = readFileSync(args.path, 'utf8');
        return { contents: text.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)), loader: 'ts' };
      });
    },
  };
}

function writeAtomically(path, contents) {
  const partial = `${path}.${process.pid}.tmp`;
  writeFileSync(partial, contents);
  renameSync(partial, path);
}

async function build(root, cacheDir, entry, name, indexPath) {
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
  const code = result.outputFiles.find((f) => f.path.endsWith('.mjs'));
  const map = result.outputFiles.find((f) => f.path.endsWith('.map'));
  const bundle = `${name}-${createHash('sha256').update(code.contents).digest('hex').slice(0, 16)}.mjs`;
  mkdirSync(cacheDir, { recursive: true });
  writeAtomically(join(cacheDir, `${bundle}.map`), map.contents);
  writeAtomically(join(cacheDir, bundle), code.text.replace(`//# sourceMappingURL=${name}.mjs.map`, `//# sourceMappingURL=${bundle}.map`));
  const inputs = {};
  let editedWhileBuilding = false;
  for (const file of Object.keys(result.metafile.inputs)) {
    const s = statSync(join(root, file));
    inputs[file] = [s.mtimeMs, s.size];
    if (s.mtimeMs >= started) editedWhileBuilding = true;
  }
  // a file changed while esbuild read the sources may be in the bundle as it was before: used this once, not kept
  if (!editedWhileBuilding) writeAtomically(indexPath, JSON.stringify({ bundle, inputs }));
  prune(cacheDir, name, bundle);
  return pathToFileURL(join(cacheDir, bundle));
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
