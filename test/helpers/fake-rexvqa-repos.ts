import { zstdCompressSync, constants } from 'node:zlib';
import tar from 'tar-stream';
import { seededRandom } from '../../src/core/seeded-random.js';
import type { HubFile, HubRepo } from './fake-hub.js';
import { officialRecord } from './records.js';

/** What a stand-in ReXVQA + ReXGradient-160K pair holds, for tests to check against. */
export interface FakeRexvqa {
  repos: [HubRepo, HubRepo];
  /** Paths of the images inside the archive (as `deid_png/…`). */
  images: string[];
  /** Every archive part, in order, as served. */
  parts: HubFile[];
}

/** Extra archive entries, for hostile-archive tests (written after the images). */
export interface ExtraEntry {
  name: string;
  type?: 'file' | 'symlink';
  linkname?: string;
  content?: string;
}

/** PNG-like bytes: the signature, then half pseudo-random and half repeated rows, so zstd gets real PNG's modest ratio. */
export function pngLike(bytes: number, rand: () => number): Buffer {
  const out = Buffer.alloc(bytes);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(out);
  for (let i = 8; i < bytes; i++) out[i] = i % 64 < 32 ? Math.floor(rand() * 256) : (i >> 6) & 0xff;
  return out;
}

/** Packs entries into a tar, zstd-compresses it, and cuts the bytes into `parts` slices (as `split` does: anywhere). */
export async function splitArchive(entries: { name: string; content?: Buffer; type?: 'file' | 'directory' | 'symlink'; linkname?: string }[], parts: number): Promise<Buffer[]> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const done = new Promise<void>((resolve, reject) => {
    pack.on('data', (c: unknown) => chunks.push(c as Buffer));
    pack.on('end', () => resolve());
    pack.on('error', reject);
  });
  for (const e of entries) {
    if (e.type === 'directory') pack.entry({ name: e.name, type: 'directory' });
    else if (e.type === 'symlink') pack.entry({ name: e.name, type: 'symlink', linkname: e.linkname ?? '' });
    else pack.entry({ name: e.name }, e.content ?? Buffer.alloc(0));
  }
  pack.finalize();
  await done;
  const zst = zstdCompressSync(Buffer.concat(chunks), { params: { [constants.ZSTD_c_compressionLevel]: 3 } });
  const size = Math.ceil(zst.length / parts);
  return Array.from({ length: parts }, (_, i) => zst.subarray(i * size, Math.min(zst.length, (i + 1) * size)));
}

/**
 * Makes a small synthetic ReXVQA (valid and test splits, two images per study) and the ReXGradient-160K archive
 * holding its images as `deid_png.partNN` pieces of one tar.zst, shaped like the real repos: question files in
 * LFS under metadata/, a README and .gitattributes in git, other metadata beside them that is not needed.
 */
export async function makeFakeRexvqa(options: { studies?: number; parts?: number; imageBytes?: number; extra?: ExtraEntry[]; seed?: number } = {}): Promise<FakeRexvqa> {
  const studies = options.studies ?? 6;
  const rand = seededRandom(options.seed ?? 7);
  const images: string[] = [];
  const splits: Record<string, Record<string, unknown>> = { valid: {}, test: {} };
  for (let s = 0; s < studies; s++) {
    const split = s % 2 === 0 ? 'valid' : 'test';
    const dir = `deid_png/P${s}/A${s}/studies/S${s}/series/R${s}/instances`;
    const pair = [`${dir}/I${s}_1.png`, `${dir}/I${s}_2.png`];
    images.push(...pair);
    for (let q = 0; q < 2; q++) {
      splits[split]![`${split}_${s}_${q}`] = officialRecord({ question: `Question ${q} about study ${s}?`, study_id: `pP${s}_aA${s}_sS${s}`, StudyInstanceUid: `S${s}`, PatientID: `P${s}`, ImagePath: pair.map((p) => `../${p}`) });
    }
  }
  const entries = [
    ...images.map((name) => ({ name, content: pngLike(options.imageBytes ?? 6000, rand) })),
    ...(options.extra ?? []).map((e) => ({ name: e.name, type: e.type ?? 'file', ...(e.linkname ? { linkname: e.linkname } : {}), content: Buffer.from(e.content ?? 'x') })),
  ];
  const slices = await splitArchive(entries, options.parts ?? 3);
  const parts = slices.map((content, i) => ({ path: `deid_png.part${String(i).padStart(2, '0')}`, content, lfs: true }));
  const text = (s: string) => Buffer.from(s);
  const vqa: HubRepo = {
    name: 'rajpurkarlab/ReXVQA',
    sha: 'a'.repeat(39) + '1',
    gated: true,
    files: [
      { path: '.gitattributes', content: text('*.json filter=lfs diff=lfs merge=lfs -text\n'), lfs: false },
      { path: 'README.md', content: text('# ReXVQA (stand-in)\n'), lfs: false },
      { path: 'metadata/valid_vqa_data.json', content: text(JSON.stringify(splits.valid, null, 2)), lfs: true },
      // a question file kept in git, not LFS: checked against its git blob sha1
      { path: 'metadata/test_vqa_data.json', content: text(JSON.stringify(splits.test, null, 2)), lfs: false },
    ],
  };
  const gradient: HubRepo = {
    name: 'rajpurkarlab/ReXGradient-160K',
    sha: 'b'.repeat(39) + '2',
    gated: true,
    files: [{ path: 'README.md', content: text('# ReXGradient-160K (stand-in)\n'), lfs: false }, { path: 'metadata/train_metadata.json', content: text('{}'), lfs: true }, ...parts],
  };
  return { repos: [vqa, gradient], images, parts };
}
