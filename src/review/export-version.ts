import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, extname, join, posix } from 'node:path';
import { CxrError } from '../core/errors.js';
import { normalizeRecord } from '../dataset/normalize.js';
import { writeFileAtomically } from '../dataset/sources/atomic-write.js';
import { writeRexvqaJson } from '../dataset/sources/rexvqa-json-write.js';
import type { Question } from '../core/question.js';
import { toOfficialRecord } from '../core/official-record.js';
import type { Store } from '../store/connect.js';
import { reviewVersion } from '../store/review-decisions.js';
import { storedImage } from '../store/images.js';
import { reviewItems, reviewQueueById, reviewViewsOf, type ReviewItem, type ReviewQueue } from '../store/reviews.js';
import { editableText } from './edit.js';
import { versionContent, type VersionContent, type VersionItem } from './version.js';

/** A version laid out as files: the split files' records (by question id), and the images the records point to. */
export interface VersionFiles {
  queue: ReviewQueue;
  content: VersionContent;
  /** Split → [question id, record] in queue order; included items only. */
  splits: Map<string, [string, Record<string, unknown>][]>;
  /** Images to write: the stored image and where, relative to the output folder (posix). */
  images: { sha256: string; target: string }[];
  /** Image paths that would lead out of the output folder, rewritten to the copy written inside it. */
  rewritten: { id: string; split: string; from: string; to: string }[];
  /** Image paths whose file was missing when the queue was made (left as they were). */
  missingImages: { id: string; split: string; path: string }[];
}

/**
 * Lays out version `number` of a queue. Records keep their image paths when those resolve inside the output
 * folder (`../deid_png/…` from `metadata/`, as official files give them) and the stored image is written there;
 * a path that would leave it (a generated set's path back to its corpus) is rewritten to `../images/<sha256>.<ext>`,
 * so the exported folder carries its images and loads anywhere.
 */
export async function versionFiles(store: Store, queueId: string, number: number): Promise<VersionFiles> {
  const queue = await reviewQueueById(store, queueId);
  if (!queue) throw new CxrError('not-found', `no review queue ${queueId} (cxrbench review list)`);
  const version = await reviewVersion(store, queueId, number);
  if (!version) throw new CxrError('not-found', `queue ${queueId} has no version ${number} (make one with cxrbench review version ${queueId})`);
  const content = versionContent(version);
  const itemAt = new Map<number, ReviewItem>((await reviewItems(store, queueId)).map((i) => [i.position, i]));
  const out: VersionFiles = { queue, content, splits: new Map(), images: [], rewritten: [], missingImages: [] };
  const targets = new Set<string>();
  for (const item of content.items.filter((x) => x.included)) {
    const views = reviewViewsOf(itemAt.get(item.position)!);
    const record = { ...item.record };
    if (Array.isArray(record.ImagePath)) {
      record.ImagePath = record.ImagePath.map((raw) => {
        const path = String(raw);
        const sha256 = views.find((v) => v.path === path)?.sha256 ?? null;
        if (!sha256) {
          out.missingImages.push({ id: item.questionId, split: item.split, path });
          return path;
        }
        const inside = posix.relative('/out', posix.resolve('/out/metadata', path.replaceAll('\\', '/')));
        const keep = !inside.startsWith('..') && !posix.isAbsolute(inside);
        const target = keep ? inside : `images/${sha256}${extname(path).toLowerCase() || '.png'}`;
        if (!targets.has(target)) {
          targets.add(target);
          out.images.push({ sha256, target });
        }
        if (keep) return path;
        out.rewritten.push({ id: item.questionId, split: item.split, from: path, to: `../${target}` });
        return `../${target}`;
      });
    }
    // The canonical official form (what the writer writes), so the download and the folder hold the same records.
    out.splits.set(item.split, [...(out.splits.get(item.split) ?? []), [item.questionId, toOfficialRecord(asQuestion(item.questionId, item.split, record))]]);
  }
  if (out.splits.size === 0) throw new CxrError('conflict', `version ${number} of queue ${queueId} includes no question (every item was retired): nothing to export`);
  return out;
}

/** The version's split files as one JSON value: `{"metadata/<split>_vqa_data.json": {id: record}}` (what the board offers for download). */
export function splitFilesJson(files: VersionFiles): Record<string, Record<string, Record<string, unknown>>> {
  return Object.fromEntries([...files.splits].map(([split, records]) => [`metadata/${split}_vqa_data.json`, Object.fromEntries(records)]));
}

