import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { TOOL_VERSION } from '../src/core/version.js';
import { forbiddenImports, sourceFiles } from './helpers/import-rules.js';

const src = fileURLToPath(new URL('../src', import.meta.url));

test('architecture: no src/ module imports across a forbidden edge of the dependency rule', () => {
  assert.deepEqual(forbiddenImports(sourceFiles(src)), []);
});

test('architecture: the import scanner catches forbidden edges (so the test above can fail)', () => {
  const problems = forbiddenImports([
    { path: 'core/a.ts', text: "import { x } from '../dataset/b.js';" },
    { path: 'dataset/b.ts', text: "import type { R } from '../report/r.js';\nimport { z } from 'zod';" },
    { path: 'report/r.ts', text: "export { y } from '../cli/main.js';" },
    { path: 'cli/main.ts', text: "const m = await import('../server/app.js');" },
    { path: 'dataset/ok.ts', text: "import { q } from '../core/question.js';\nimport { s } from './sources/x.js';" },
    { path: 'index.ts', text: "export { main } from './cli/main.js';" },
    { path: 'dataset/t.ts', text: "import { h } from '../../test/helpers/records.js';" },
  ]);
  assert.deepEqual(problems, [
    'core/a.ts → ../dataset/b.js: core may not import dataset',
    'dataset/b.ts → ../report/r.js: dataset may not import report',
    'report/r.ts → ../cli/main.js: report may not import cli',
    'cli/main.ts → ../server/app.js: cli may not import server',
    'index.ts → ./cli/main.js: index.ts may not import cli',
    'dataset/t.ts → ../../test/helpers/records.js: imports from outside src/',
  ]);
});

test('the version in code matches package.json', () => {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  assert.equal(TOOL_VERSION, pkg.version);
});
