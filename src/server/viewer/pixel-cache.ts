import type { Store } from '../../store/connect.js';
import { storedImage } from '../../store/images.js';
import { rawPixels, type RawPixels } from './raw-pixels.js';

/**
 * Decoded images by sha256, least recently used out first, within a byte budget. Fifty readers open the same
 * case images; decoding a 16-bit radiograph takes ~100 ms, so each is decoded once per process, not per request.
 */
export class PixelCache {
  private readonly entries = new Map<string, Promise<RawPixels | null>>();
  private readonly sizes = new Map<string, number>();
  private bytes = 0;

  constructor(private readonly store: Store, private readonly budgetBytes = 256 * 1024 * 1024) {}

  /** The raw pixels of a stored image, or null when there is no such image. */
  get(sha256: string): Promise<RawPixels | null> {
    const hit = this.entries.get(sha256);
    if (hit) {
      this.entries.delete(sha256);
      this.entries.set(sha256, hit); // most recently used last
      return hit;
    }
    const made = storedImage(this.store, sha256).then((image) => (image ? rawPixels(image.content) : null));
    this.entries.set(sha256, made);
    made.then((pixels) => this.account(sha256, pixels?.body.length ?? 0), () => this.entries.delete(sha256));
    return made;
  }

  private account(sha256: string, size: number): void {
    if (!this.entries.has(sha256)) return;
    this.sizes.set(sha256, size);
    this.bytes += size;
    for (const key of this.entries.keys()) {
      if (this.bytes <= this.budgetBytes || key === sha256) break;
      this.bytes -= this.sizes.get(key) ?? 0;
      this.sizes.delete(key);
      this.entries.delete(key);
    }
  }
}