function asQuestion(id: string, split: string, record: Record<string, unknown>): Question {
  const { question, issues } = normalizeRecord(structuredClone(record), { file: 'review version', key: id, split });
  if (!question) throw new CxrError('conflict', `question ${id} (${split}) of the version does not read as a question: ${issues.filter((i) => i.severity === 'error').map((i) => i.message).join('; ')}`);
  return question;
}

/** What the reviewers of a disputed item disagree on, for the manifest (nothing for other items). */
const disputeOf = (x: VersionItem) => (x.status === 'disputed' && x.dispute ? { dispute: x.dispute } : {});

/** The account of a version written beside its files: what was accepted, edited (old and new text) and retired. */
export function versionManifest(files: VersionFiles): Record<string, unknown> {
  const { queue, content } = files;
  const ref = (x: VersionItem) => ({ id: x.questionId, split: x.split });
  return {
    queue: { id: queue.id, title: queue.title, source: queue.source, sourceSha256: queue.source_sha256 },
    version: content.version.number,
    createdAt: content.version.created_at,
    createdBy: content.version.created_by,
    policy: content.summary.policy,
    summary: content.summary,
    accepted: content.items.filter((x) => x.status === 'accepted').map(ref),
    edited: content.items.filter((x) => x.status === 'edited').map((x) => ({ ...ref(x), adjudicated: x.adjudicated, previous: editableText(x.previous ?? {}), current: editableText(x.record) })),
    retired: content.items.filter((x) => !x.included).map((x) => ({ ...ref(x), status: x.status, reasons: x.reasons, ...disputeOf(x) })),
    keptUnsettled: content.items.filter((x) => x.included && (x.status === 'disputed' || x.status === 'pending')).map((x) => ({ ...ref(x), status: x.status, ...disputeOf(x) })),
    imagePathsRewritten: files.rewritten,
    imagesMissing: files.missingImages,
  };
}

/** The output file names a version writes, relative to the folder. */
function writtenNames(files: VersionFiles): string[] {
  return [...[...files.splits.keys()].map((s) => join('metadata', `${s}_vqa_data.json`)), 'review-version.json'];
}

/**
 * Writes version `number` of a queue as a question set in the official ReXVQA layout: `<out>/metadata/<split>_vqa_data.json`
 * (the reviewed questions keyed by id; retired ones left out), the images, and `review-version.json`. Every file is
 * written to a temporary name and renamed into place; `review-version.json` comes last. Refuses to overwrite an
 * earlier export unless `force`.
 */
export async function exportVersion(store: Store, queueId: string, number: number, outDir: string, options: { force?: boolean } = {}): Promise<{ files: VersionFiles; written: string[] }> {
  const files = await versionFiles(store, queueId, number);
  const existing = writtenNames(files).filter((name) => existsSync(join(outDir, name)));
  if (existing.length > 0 && !options.force) throw new CxrError('output-exists', `${join(outDir, existing[0]!)} exists; pass --force to overwrite, or export to another folder`);
  mkdirSync(join(outDir, 'metadata'), { recursive: true });
  for (const image of files.images) {
    const target = join(outDir, ...image.target.split('/'));
    if (existsSync(target) && !options.force) continue;
    const stored = await storedImage(store, image.sha256);
    if (!stored) throw new CxrError('not-found', `image ${image.sha256} of the queue is no longer stored`);
    mkdirSync(dirname(target), { recursive: true });
    const temp = `${target}.tmp-${process.pid}`;
    try {
      writeFileSync(temp, stored.content);
      renameSync(temp, target);
    } finally {
      rmSync(temp, { force: true });
    }
  }
  const written: string[] = [];
  for (const [split, records] of files.splits) {
    const file = join(outDir, 'metadata', `${split}_vqa_data.json`);
    await writeRexvqaJson(records.map(([id, record]) => asQuestion(id, split, record)), file);
    written.push(file);
  }
  const manifest = join(outDir, 'review-version.json');
  await writeFileAtomically(manifest, async function* () {
    yield `${JSON.stringify(versionManifest(files), null, 2)}\n`;
  });
  written.push(manifest);
  return { files, written };
}
