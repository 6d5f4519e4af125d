import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

test('tests clean up: folders made by tempDir are gone when the test process exits', () => {
  const helper = fileURLToPath(new URL('./helpers/records.ts', import.meta.url));
  const script = `import { tempDir } from ${JSON.stringify(helper)}; import { writeFileSync } from 'node:fs'; const a = tempDir(); const b = tempDir('other-'); writeFileSync(a + '/x.txt', 'x'); console.log(JSON.stringify([a, b]));`;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
  const dirs = JSON.parse(out.trim()) as string[];
  assert.equal(dirs.length, 2);
  for (const d of dirs) assert.equal(existsSync(d), false, `${d} was left behind`);
});
