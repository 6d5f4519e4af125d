import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, utimesSync } from 'node:fs';
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

function download(hub: FakeHub, out: string, extra: string[] = [], token: string | null = TOKEN): Promise<CliRun> {
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

test('data download: gated access is said plainly — no token, a token without access, an invalid token — exit 2 with the dataset page, no stack, no token', async () => {
  const { hub } = await standIn();
  try {
    const cases = [
      { name: 'no token', token: null, expected: /^cxrbench: rajpurkarlab\/ReXVQA is gated and no token was given: accept its terms at http:\/\/127\.0\.0\.1:\d+\/datasets\/rajpurkarlab\/ReXVQA \(signed in\), create a read token at http:\/\/127\.0\.0\.1:\d+\/settings\/tokens, and put it in the HF_TOKEN environment variable/ },
      { name: 'not granted', token: OTHER, expected: /^cxrbench: rajpurkarlab\/ReXVQA: the token in HF_TOKEN has no access to this gated dataset \(HTTP 403, GatedRepo\): sign in as the token's owner, accept the terms at http:\/\/127\.0\.0\.1:\d+\/datasets\/rajpurkarlab\/ReXVQA and wait/ },
      { name: 'invalid', token: 'hf_revokedToken0000000000000', expected: /^cxrbench: rajpurkarlab\/ReXVQA: the hub did not accept the token in HF_TOKEN \(HTTP 401\): it is invalid or revoked/ },
      { name: 'not a token', token: 'password123', expected: /^cxrbench: HF_TOKEN does not hold a Hugging Face token \(they start with "hf_"\)/ },
    ];
    for (const c of cases) {
      const out = join(tempDir(), 'gated');
      const run = await download(hub, out, ['--what', 'metadata'], c.token);
      assert.equal(run.code, 2, `${c.name}: ${run.stderr}`);
      assert.match(run.stderr, c.expected, c.name);
      assert.equal(run.stderr.trim().split('\n').length, 1, `${c.name}: one line, no stack: ${run.stderr}`);
      if (c.token) assert.ok(!run.stderr.includes(c.token) && !allText(out).includes(c.token), `${c.name}: token shown`);
      assert.ok(!existsSync(join(out, 'metadata')), `${c.name}: nothing written to metadata/`);
    }
  } finally {
    await hub.close();
  }
});

test('data download: kill -9 mid-download, rerun — finished files are not fetched again, the cut file goes on from its last byte', { timeout: 60_000 }, async () => {
  const { hub, data } = await standIn({ imageBytes: 200_000, parts: 4 });
  try {
    const out = join(tempDir(), 'killed');
    hub.faults.throttleMs = 50;
    const child = spawn(process.execPath, [bin, 'data', 'download', '--out', out, '--concurrency', '1', '--quiet'], { env: { ...process.env, HF_ENDPOINT: hub.url, HF_TOKEN: TOKEN }, stdio: 'ignore' });
    const exited = new Promise((r) => child.once('exit', r));
    const manifestPath = join(out, 'cxrbench-download.json');
    const cutPart = data.parts[2]!.path;
    // kill once two parts are verified and the third has some bytes on disk
    for (let i = 0; i < 2000; i++) {
      const partial = join(out, '.cxrbench-download/partial/rajpurkarlab/ReXGradient-160K', `${cutPart}.part`);
      if (existsSync(partial) && readFileSync(partial).length > 0) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    child.kill('SIGKILL');
    await exited;
    const before = JSON.parse(readFileSync(manifestPath, 'utf8'));
    const verified = before.files.filter((f: { verifiedAt?: string }) => f.verifiedAt).map((f: { path: string }) => f.path);
    assert.deepEqual(verified, ['metadata/test_vqa_data.json', 'metadata/valid_vqa_data.json', data.parts[0]!.path, data.parts[1]!.path]);
    const had = readFileSync(join(out, '.cxrbench-download/partial/rajpurkarlab/ReXGradient-160K', `${cutPart}.part`)).length;
    assert.ok(had > 0 && had < data.parts[2]!.content.length);

    hub.faults.throttleMs = 0;
    const mark = hub.requests.length;
    const run = await download(hub, out);
    assert.equal(run.code, 0, run.stderr);
    const after = hub.requests.slice(mark).filter((r) => r.server === 'cdn').map((r) => [r.path.replace(/^\/blob\//, ''), r.range]);
    const blob = (i: number) => sha256(data.parts[i]!.content);
    // no request for the metadata or the two finished parts; the cut part from where it stopped; the last from its start
    assert.deepEqual(after.sort(), [[blob(2), `bytes=${had}-`], [blob(3), null]].sort());
    const validate = await runCli(['data', 'validate', out, '--images']);
    assert.equal(validate.code, 0, validate.stdout + validate.stderr);
  } finally {
    await hub.close();
  }
});

test('data download: kill -9 with the archive half extracted, rerun — the entries the journal lists are not written again, the rest are, and validate --images passes', { timeout: 60_000 }, async () => {
  const { hub, data } = await standIn({ studies: 30, imageBytes: 20_000, parts: 3 });
  try {
    const out = join(tempDir(), 'killed-extracting');
    const last = data.parts.at(-1)!;
    hub.faults.hold.add(last.path); // the last part hangs: extraction stops at the end of the second part's bytes
    const child = spawn(process.execPath, [bin, 'data', 'download', '--out', out, '--quiet'], { env: { ...process.env, HF_ENDPOINT: hub.url, HF_TOKEN: TOKEN }, stdio: 'ignore' });
    const exited = new Promise((r) => child.once('exit', r));
    const manifestPath = join(out, 'cxrbench-download.json');
    const journal = () => (existsSync(manifestPath) ? JSON.parse(readFileSync(manifestPath, 'utf8')).archive : null);
    // wait for the journal saved while extraction waits for the held part (two parts read into zstd)
    for (let i = 0; i < 1000 && !(journal()?.partsRead >= 2); i++) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 1500)); // past the one-second trailing save: the journal holds all that was written
    child.kill('SIGKILL');
    await exited;
    const at = journal();
    assert.equal(at.partsRead, 2, JSON.stringify(at));
    const done = at.entriesDone as number;
    assert.ok(done > 0 && done < data.images.length, `killed mid-archive: ${done} of ${data.images.length} entries out`);
    assert.deepEqual(at, { entriesDone: done, lastEntry: data.images[done - 1], filesOut: done, bytesOut: done * 20_000, partsRead: 2, complete: false });
    const onDisk = () => readdirSync(join(out, 'deid_png'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name).slice(out.length + 1)).sort();
    assert.deepEqual(onDisk(), data.images.slice(0, done).sort(), 'exactly the journalled images are out');
    // mark what is out with an old time: a rerun that wrote an image again would give it a new one
    const old = new Date('2001-01-01T00:00:00Z');
    for (const image of data.images.slice(0, done)) utimesSync(join(out, image), old, old);

    hub.faults.hold.clear();
    const mark = hub.requests.length;
    const run = await download(hub, out);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(hub.requests.slice(mark).filter((r) => r.server === 'cdn').map((r) => r.path), [`/blob/${sha256(last.content)}`], 'only the held part is fetched');
    assert.deepEqual(onDisk(), [...data.images].sort());
    const kept = data.images.filter((image) => statSync(join(out, image)).mtimeMs === old.getTime());
    assert.deepEqual(kept, data.images.slice(0, done), 'the journalled entries were skipped, every later one written');
    const archive = JSON.parse(readFileSync(manifestPath, 'utf8')).archive;
    assert.deepEqual(archive, { entriesDone: data.images.length, lastEntry: data.images.at(-1), filesOut: data.images.length, bytesOut: data.images.length * 20_000, partsRead: 3, complete: true });
    const validate = await runCli(['data', 'validate', out, '--images']);
    assert.equal(validate.code, 0, validate.stdout + validate.stderr);
  } finally {
    await hub.close();
  }
});

test('data download: a corrupted byte is caught by the sha256 and fetched again once; corrupted twice, the file is named and the run exits 3', async () => {
  const { hub, data } = await standIn();
  try {
    const part = data.parts[1]!;
    hub.faults.corrupt.set(part.path, 1);
    const once = join(tempDir(), 'once');
    const healed = await download(hub, once, ['--what', 'images']);
    assert.equal(healed.code, 0, healed.stderr);
    assert.equal(cdnGets(hub, sha256(part.content)).length, 2);
    assert.equal((await runCli(['data', 'validate', once, '--images'])).code, 2, 'images only: no question files, so validate refuses the folder');
    assert.equal(readdirSync(join(once, 'deid_png'), { recursive: true }).filter((f) => String(f).endsWith('.png')).length, 12);

    hub.faults.corrupt.set(part.path, 2);
    const twice = join(tempDir(), 'twice');
    const run = await download(hub, twice, ['--what', 'images']);
    assert.equal(run.code, 3, run.stderr);
    const name = `rajpurkarlab/ReXGradient-160K/${part.path.replace('.', '\\.')}`;
    const lines = run.stderr.trim().split('\n');
    assert.equal(lines.length, 2, run.stderr);
    assert.match(lines[0]!, new RegExp(`^cxrbench: ${name}: sha256 [0-9a-f]{64} where the hub lists ${sha256(part.content)}; fetching it again$`));
    assert.match(lines[1]!, new RegExp(`^cxrbench: ${name} at b+2: sha256 [0-9a-f]{64} where the hub lists ${sha256(part.content)}, twice in a row \\(fetched again from scratch after the first\\)\\. The copy on http://127\\.0\\.0\\.1:\\d+ may be damaged`));
  } finally {
    await hub.close();
  }
});

test('data download: a connection dropped mid-file is retried with a Range from the last byte written', async () => {
  const { hub, data } = await standIn();
  try {
    const part = data.parts[0]!;
    hub.faults.drop.set(part.path, { afterBytes: 1000, times: 1 });
    const out = join(tempDir(), 'dropped');
    const run = await download(hub, out, ['--what', 'images']);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(cdnGets(hub, sha256(part.content)), [null, 'bytes=1000-']);
    const manifest = JSON.parse(readFileSync(join(out, 'cxrbench-download.json'), 'utf8'));
    assert.equal(manifest.archive.filesOut, 12);
  } finally {
    await hub.close();
  }
});

test('data download: archive entries that would leave the folder are refused by name, and nothing lands outside', async () => {
  const cases: { entry: ExtraEntry; message: RegExp }[] = [
    { entry: { name: 'deid_png/../../escaped.txt' }, message: /archive entry "deid_png\/\.\.\/\.\.\/escaped\.txt" climbs out with "\.\."/ },
    { entry: { name: 'deid_png/link', type: 'symlink', linkname: '../../..' }, message: /archive entry "deid_png\/link" is a link to "\.\.\/\.\.\/\.\." \(links are refused/ },
  ];
  for (const c of cases) {
    const { hub } = await standIn({ extra: [c.entry] });
    try {
      const root = tempDir();
      const out = join(root, 'a', 'b');
      const run = await download(hub, out, ['--what', 'images']);
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, c.message);
      assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
      assert.ok(!existsSync(join(root, 'escaped.txt')) && !existsSync(join(root, 'a', 'escaped.txt')));
      assert.ok(!existsSync(join(out, 'deid_png', 'link')));
    } finally {
      await hub.close();
    }
  }
});
