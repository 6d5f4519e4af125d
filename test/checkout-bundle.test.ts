import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { checkoutBundle } from '../bin/checkout-bundle.js';
import { tempDir } from './helpers/records.js';

// bin/checkout-bundle.js: a checkout's CLI runs from one esbuild bundle of src/, made again only when a source changes.

/** A tiny checkout: src/cli/main.ts prints its own URL and that of a module it imports, and a word from that module. */
function checkout(word: string): { root: string; cacheDir: string; where: string } {
  const root = tempDir();
  mkdirSync(join(root, 'src', 'cli'), { recursive: true });
  const where = join(root, 'src', 'where.ts');
  writeFileSync(where, `export const whereUrl: string = import.meta.url;\nexport const word = ${JSON.stringify(word)};\n`);
  writeFileSync(join(root, 'src', 'cli', 'main.ts'), `import { whereUrl, word } from '../where.js';\nconsole.log(JSON.stringify({ main: import.meta.url, where: whereUrl, word }));\n`);
  // written a minute ago: sources edited in the last seconds before a build are not trusted to be in it (see below)
  const before = new Date(Date.now() - 60_000);
  for (const file of [where, join(root, 'src', 'cli', 'main.ts')]) utimesSync(file, before, before);
  return { root, cacheDir: join(root, 'cache'), where };
}

const run = (bundle: URL) => JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', `await import(${JSON.stringify(bundle.href)})`], { encoding: 'utf8' }));

test('checkout bundle: the CLI bundle keeps each module its own import.meta.url, is reused while the sources stay, and is made again when one changes', async () => {
  const { root, cacheDir, where } = checkout('first');
  const bundle = await checkoutBundle('cli/main', { root, cacheDir });
  assert.ok(bundle, 'a bundle was made');
  assert.deepEqual(run(bundle), { main: pathToFileURL(join(root, 'src', 'cli', 'main.ts')).href, where: pathToFileURL(where).href, word: 'first' });

  const made = statSync(bundle).mtimeMs;
  const again = await checkoutBundle('cli/main', { root, cacheDir });
  assert.equal(again?.href, bundle.href, 'the same bundle while nothing changed');
  assert.equal(statSync(again!).mtimeMs, made, 'not written again');

  writeFileSync(where, readFileSync(where, 'utf8').replace('"first"', '"second"'));
  const remade = await checkoutBundle('cli/main', { root, cacheDir });
  assert.ok(remade && remade.href !== bundle.href, 'a changed source makes a new bundle');
  assert.equal(run(remade).word, 'second');
  // edited just now: the file system's clock is coarser than the build's, so an edit in the same instant as the
  // build could be missing from it: the bundle serves this run, and the index still names the one before
  assert.equal(JSON.parse(readFileSync(join(cacheDir, 'cli-main.json'), 'utf8')).bundle, bundle.pathname.split('/').pop());
  assert.ok(existsSync(remade));
});

test('checkout bundle: none when turned off (CXRBENCH_BUNDLE=0) or when the sources do not build — the caller then loads them through tsx', async () => {
  const { root, cacheDir } = checkout('x');
  process.env.CXRBENCH_BUNDLE = '0';
  try {
    assert.equal(await checkoutBundle('cli/main', { root, cacheDir }), null);
  } finally {
    delete process.env.CXRBENCH_BUNDLE;
  }
  writeFileSync(join(root, 'src', 'cli', 'main.ts'), 'export const broken = ;\n');
  assert.equal(await checkoutBundle('cli/main', { root, cacheDir }), null, 'tsx says what is wrong with the source, not the bundler');
});
