import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** How images are prepared for a request; part of the cache key. */
export interface ImageEncoding {
  /** Resize so the longest side is at most this (null: send the file as stored). */
  maxPixels: number | null;
}

const MIME: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', webp: 'image/webp', gif: 'image/gif' };

function mimeOf(bytes: Buffer, path: string): string {
  if (bytes[0] === 0x89 && bytes[1] === 0x50) return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return 'image/jpeg';
  return MIME[path.split('.').pop()?.toLowerCase() ?? ''] ?? 'application/octet-stream';
}

/**
 * Turns image files into data URLs, encoding each distinct image (by content hash and encoding settings) once
 * per run. Memory holds a bounded LRU of recent ones however many studies a run covers. Resized images also go
 * to a folder of the run, so resizing is never repeated after an eviction or on resume; images sent as stored
 * are not copied there (reading the source file again is as cheap as reading a copy).
 *
 * Image files are taken as unchanging for the life of a run: a path seen once is not stat-ed or hashed again.
 * (Checking each use cost a stat per view per question — on this project's VM the largest single cost of a
 * 41K-question run.)
 */
export class ImageCache {
  /** How many images were encoded (resized or base64-encoded from the file) — for the "encodes = distinct images" check. */
  encodes = 0;
  hits = 0;
  private readonly memory = new Map<string, string>();
  private memoryBytes = 0;
  /** Content key → the encode in progress, so concurrent requests for one image share it. */
  private readonly pending = new Map<string, Promise<string>>();
  /** Path → the first read of it in progress, so a study's questions asked at once read its views once. */
  private readonly reading = new Map<string, Promise<string>>();
  /** Path → content key. */
  private readonly keyByPath = new Map<string, string>();

  constructor(
    private readonly dir: string,
    private readonly encoding: ImageEncoding,
    private readonly maxMemoryBytes = 16 << 20,
  ) {
    mkdirSync(dir, { recursive: true });
  }

  /** The data URL of the image at `path`. Throws with the path when the file cannot be read. */
  dataUrl(path: string): Promise<string> {
    const key = this.keyByPath.get(path);
    if (key !== undefined) {
      const inMemory = this.memory.get(key);
      if (inMemory !== undefined) {
        this.hits++;
        this.memory.delete(key); // refresh its LRU position
        this.memory.set(key, inMemory);
        return Promise.resolve(inMemory);
      }
    }
    let job = this.reading.get(path);
    if (job) {
      this.hits++;
      return job;
    }
    job = this.readAndEncode(path, key).finally(() => this.reading.delete(path));
    this.reading.set(path, job);
    return job;
  }

  private async readAndEncode(path: string, knownKey: string | undefined): Promise<string> {
    // Asynchronous file access: reads run on libuv's pool while other requests are on the wire.
    let bytes: Buffer;
    try {
      bytes = await readFile(path);
    } catch {
      throw new Error(`image not found or unreadable: ${path}`);
    }
    const key = knownKey ?? createHash('sha256').update(bytes).update(`\u0000${this.encoding.maxPixels ?? 'orig'}`).digest('hex');
    this.keyByPath.set(path, key);
    const inMemory = this.memory.get(key); // the same content under another path
    if (inMemory !== undefined) {
      this.hits++;
      return inMemory;
    }
    let job = this.pending.get(key);
    if (!job) {
      job = this.load(key, bytes, path).finally(() => this.pending.delete(key));
      this.pending.set(key, job);
    } else this.hits++;
    return job;
  }

  private async load(key: string, bytes: Buffer, path: string): Promise<string> {
    if (this.encoding.maxPixels === null) {
      this.encodes++;
      const url = await this.encode(bytes, path);
      this.remember(key, url);
      return url;
    }
    const file = join(this.dir, `${key}.txt`);
    let url: string;
    if (existsSync(file)) {
      this.hits++;
      url = readFileSync(file, 'utf8');
    } else {
      this.encodes++;
      url = await this.encode(bytes, path);
      const temp = `${file}.tmp-${process.pid}`;
      writeFileSync(temp, url);
      renameSync(temp, file);
    }
    this.remember(key, url);
    return url;
  }

  private async encode(bytes: Buffer, path: string): Promise<string> {
    if (this.encoding.maxPixels === null) return `data:${mimeOf(bytes, path)};base64,${bytes.toString('base64')}`;
    // sharp (libvips) is loaded only when resizing: it adds ~20 MB to a process that never uses it.
    const { default: sharp } = await import('sharp');
    const resized = await sharp(bytes)
      .resize({ width: this.encoding.maxPixels, height: this.encoding.maxPixels, fit: 'inside', withoutEnlargement: true })
      .png()
      .toBuffer();
    return `data:image/png;base64,${resized.toString('base64')}`;
  }

  private remember(key: string, url: string): void {
    this.memory.set(key, url);
    this.memoryBytes += url.length;
    for (const [oldKey, oldUrl] of this.memory) {
      if (this.memoryBytes <= this.maxMemoryBytes) break;
      this.memory.delete(oldKey);
      this.memoryBytes -= oldUrl.length;
    }
  }
}
