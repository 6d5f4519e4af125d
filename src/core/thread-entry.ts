import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** How to load a thread's module from a source checkout (an installed package always runs the compiled JavaScript). */
export interface ThreadEntryOptions {
  /**
   * Bundle the thread's module graph into one JavaScript file instead of loading it through tsx. For hot threads
   * whose graph is plain code (no import.meta, no native addons or WASM beside it): tsx's loader in a thread kept
   * enough on its heap that, with `data download`'s small young generation, the extraction thread spent 1.2 s of
   * 7 in garbage collection instead of 0.45 s and the run took 8.0 s instead of 6.8 (bench/download-extract.ts).
   */
  bundle?: boolean;
}

/**
 * How a worker thread's module is loaded: the compiled JavaScript beside the caller, or in a source checkout the
 * TypeScript source through tsx (the thread does not inherit the main thread's loader) or, with `bundle`, one
 * bundled file.
 */
export function threadEntry(moduleName: string, callerUrl: string, options: ThreadEntryOptions = {}): { url: URL; execArgv: string[] } {
  if (!callerUrl.endsWith('.ts')) return { url: new URL(`./${moduleName}.js`, callerUrl), execArgv: [] };
  const source = new URL(`./${moduleName}.ts`, callerUrl);
  if (options.bundle) {
    try {
      return { url: bundled(source), execArgv: [] };
    } catch {
      // no esbuild, or a read-only checkout: through tsx, slower but the same code
    }
  }
  return { url: source, execArgv: ['--import', import.meta.resolve('tsx')] };
}

/**
 * Bundles a thread's TypeScript module with esbuild (the compiler tsx itself uses, a development dependency: only
 * a source checkout gets here) into a CommonJS file named by its content hash, in the checkout's
 * node_modules/.cache, written once per change (atomically:
 * two runs may bundle at once). CommonJS so that bundled packages' `require` of Node's built-ins keeps working.
 */
function bundled(source: URL): URL {
  const esbuild = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
  const result = esbuild.buildSync({ entryPoints: [fileURLToPath(source)], bundle: true, platform: 'node', format: 'cjs', target: 'node22', write: false, logLevel: 'silent' });
  const code = result.outputFiles[0]!.contents;
  const name = source.pathname.split('/').pop()!.replace(/\.ts$/, '');
  // in the checkout's own node_modules/.cache (where build tools keep theirs), not a shared temporary folder
  // another user could have written first
  const dir = fileURLToPath(new URL('../../node_modules/.cache/cxrbench-threads/', import.meta.url));
  const file = join(dir, `${name}-${createHash('sha256').update(code).digest('hex').slice(0, 16)}.cjs`);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, code);
    renameSync(partial, file);
    // earlier versions of this thread's bundle, an hour old or more (not one a run still starting may be about to load)
    for (const other of readdirSync(dir)) {
      const path = join(dir, other);
      if (other.startsWith(`${name}-`) && path !== file && Date.now() - statSync(path).mtimeMs > 3_600_000) rmSync(path, { force: true });
    }
  }
  return pathToFileURL(file);
}
