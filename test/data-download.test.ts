import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runCli, type CliRun } from './helpers/cli.js';
import { startFakeHub, type FakeHub } from './helpers/fake-hub.js';
import { makeFakeRexvqa, type ExtraEntry, type FakeRexvqa } from './helpers/fake-rexvqa-repos.js';
import { tempDir } from './helpers/records.js';

const bin = fileURLToPath(new URL('../bin/cxrbench.js', import.meta.url));
const TOKEN = 'hf_standInSecretToken0123456789';
const OTHER = 'hf_validButNotGranted0123456789';
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function standIn(options: { extra?: ExtraEntry[]; parts?: number; imageBytes?: number; studies?: number } = {}): Promise<{ hub: FakeHub; data: FakeRexvqa }> {
  const data = await makeFakeRexvqa(options);
  const hub = await startFakeHub(data.repos, { granted: [TOKEN], known: [OTHER] });
  return { hub, data };
}

function download(hub: FakeHub, out: string, extra: string[] = [], token: string | undefined = TOKEN): Promise<CliRun> {
  return runCli(['data', 'download', '--out', out, ...extra], { env: { HF_ENDPOINT: hub.url, HF_TOKEN: token ?? '' }, timeoutMs: 60_000 });
}

/** Every file under a folder, with its text, so a test can look for the token in all of them. */
function allText(dir: string): string {
  if (!existsSync(dir)) return '';
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath, e.name), 'latin1'))
    .join('\n');
}

function assertNoToken(run: CliRun, out: string, hub: FakeHub): void {
  for (const token of [TOKEN, OTHER]) {
    assert.ok(!run.stdout.includes(token) && !run.stderr.includes(token), 'the token was printed');
    assert.ok(!allText(out).includes(token), 'the token was written to a file in the output folder');
  }
  // the token goes to the hub only: never to the CDN a resolve redirects to
  assert.deepEqual(hub.requests.filter((r) => r.server === 'cdn' && r.authorization !== null), []);
}

const cdnGets = (hub: FakeHub, path: string) => hub.requests.filter((r) => r.server === 'cdn' && r.method === 'GET' && r.path.endsWith(path)).map((r) => r.range);

test('data download: an empty folder becomes a dataset data validate --images accepts; the manifest records revisions, sizes and hashes; a rerun says complete without the network', async () => {
  const { hub, data } = await standIn();
  try {
    const out = join(tempDir(), 'rexvqa');
    const run = await download(hub, out);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^downloaded: .* rajpurkarlab\/ReXVQA@aaaaaaaaaaaa, rajpurkarlab\/ReXGradient-160K@bbbbbbbbbbbb; 5 files .*, 12 images;/);
    assertNoToken(run, out, hub);

    const validate = await runCli(['data', 'validate', out, '--images']);
    assert.equal(validate.code, 0, validate.stdout + validate.stderr);
    for (const image of data.images) assert.ok(existsSync(join(out, image)), image);
    // the parts are gone once every image is out; no partial files or joined archive left behind
    assert.deepEqual(readdirSync(join(out, '.cxrbench-download')).sort(), ['parts']);
    assert.deepEqual(readdirSync(join(out, '.cxrbench-download', 'parts')), []);
    assert.deepEqual(readdirSync(out).sort(), ['.cxrbench-download', 'cxrbench-download.json', 'deid_png', 'metadata']);

    const manifest = JSON.parse(readFileSync(join(out, 'cxrbench-download.json'), 'utf8'));
    const [vqa, gradient] = data.repos;
    assert.deepEqual(
      Object.fromEntries(Object.entries(manifest.repos as Record<string, { requested: string; revision: string }>).map(([k, v]) => [k, [v.requested, v.revision]])),
      { [vqa.name]: ['main', vqa.sha], [gradient.name]: ['main', gradient.sha] },
    );
    const content = (repo: typeof vqa, path: string) => repo.files.find((f) => f.path === path)!.content;
    const testJson = content(vqa, 'metadata/test_vqa_data.json');
    assert.deepEqual(
      manifest.files.map((f: Record<string, unknown>) => [f.path, f.size, f.sha256 ?? null, f.gitSha1 ?? null, f.removed ?? false, typeof f.verifiedAt]),
      [
        ['metadata/test_vqa_data.json', testJson.length, null, createHash('sha1').update(`blob ${testJson.length}\0`).update(testJson).digest('hex'), false, 'string'],
        ['metadata/valid_vqa_data.json', content(vqa, 'metadata/valid_vqa_data.json').length, sha256(content(vqa, 'metadata/valid_vqa_data.json')), null, false, 'string'],
        ...data.parts.map((p) => [p.path, p.content.length, sha256(p.content), null, true, 'string']),
      ],
    );
    assert.deepEqual(manifest.archive, { ...manifest.archive, filesOut: 12, complete: true, partsRead: 3 });
    assert.equal(typeof manifest.completedAt, 'string');

    const before = hub.requests.length;
    const again = await download(hub, out);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /^complete: /);
    assert.equal(hub.requests.length, before, 'a complete folder is checked from its manifest, not fetched again');

    const verified = await download(hub, out, ['--verify']);
    assert.equal(verified.code, 0, verified.stderr);
    assert.match(verified.stdout, /^complete \(every file hashed again\): /);
  } finally {
    await hub.close();
  }
});
