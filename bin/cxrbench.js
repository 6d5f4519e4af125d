#!/usr/bin/env node
// Entry point of the `cxrbench` command. In a source checkout (src/ present) it runs the TypeScript
// sources through tsx, so there is no build step to forget; an installed package runs the compiled dist/.
import { existsSync } from 'node:fs';

const sources = new URL('../src/cli/main.ts', import.meta.url);
if (existsSync(sources)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(sources.href);
} else {
  await import(new URL('../dist/cli/main.js', import.meta.url).href);
}
