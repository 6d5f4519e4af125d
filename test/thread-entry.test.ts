import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import test from 'node:test';
import { threadEntry } from '../src/core/thread-entry.js';

const hubModule = new URL('../src/hub/extract-in-thread.ts', import.meta.url).href;

test('thread entry: a bundled thread from a checkout is one CommonJS file in node_modules/.cache, run without tsx', () => {
  const { url, execArgv } = threadEntry('extract-thread', hubModule, { bundle: true });
  assert.match(url.pathname, /\/node_modules\/\.cache\/cxrbench-threads\/extract-thread-[0-9a-f]{16}\.cjs$/);
  assert.ok(existsSync(fileURLToPath(url)));
  assert.deepEqual(execArgv, []);
  // the same code gives the same file: written once
  assert.equal(threadEntry('extract-thread', hubModule, { bundle: true }).url.href, url.href);
});

test('thread entry: what cannot be bundled runs through tsx; compiled code runs as it is', () => {
  const missing = threadEntry('no-such-thread', hubModule, { bundle: true });
  assert.match(missing.url.pathname, /\/src\/hub\/no-such-thread\.ts$/);
  assert.equal(missing.execArgv[0], '--import');
  assert.deepEqual(threadEntry('extract-thread', 'file:///pkg/dist/hub/extract-in-thread.js', { bundle: true }), { url: new URL('file:///pkg/dist/hub/extract-thread.js'), execArgv: [] });
});
