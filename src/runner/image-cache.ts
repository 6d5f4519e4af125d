import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';

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
 */
export class ImageCache {
  /** How many images were encoded (resized or base64-encoded from the file) — for the "encodes = distinct images" check. */
  encodes = 0;
  hits = 0;
  private readonly memory = new Map<string, string>();
  private memoryBytes = 0;
  private readonly pending = new Map<string, Promise<string>>();
  /** path|size|mtime → content key, so an image seen before is not read and hashed again. */
  private readonly keyByFile = new Map<string, string>();

  constructor(
    private readonly dir: string,
    private readonly encoding: ImageEncoding,
    private readonly maxMemoryBytes = 16 << 20,
  ) {
    mkdirSync(dir, { recursive: true });
  }

  /** The data URL of the image at `path`. Throws with the path when the file cannot be read. */
  async dataUrl(path: string): Promise<string> {
    // Asynchronous file access: reads run on libuv's pool while other requests are on the wire.
    let fileId: string;
    try {
      const stats = await stat(path);
      fileId = `${path}|${stats.size}|${stats.mtimeMs}`;
    } catch {
      throw new Error(`image not found or unreadable: ${path}`);
    }
    let key = this.keyByFile.get(fileId);
    let bytes: Buffer | null = null;
    if (key === undefined) {
      bytes = await readFile(path);
      key = createHash('sha256').update(bytes).update(`\u0000${this.encoding.maxPixels ?? 'orig'}`).digest('hex');
      this.keyByFile.set(fileId, key);
    }
    const inMemory = this.memory.get(key);
    if (inMemory !== undefined) {
      this.hits++;
      this.memory.delete(key); // refresh its LRU position
      this.memory.set(key, inMemory);
      return inMemory;
    }
    let job = this.pending.get(key);
    if (!job) {
      const contentKey = key;
      const source = bytes;
      job = (source ? Promise.resolve(source) : readFile(path)).then((b) => this.load(contentKey, b, path)).finally(() => this.pending.delete(contentKey));
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
