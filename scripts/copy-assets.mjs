// Copies the non-TypeScript files the code reads at run time (prompt templates, the board's CSS and script, the
// generator's finding vocabulary) next to the compiled JavaScript, so an installed package (dist/) finds them
// where the sources do.
import { cpSync } from 'node:fs';

for (const dir of ['prompt/templates', 'server/public', 'generate/vocabulary']) cpSync(new URL(`../src/${dir}`, import.meta.url), new URL(`../dist/${dir}`, import.meta.url), { recursive: true });
cpSync(new URL('../src/server/viewer/viewer.css', import.meta.url), new URL('../dist/server/viewer/viewer.css', import.meta.url));
