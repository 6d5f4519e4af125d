#!/usr/bin/env node
// Entry point of the `cxrbench` command. In a source checkout (src/ present) it runs the TypeScript
// sources through tsx, so there is no build step to forget; an installed package runs the compiled dist/.
import { existsSync } from 'node:fs';
import nodeModule from 'node:module'; // the module object, not a named import: Node 20 has no enableCompileCache and must reach the version check
import { checkoutBundle } from './checkout-bundle.js';
import { gcFlagsFor } from './gc-flags.js';
import { nodeVersionProblem } from './node-version.js';

// Before anything else is loaded: an old Node would crash later with no message (a segfault under Node 20).
const tooOld = nodeVersionProblem(process.versions.node, process.execPath);
if (tooOld) {
  process.stderr.write(tooOld);
  process.exit(2);
}

// Garbage-collector settings that keep memory proportional to what a command really holds (bin/gc-flags.js says
// why and for which commands). The process replaces itself (execve keeps the PID, so a supervisor's signals still
// reach it); settings the user gives in NODE_OPTIONS or on the command line win, and CXRBENCH_GC_DEFAULTS=0 turns
// this off.
const given = `${process.env.NODE_OPTIONS ?? ''} ${process.execArgv.join(' ')}`;
const userChoseGc = /heap-growing-percent|max-semi-space-size|max-old-space-size/.test(given);
const gcFlags = gcFlagsFor(process.argv.slice(2));
if (gcFlags.length > 0 && typeof process.execve === 'function' && !userChoseGc && process.env.CXRBENCH_GC_DEFAULTS !== '0') {
  process.execve(process.execPath, [process.execPath, ...gcFlags, ...process.execArgv, ...process.argv.slice(1)], { ...process.env, CXRBENCH_GC_DEFAULTS: '0' });
}

// V8's compiled code kept on disk between runs (in the system's temporary folder): every command starts ~50 ms sooner.
nodeModule.enableCompileCache?.();

// `serve` and `worker` are the server shell's own entry points: the CLI and the server never import each other.
const entry = process.argv[2] === 'serve' ? 'server/main' : process.argv[2] === 'worker' ? 'server/worker-main' : 'cli/main';
const sources = new URL(`../src/${entry}.ts`, import.meta.url);
if (existsSync(sources)) {
  // the CLI from one bundle of the sources (bin/checkout-bundle.js says why); the servers, started once, through tsx
  const bundle = entry === 'cli/main' ? await checkoutBundle(entry) : null;
  let loaded = false;
  if (bundle) {
    try {
      await import(bundle.href);
      loaded = true;
    } catch (error) {
      // removed between the check and the import (another run pruned it): through tsx instead. Anything else is the
      // program's own failure, said as it is
      if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes(bundle.pathname)) throw error;
    }
  }
  if (!loaded) {
    const { register } = await import('tsx/esm/api');
    register();
    await import(sources.href);
  }
} else {
  await import(new URL(`../dist/${entry}.js`, import.meta.url).href);
}
